// Content-addressed blob store for externalised images (Part A "Size control and blob
// externalisation", Part B §8). A blob's name is the SHA-256 of its decoded bytes.
//
// Security: a reference is turned into a path only when its hash is exactly 64 lowercase hex
// characters. Anything else (`blob:sha256:../../etc/passwd`, upper case, short) is reported as
// an invalid reference and never touches the file system.
//
// What a store entry must be before its bytes are used: a regular file directly inside the store
// (a symbolic link could point anywhere, `/etc/passwd` included, so entries are never followed;
// the store folder itself may be a link, a store on another disk is normal), no larger than the
// cap (a FIFO, `/dev/zero` or a 600 MB file must not hang or exhaust the reader), whose SHA-256 is
// its name (anything else is a corrupted or planted file). Each failure is a typed answer for that
// one blob, never an exception: one bad blob costs one image.
import { createHash, randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { lstat, mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import type { Diagnostic } from '../../diagnostics';
import { english, type Translate } from '../../l10n';
import type { SessionEntry } from './schemas';
import { PRIVATE_FILE_MODE } from '../../store/privateDir';
import { openProblemOf, readHashedFile } from '../../store/hashedFile';

export const BLOB_PREFIX = 'blob:sha256:';
const HASH_RE = /^[0-9a-f]{64}$/;

/**
 * The largest blob read by default. Blobs are images a model was sent, and providers cap those
 * well below this (about 5–20 MB per image), so anything bigger is not a real blob; a read this
 * size still becomes a ~67 MB base64 string and a data URL in the webview, which is where the
 * limit has to sit to keep one blob from exhausting memory.
 */
export const DEFAULT_MAX_BLOB_BYTES = 50 * 1024 * 1024;

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

/** Why a blob's bytes were not used. */
export type BlobProblem =
  | { reason: 'missing' }
  | { reason: 'symlink' }
  | { reason: 'not-regular'; fileType: string }
  | { reason: 'too-large'; size: number; maxBytes: number }
  | { reason: 'hash-mismatch'; actual: string }
  | { reason: 'unreadable'; code: string };

export type BlobRead = { ok: true; bytes: Buffer } | { ok: false; problem: BlobProblem };

/** Words for a problem, to follow "image blob <hash> …". */
export function describeBlobProblem(p: BlobProblem, l10nT: Translate = english): string {
  switch (p.reason) {
    case 'missing':
      return l10nT('is not in the blob store');
    case 'symlink':
      return l10nT('is a symbolic link (only regular files inside the blob store are read)');
    case 'not-regular':
      return l10nT('is a {0}, not a regular file', p.fileType);
    case 'too-large':
      return l10nT('is {0} bytes, over the {1}-byte limit for a blob', p.size, p.maxBytes);
    case 'hash-mismatch':
      return l10nT('does not match its content (whose SHA-256 is {0}): corrupted or replaced', p.actual);
    case 'unreadable':
      return l10nT('cannot be read ({0})', p.code);
  }
}

function fileTypeOf(st: Stats): string {
  if (st.isDirectory()) return 'folder';
  if (st.isFIFO()) return 'FIFO';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  return 'special file';
}

/** The problem an entry's own metadata shows (not followed), or null when it may be read. */
function problemOfStats(st: Stats, maxBytes: number): BlobProblem | null {
  if (st.isSymbolicLink()) return { reason: 'symlink' };
  if (!st.isFile()) return { reason: 'not-regular', fileType: fileTypeOf(st) };
  if (st.size > maxBytes) return { reason: 'too-large', size: st.size, maxBytes };
  return null;
}

export interface BlobStoreOptions {
  /** The largest blob read (default DEFAULT_MAX_BLOB_BYTES); a larger one is `too-large`. */
  maxBytes?: number;
  /**
   * checkBlobRefs reads and hashes every blob instead of looking at its metadata only. Costs a
   * read of each blob; worth it where the blobs are checked on purpose (the CLI's --blobs).
   */
  verifyOnCheck?: boolean;
}

export class BlobStore {
  readonly dir: string;
  readonly maxBytes: number;
  readonly verifyOnCheck: boolean;

  constructor(dir: string = defaultBlobDir(), opts: BlobStoreOptions = {}) {
    this.dir = dir;
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BLOB_BYTES;
    this.verifyOnCheck = opts.verifyOnCheck === true;
  }

  private pathOf(hash: string): string {
    if (!HASH_RE.test(hash)) throw new Error(`invalid blob hash: ${JSON.stringify(hash).slice(0, 80)}`);
    return join(this.dir, hash);
  }

  /**
   * Stores bytes under their SHA-256; returns the hash. A valid blob already there is not
   * rewritten; anything else under that name (a link, a corrupted file) is replaced.
   */
  async put(bytes: Uint8Array): Promise<string> {
    const hash = sha256Hex(bytes);
    const p = this.pathOf(hash);
    if ((await this.readWithin(hash, Math.max(this.maxBytes, bytes.length))).ok) return hash;
    await mkdir(this.dir, { recursive: true });
    // temp + rename so a reader never sees a half-written blob under its final name. The temp
    // file is created exclusively ('wx': O_CREAT|O_EXCL fails on any existing name, a link
    // included), so nothing planted is written through; rename replaces a link at the final
    // name with the file, never writing to where the link points.
    const tmp = `${p}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, bytes, { flag: 'wx', mode: PRIVATE_FILE_MODE });
      await rename(tmp, p);
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw e;
    }
    return hash;
  }

  /** A blob's bytes, checked (see the file comment), or why not. Never throws. */
  read(hash: string): Promise<BlobRead> {
    return this.readWithin(hash, this.maxBytes);
  }

  private async readWithin(hash: string, maxBytes: number): Promise<BlobRead> {
    // a name that is not a hash is no blob; it never reaches the file system
    if (!HASH_RE.test(hash)) return { ok: false, problem: { reason: 'missing' } };
    return readHashedFile(this.pathOf(hash), hash, (st) => problemOfStats(st, maxBytes));
  }

  /** The bytes of a valid blob; null for any problem (see read() for which). */
  async get(hash: string): Promise<Buffer | null> {
    const r = await this.read(hash);
    return r.ok ? r.bytes : null;
  }

  /** A regular file under that name (a symbolic link is not a blob). Content is not checked. */
  async has(hash: string): Promise<boolean> {
    if (!HASH_RE.test(hash)) return false;
    try {
      return (await lstat(this.pathOf(hash))).isFile();
    } catch {
      return false;
    }
  }

  /**
   * What checkBlobRefs reports for a blob: its metadata only (missing, link, not a regular file,
   * too large), or with `verifyOnCheck` a full read (so a content mismatch too). Null: fine.
   */
  async check(hash: string): Promise<BlobProblem | null> {
    if (this.verifyOnCheck) {
      const r = await this.read(hash);
      return r.ok ? null : r.problem;
    }
    return this.problemOf(hash, this.maxBytes);
  }

  private async problemOf(hash: string, maxBytes: number): Promise<BlobProblem | null> {
    if (!HASH_RE.test(hash)) return { reason: 'missing' };
    try {
      return problemOfStats(await lstat(this.pathOf(hash)), maxBytes);
    } catch (e) {
      return openProblemOf(e);
    }
  }
}

export type ResolvedImage =
  | { kind: 'inline'; base64: string }
  | { kind: 'blob'; base64: string; hash: string }
  | { kind: 'missing'; hash: string }
  /** In the store but not usable (a link, a folder, too large, wrong content, unreadable). */
  | { kind: 'bad'; hash: string; problem: BlobProblem }
  | { kind: 'invalid'; ref: string };

/** Resolves one image block's `data` for display (lazily: the UI asks when it shows the image). */
export async function resolveImageData(data: string, store: BlobStore): Promise<ResolvedImage> {
  if (!isBlobRef(data)) return { kind: 'inline', base64: data };
  const hash = parseBlobRef(data);
  if (!hash) return { kind: 'invalid', ref: data };
  const r = await store.read(hash);
  if (r.ok) return { kind: 'blob', base64: r.bytes.toString('base64'), hash };
  return r.problem.reason === 'missing' ? { kind: 'missing', hash } : { kind: 'bad', hash, problem: r.problem };
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
 * Every blob reference the agent resolves on load (Part B §19, issue 22 §25): the `data` of an
 * image block and an `image_url` (a string, or an object's `url`), wherever it stands in an entry
 * — message and custom-message content, tool results, a user message's `providerPayload`, a
 * remote compaction's `replacementHistory`, any nested field. In document order.
 */
export function findBlobRefs(entries: readonly SessionEntry[]): BlobRefLocation[] {
  const out: BlobRefLocation[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as Record<string, unknown>;
    const found = (ref: string): void => {
      out.push({ entryIndex: i, ...(typeof e.id === 'string' ? { entryId: e.id } : {}), ref, hash: parseBlobRef(ref) });
    };
    for (const k in e) if (k !== 'id' && k !== 'parentId') walkForRefs(e[k], found);
  }
  return out;
}

/** Calls `found` with each blob reference in an image block's `data` or an `image_url` inside `v`. */
function walkForRefs(v: unknown, found: (ref: string) => void): void {
  if (v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const x of v) walkForRefs(x, found);
    return;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'string') {
      if ((k === 'image_url' || (k === 'data' && o.type === 'image')) && isBlobRef(x)) found(x);
    } else if (k === 'image_url' && x !== null && typeof x === 'object' && !Array.isArray(x) && isBlobRef((x as Record<string, unknown>).url)) {
      found((x as Record<string, unknown>).url as string);
    } else walkForRefs(x, found);
  }
}

/**
 * `missing-blob` / `bad-blob` / `invalid-blob-ref` diagnostics for a loaded session (Part B §8: a
 * missing blob leaves the reference in place with a warning; so does an unusable one). Each
 * distinct hash is checked once (see BlobStore.check). `lines[i]` is the line of entries[i].
 */
export async function checkBlobRefs(entries: readonly SessionEntry[], lines: readonly number[], store: BlobStore): Promise<Diagnostic[]> {
  const diags: Diagnostic[] = [];
  const known = new Map<string, BlobProblem | null>();
  for (const r of findBlobRefs(entries)) {
    const line = lines[r.entryIndex] ?? 0;
    const idPart = r.entryId !== undefined ? { entryId: r.entryId } : {};
    if (r.hash === null) {
      diags.push({ line, kind: 'invalid-blob-ref', message: `image reference ${JSON.stringify(r.ref.slice(0, 100))} is not blob:sha256:<64 lowercase hex>; left as is`, ...idPart });
      continue;
    }
    let problem = known.get(r.hash);
    if (problem === undefined) {
      problem = await store.check(r.hash);
      known.set(r.hash, problem);
    }
    if (problem === null) continue;
    if (problem.reason === 'missing') diags.push({ line, kind: 'missing-blob', message: `image blob ${r.hash} is not in the blob store ${store.dir}; reference left in place`, ...idPart });
    else diags.push({ line, kind: 'bad-blob', message: `image blob ${r.hash} in the blob store ${store.dir} ${describeBlobProblem(problem)}; not used, reference left in place`, ...idPart });
  }
  return diags;
}
