// Entry bodies read back by byte range (issue 11: bodies stay on disk), with a small bounded
// cache. Every read first proves the file is still the file indexed — same inode, at least as
// long, and either the same size and mtime or (it grew: the agent appended) the same bytes at its
// start and just before the indexed end — and every body must parse to an object carrying the id
// the index holds for it. Anything else throws FileChangedError: the caller re-indexes, and no
// body ever comes from the wrong offsets.
import { open, type FileHandle } from 'node:fs/promises';
import { readFileIdentity, type FileIdentity } from '../../../formats/xcsh/load';
import { withoutReplayData } from '../../../formats/xcsh/replayData';
import type { SessionEntry } from '../../../formats/xcsh/schemas';
import { applyEditsToValue } from '../../../store/recordEdit';
import type { BodyReshape, FileStamp } from './lazyIndex';
import type { PackedStrings } from './columns';

export class FileChangedError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path} changed since it was indexed (${reason}); it must be read again`);
    this.name = 'FileChangedError';
  }
}

export interface BodySource {
  path: string;
  stat: FileStamp;
  bytes: number;
  identity: FileIdentity | null;
  starts: Float64Array;
  lengths: Uint32Array;
  ids: PackedStrings;
  reshape: BodyReshape | null;
}

/** Bodies kept after a read: a window's worth, and never more than this many bytes of text. */
const CACHE_ENTRIES = 1024;
const CACHE_BYTES = 16 << 20;
/** Two ranges this close are read in one go (a window's entries sit next to each other). */
const MERGE_GAP = 64 << 10;
/** One sequential read of a scan (search). */
const SCAN_CHUNK = 1 << 20;

export class BodyReader {
  readonly #cache = new Map<number, { e: SessionEntry; bytes: number }>();
  #cacheBytes = 0;
  /** Bytes read from disk so far (the bench reports what a context's first window cost). */
  bytesRead = 0;

  constructor(private readonly src: BodySource) {}

  /** The entries at these positions (stripped of replay data, as the eager loader holds them). */
  async read(positions: readonly number[]): Promise<SessionEntry[]> {
    const out = new Map<number, SessionEntry>();
    const need: number[] = [];
    for (const p of positions) {
      const hit = this.#cache.get(p);
      if (hit) {
        this.#cache.delete(p);
        this.#cache.set(p, hit);
        out.set(p, hit.e);
      } else if (!out.has(p)) need.push(p);
    }
    if (need.length > 0) {
      need.sort((a, b) => a - b);
      await this.#withFile(async (fh) => {
        const { starts, lengths } = this.src;
        const ends = { at: (p: number): number => starts[p]! + lengths[p]! };
        let k = 0;
        while (k < need.length) {
          let j = k;
          while (j + 1 < need.length && starts[need[j + 1]!]! - ends.at(need[j]!) <= MERGE_GAP) j++;
          const from = starts[need[k]!]!;
          const buf = await readRange(fh, from, ends.at(need[j]!), this.src.path);
          this.bytesRead += buf.length;
          for (let q = k; q <= j; q++) {
            const p = need[q]!;
            const e = this.#parse(buf, starts[p]! - from, ends.at(p) - from, p);
            out.set(p, e);
            this.#remember(p, e, ends.at(p) - starts[p]!);
          }
          k = j + 1;
        }
      });
    }
    return positions.map((p) => out.get(p)!);
  }

  async one(position: number): Promise<SessionEntry> {
    return (await this.read([position]))[0]!;
  }

  /**
   * Streams the bodies of positions [0, n) in file order (a search over every entry): large
   * sequential reads, nothing cached.
   */
  async scan(n: number, visit: (position: number, e: SessionEntry) => void, signal?: AbortSignal): Promise<void> {
    const { starts, lengths } = this.src;
        const ends = { at: (p: number): number => starts[p]! + lengths[p]! };
    await this.#withFile(async (fh) => {
      let i = 0;
      while (i < n) {
        if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
        let j = i;
        while (j + 1 < n && ends.at(j + 1) - starts[i]! <= SCAN_CHUNK) j++;
        const from = starts[i]!;
        const buf = await readRange(fh, from, ends.at(j), this.src.path);
        this.bytesRead += buf.length;
        for (let p = i; p <= j; p++) visit(p, this.#parse(buf, starts[p]! - from, ends.at(p) - from, p));
        i = j + 1;
      }
    });
  }

  #parse(buf: Buffer, s: number, e: number, p: number): SessionEntry {
    return parseIndexedBody(this.src, buf, s, e, p);
  }

  #remember(p: number, e: SessionEntry, bytes: number): void {
    this.#cache.set(p, { e, bytes });
    this.#cacheBytes += bytes;
    while (this.#cache.size > CACHE_ENTRIES || (this.#cacheBytes > CACHE_BYTES && this.#cache.size > 1)) {
      const [k, v] = this.#cache.entries().next().value as [number, { bytes: number }];
      this.#cache.delete(k);
      this.#cacheBytes -= v.bytes;
    }
  }

  #withFile<T>(f: (fh: FileHandle) => Promise<T>): Promise<T> {
    return withIndexedFile(this.src, f);
  }
}

/** Runs `f` on the file, proven the indexed one before and unchanged after (else FileChangedError). */
export async function withIndexedFile<T>(src: BodySource, f: (fh: FileHandle) => Promise<T>): Promise<T> {
  const { path } = src;
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw new FileChangedError(path, `it cannot be opened: ${(e as Error).message}`);
  }
  try {
    const before = await fh.stat();
    await checkIndexedFile(src, before);
    const result = await f(fh);
    const after = await fh.stat();
    if (after.size !== before.size || after.mtimeMs !== before.mtimeMs) await checkIndexedFile(src, after);
    return result;
  } finally {
    await fh.close();
  }
}

/** The body at [s, e) of `buf`, proven the entry the index holds at position p (its id), else FileChangedError. */
export function parseIndexedBody(src: Pick<BodySource, 'path' | 'ids' | 'reshape'>, buf: Buffer, s: number, e: number, p: number): SessionEntry {
  let v: unknown;
  try {
    v = JSON.parse(buf.toString('utf8', s, e));
  } catch {
    throw new FileChangedError(src.path, `the bytes of entry ${p} no longer parse`);
  }
  if (src.reshape !== null && v !== null && typeof v === 'object' && !Array.isArray(v)) v = reshaped(v as Record<string, unknown>, p, src.reshape);
  const id = (v as { id?: unknown } | null)?.id;
  if (v === null || typeof v !== 'object' || Array.isArray(v) || typeof id !== 'string' || !src.ids.equals(p, id)) {
    throw new FileChangedError(src.path, `entry ${p} is no longer at its offsets`);
  }
  return withoutReplayData(v as SessionEntry);
}

/** A body as the loader shows it (load.ts): migrated, its made id, numeric references linked. */
function reshaped(v: Record<string, unknown>, p: number, r: BodyReshape): Record<string, unknown> {
  const edits = r.edits.get(p);
  let out = edits ? applyEditsToValue(v, edits) : v;
  const made = r.madeIds.get(p);
  if (made !== undefined) out = { ...out, id: made };
  const link = r.links.get(p);
  if (link !== undefined) out = { ...out, ...link };
  return out;
}

/** Throws FileChangedError unless a file with this stat is still the file indexed (or it grew by an append). */
export async function checkIndexedFile(src: BodySource, now: { dev: number; ino: number; size: number; mtimeMs: number }): Promise<void> {
  const { path, stat, bytes, identity } = src;
  if (now.dev !== stat.dev || now.ino !== stat.ino) throw new FileChangedError(path, 'it was replaced');
  if (now.size < bytes) throw new FileChangedError(path, 'it shrank');
  if (now.size === stat.size && now.mtimeMs === stat.mtimeMs) return;
  // Grown or touched: readable only if the bytes indexed are still there (an append).
  const id = await readFileIdentity(path, bytes, now).catch(() => null);
  if (!id || !identity || id.head !== identity.head || id.seam !== identity.seam) throw new FileChangedError(path, 'bytes already indexed have changed');
  if (now.size === stat.size) throw new FileChangedError(path, 'it was rewritten in place');
}

export async function readRange(fh: FileHandle, from: number, to: number, path: string): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(to - from);
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await fh.read(buf, got, buf.length - got, from + got);
    if (bytesRead === 0) throw new FileChangedError(path, 'it ended before an indexed entry');
    got += bytesRead;
  }
  return buf;
}
