// Content-addressed blob store for externalised images (Part A "Size control and blob
// externalisation", Part B §8). A blob's name is the SHA-256 of its decoded bytes.
//
// Security: a reference is turned into a path only when its hash is exactly 64 lowercase hex
// characters. Anything else (`blob:sha256:../../etc/passwd`, upper case, short) is reported as
// an invalid reference and never touches the file system.
import { createHash, randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import type { Diagnostic } from '../../diagnostics';
import type { SessionEntry } from './schemas';

export const BLOB_PREFIX = 'blob:sha256:';
const HASH_RE = /^[0-9a-f]{64}$/;

export function defaultBlobDir(): string {
  return join(homedir(), '.xcsh', 'agent', 'blobs');
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Any string that claims to be a blob reference (valid or not). */
export function isBlobRef(data: unknown): boolean {
  return typeof data === 'string' && data.startsWith(BLOB_PREFIX);
}

/** The hash of a well-formed reference; null for anything else. The only gate to a path. */
export function parseBlobRef(data: unknown): string | null {
  if (typeof data !== 'string' || !isBlobRef(data)) return null;
  const hash = data.slice(BLOB_PREFIX.length);
  return HASH_RE.test(hash) ? hash : null;
}

export function blobRef(hash: string): string {
  return BLOB_PREFIX + hash;
}

export class BlobStore {
  readonly dir: string;

  constructor(dir: string = defaultBlobDir()) {
    this.dir = dir;
  }

  private pathOf(hash: string): string {
    if (!HASH_RE.test(hash)) throw new Error(`invalid blob hash: ${JSON.stringify(hash).slice(0, 80)}`);
    return join(this.dir, hash);
  }

  /** Stores bytes under their SHA-256; returns the hash. Existing blobs are not rewritten. */
  async put(bytes: Uint8Array): Promise<string> {
    const hash = sha256Hex(bytes);
    const p = this.pathOf(hash);
    if (await this.has(hash)) return hash;
    await mkdir(this.dir, { recursive: true });
    // temp + rename so a reader never sees a half-written blob under its final name
    const tmp = `${p}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, bytes);
      await rename(tmp, p);
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw e;
    }
    return hash;
  }

  async get(hash: string): Promise<Buffer | null> {
    if (!HASH_RE.test(hash)) return null;
    try {
      return await readFile(this.pathOf(hash));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async has(hash: string): Promise<boolean> {
    if (!HASH_RE.test(hash)) return false;
    try {
      return (await stat(this.pathOf(hash))).isFile();
    } catch {
      return false;
    }
  }
}

export type ResolvedImage =
  | { kind: 'inline'; base64: string }
  | { kind: 'blob'; base64: string; hash: string }
  | { kind: 'missing'; hash: string }
  | { kind: 'invalid'; ref: string };

/** Resolves one image block's `data` for display (lazily: the UI asks when it shows the image). */
export async function resolveImageData(data: string, store: BlobStore): Promise<ResolvedImage> {
  if (!isBlobRef(data)) return { kind: 'inline', base64: data };
  const hash = parseBlobRef(data);
  if (!hash) return { kind: 'invalid', ref: data };
  const bytes = await store.get(hash);
  return bytes ? { kind: 'blob', base64: bytes.toString('base64'), hash } : { kind: 'missing', hash };
}

export interface BlobRefLocation {
  /** Index into the entries array. */
  entryIndex: number;
  entryId?: string;
  ref: string;
  /** null when the reference is malformed. */
  hash: string | null;
}

/**
 * Every blob reference in image blocks of `message` (all roles, so toolResult content too) and
 * `custom_message` content — the places upstream resolves on load (Part A).
 */
export function findBlobRefs(entries: readonly SessionEntry[]): BlobRefLocation[] {
  const out: BlobRefLocation[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as Record<string, unknown>;
    let content: unknown;
    if (e.type === 'message') content = (e.message as Record<string, unknown> | undefined)?.content;
    else if (e.type === 'custom_message') content = e.content;
    else continue;
    if (!Array.isArray(content)) continue;
    for (const b of content) {
      if (b && typeof b === 'object' && (b as Record<string, unknown>).type === 'image') {
        const data = (b as Record<string, unknown>).data;
        if (typeof data === 'string' && isBlobRef(data)) {
          out.push({ entryIndex: i, ...(typeof e.id === 'string' ? { entryId: e.id } : {}), ref: data, hash: parseBlobRef(data) });
        }
      }
    }
  }
  return out;
}

/**
 * `missing-blob` / `invalid-blob-ref` diagnostics for a loaded session (Part B §8: a missing blob
 * leaves the reference in place with a warning). `lines[i]` is the line of entries[i].
 */
export async function checkBlobRefs(entries: readonly SessionEntry[], lines: readonly number[], store: BlobStore): Promise<Diagnostic[]> {
  const diags: Diagnostic[] = [];
  const known = new Map<string, boolean>();
  for (const r of findBlobRefs(entries)) {
    const line = lines[r.entryIndex] ?? 0;
    const idPart = r.entryId !== undefined ? { entryId: r.entryId } : {};
    if (r.hash === null) {
      diags.push({ line, kind: 'invalid-blob-ref', message: `image reference ${JSON.stringify(r.ref.slice(0, 100))} is not blob:sha256:<64 lowercase hex>; left as is`, ...idPart });
      continue;
    }
    let present = known.get(r.hash);
    if (present === undefined) {
      present = await store.has(r.hash);
      known.set(r.hash, present);
    }
    if (!present) diags.push({ line, kind: 'missing-blob', message: `image blob ${r.hash} is not in the blob store ${store.dir}; reference left in place`, ...idPart });
  }
  return diags;
}
