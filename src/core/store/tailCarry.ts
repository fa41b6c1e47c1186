// No byte appended during a rewrite is lost (issue 15 §1).
//
// A rewrite streams a temp file from the original, then renames it over the original. An agent
// appending in that window (seconds for a large migration) writes into the old inode, which the
// rename orphans. So, immediately before the rename, the original is checked again — through the
// handle we read it with AND by path — and:
//   - it only grew, and the bytes the rewrite was based on are intact (hashes of the first and
//     the last 4 KB before the old end): the new bytes are copied onto the end of the temp,
//     fsynced, and the check repeats until a round sees no change; then the rename follows;
//   - anything else (replaced, truncated, rewritten in place, or it grew where the rewrite
//     added bytes after the old end): refused as `changed`, the temp deleted.
// After the rename, the old inode is watched for a few milliseconds more: a writer that opened
// the file by path before the rename may still land bytes there; they are appended (O_APPEND) to
// the new file. What stays impossible without a lock: a process that keeps the file open and
// writes later. That is why the rewrite refuses while another process holds it open for writing
// (openWriters.ts).
import { createHash } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import { readRange } from './fileHead';
import type { AtomicWriteResult, FinishedTemp } from './fileStorage';
import type { OpenOriginal } from './writeTarget';
import { RewriteRefusedError } from './writeRefusal';

const SPAN = 4096;
const CHUNK = 1 << 20;
/** A file still growing after this long is refused rather than chased forever. */
const SETTLE_LIMIT_MS = 10_000;
/** How long the orphaned inode is watched after the rename. */
const AFTER_RENAME_WATCH_MS = 20;

async function hashAt(fh: fsp.FileHandle, start: number, end: number): Promise<string> {
  return createHash('sha1')
    .update(await readRange(fh, start, end))
    .digest('hex');
}

export interface TailWatch {
  readonly original: OpenOriginal;
  /** The original's bytes [0, copiedTo) are in the new file. */
  copiedTo: number;
  /** The original's mtime when `copiedTo` was last confirmed. */
  mtimeMs: number;
  /** Bytes of the original the rewrite read (its offsets rely on them). */
  readonly basedOn: number;
  readonly head: string;
  readonly seam: string;
  /** False when the rewrite added bytes after the original's end: growth there cannot be carried over. */
  readonly mayCarry: boolean;
  /** Bytes carried over before / after the rename. */
  carriedBeforeRename: number;
  carriedAfterRename: number;
}

/**
 * Starts watching an original whose bytes [0, basedOn) a rewrite is about to read; `mtimeMs`
 * is its mtime as the rewrite's guard saw it.
 */
export async function watchTail(original: OpenOriginal, basedOn: number, mtimeMs: number, mayCarry: boolean): Promise<TailWatch> {
  const fh = original.fh;
  return {
    original,
    copiedTo: basedOn,
    mtimeMs,
    basedOn,
    head: await hashAt(fh, 0, Math.min(SPAN, basedOn)),
    seam: await hashAt(fh, Math.max(0, basedOn - SPAN), basedOn),
    mayCarry,
    carriedBeforeRename: 0,
    carriedAfterRename: 0,
  };
}

function changed(w: TailWatch, detail: string): RewriteRefusedError {
  return new RewriteRefusedError('changed', w.original.path, `${detail} while it was being rewritten; nothing was written (reload it and retry)`);
}

/** Copies the original's bytes [from, to) through `write`. */
async function copyOut(w: TailWatch, from: number, to: number, write: (b: Uint8Array) => Promise<void>): Promise<void> {
  for (let pos = from; pos < to; ) {
    const buf = await readRange(w.original.fh, pos, Math.min(to, pos + CHUNK));
    if (buf.length === 0) throw changed(w, `it shrank below byte ${pos}`);
    await write(buf);
    pos += buf.length;
  }
}

/**
 * The last check before the rename: returns when a round finds the original unchanged since the
 * bytes already in `temp`; carries over what was appended meanwhile; throws `changed` otherwise.
 */
export async function settleBeforeRename(w: TailWatch, temp: FinishedTemp): Promise<void> {
  const started = Date.now();
  for (;;) {
    const held = await w.original.fh.stat();
    const named = await fsp.stat(w.original.realPath).catch(() => null);
    if (!named) throw changed(w, 'it was deleted or renamed');
    if (named.dev !== held.dev || named.ino !== held.ino) throw changed(w, 'another program replaced it');
    if (held.size === w.copiedTo && held.mtimeMs === w.mtimeMs) return;
    if (held.size < w.copiedTo) throw changed(w, `it shrank from ${w.copiedTo} to ${held.size} bytes`);
    // modified: only an append is carried over, and only onto bytes that are still the same
    if ((await hashAt(w.original.fh, 0, Math.min(SPAN, w.basedOn))) !== w.head || (await hashAt(w.original.fh, Math.max(0, w.basedOn - SPAN), w.basedOn)) !== w.seam) {
      throw changed(w, 'bytes it already had were rewritten');
    }
    if (held.size > w.copiedTo) {
      if (!w.mayCarry) throw changed(w, `${held.size - w.copiedTo} bytes were appended to it, after which this rewrite adds entries of its own`);
      if (Date.now() - started > SETTLE_LIMIT_MS) throw changed(w, `it kept growing for ${SETTLE_LIMIT_MS / 1000} s`);
      await copyOut(w, w.copiedTo, held.size, temp.append);
      await temp.sync();
      w.carriedBeforeRename += held.size - w.copiedTo;
      w.copiedTo = held.size;
    }
    w.mtimeMs = held.mtimeMs;
  }
}

/**
 * After the rename: bytes that still reach the old inode (a writer that opened the path just
 * before the rename) are appended to the new file with O_APPEND, until a quiet moment of
 * AFTER_RENAME_WATCH_MS. Returns the number of bytes carried.
 */
export async function carryAfterRename(w: TailWatch, renamed: AtomicWriteResult): Promise<number> {
  let out: fsp.FileHandle | null = null;
  let quietSince = Date.now();
  try {
    for (;;) {
      const held = await w.original.fh.stat();
      if (held.size > w.copiedTo) {
        if (!out) {
          out = await fsp.open(renamed.realPath, 'a');
          if ((await out.stat()).ino !== renamed.ino) {
            throw new Error(
              `${w.original.path}: ${held.size - w.copiedTo} bytes appended to the old file during the rewrite could not be carried over: another program replaced the new file meanwhile`,
            );
          }
        }
        const o = out;
        await copyOut(w, w.copiedTo, held.size, async (b) => {
          for (let off = 0; off < b.length; ) off += (await o.write(b, off, b.length - off)).bytesWritten;
        });
        await out.sync();
        w.carriedAfterRename += held.size - w.copiedTo;
        w.copiedTo = held.size;
        quietSince = Date.now();
      } else if (Date.now() - quietSince >= AFTER_RENAME_WATCH_MS) return w.carriedAfterRename;
      else await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    await out?.close().catch(() => undefined);
  }
}
