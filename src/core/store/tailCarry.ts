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
// After the rename, the old inode may still receive bytes: a writer that opened the path just
// before the rename (pi's appendFileSync opens, appends and closes per record) writes there after
// our last look, while its next record already goes to the new file. Those late bytes are
// appended to the new file right after the rename and once the old inode is final (no process
// holds it open: awaitOldInode), but only where that keeps the order (placeLate); otherwise
// rewrite.ts rewrites the new file once more in the right order (issue 22 §4). What stays
// impossible without a lock: a process that keeps the file open and writes later. That is why
// the rewrite refuses while another process holds it open for writing
// (openWriters.ts).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { readRange } from './fileHead';
import type { AtomicWriteResult, FinishedTemp } from './atomicWrite';
import { scanWriters } from './openWriters';
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
  /** Bytes carried over before the rename. */
  carriedBeforeRename: number;
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * After the rename: waits until nothing more can reach the old inode. Nobody can open the old
 * inode any more (its name now points at the new file), so it is final once no process holds it
 * open for writing — on Linux the /proc scan proves that (a writer that opened the path just
 * before the rename and was descheduled before its write is waited for, not missed); elsewhere a
 * quiet moment of AFTER_RENAME_WATCH_MS is all we can observe. Gives up after SETTLE_LIMIT_MS (a
 * program that keeps the orphaned file open) and returns who holds it then; null when final.
 */
export async function awaitOldInode(w: TailWatch): Promise<string | null> {
  const fh = w.original.fh;
  const started = Date.now();
  let size = (await fh.stat()).size;
  let quietSince = Date.now();
  for (;;) {
    await sleep(2);
    const now = (await fh.stat()).size;
    if (now !== size) {
      size = now;
      quietSince = Date.now();
      continue;
    }
    if (Date.now() - quietSince < AFTER_RENAME_WATCH_MS) continue;
    const scan = await scanWriters(w.original.realPath, { dev: w.original.st.dev, ino: w.original.st.ino, uid: -1 });
    const final = (await fh.stat()).size;
    if (final !== size) {
      size = final;
      quietSince = Date.now();
      continue;
    }
    if (scan.writers.length === 0) return null;
    if (Date.now() - started > SETTLE_LIMIT_MS) return [...new Set(scan.writers.map((x) => `pid ${x.pid}${x.command ? ` (${x.command})` : ''}`))].join(', ');
    quietSince = Date.now();
  }
}

const APPEND_NO_CREATE = fs.constants.O_WRONLY | fs.constants.O_APPEND;

export type LatePlacement =
  | { kind: 'none' }
  /** Appended right after our bytes: the new file's bytes [0, end) are ours, in order. */
  | { kind: 'placed'; end: number }
  /** The new file had grown past `end` already: nothing written; the bytes are the caller's to place. */
  | { kind: 'not-appended'; bytes: Buffer }
  /** Another program's append won the race against ours: `bytes` landed at `at`, after some of its bytes. */
  | { kind: 'out-of-order'; bytes: Buffer; at: number };

/**
 * Moves what reached the old inode since `w.copiedTo` onto the new file — only while the new file
 * still ends at `end` (the end of what we put there), and confirmed afterwards by reading the
 * bytes back at that offset: an O_APPEND write lands as one block, entirely before or entirely
 * after another program's append, so bytes found at `end` precede everything appended to the new
 * file. Either way `w.copiedTo` advances: the bytes are in the new file or handed back. Throws
 * when the path no longer names the file we renamed there.
 */
export async function placeLate(w: TailWatch, renamed: AtomicWriteResult, end: number): Promise<LatePlacement> {
  const size = (await w.original.fh.stat()).size;
  if (size <= w.copiedTo) return { kind: 'none' };
  const parts: Buffer[] = [];
  await copyOut(w, w.copiedTo, size, async (b) => void parts.push(Buffer.from(b)));
  const bytes = Buffer.concat(parts);
  w.copiedTo = size;
  const gone = (): Error => new Error(`${w.original.path}: ${bytes.length} bytes appended to the old file during the rewrite could not be carried over: another program replaced the new file meanwhile`);
  const out = await fsp.open(renamed.realPath, APPEND_NO_CREATE);
  try {
    const st = await out.stat();
    if (st.ino !== renamed.ino) throw gone();
    if (st.size !== end) return { kind: 'not-appended', bytes };
    for (let off = 0; off < bytes.length; ) off += (await out.write(bytes, off, bytes.length - off)).bytesWritten;
    await out.sync();
  } finally {
    await out.close().catch(() => undefined);
  }
  const rd = await fsp.open(renamed.realPath, 'r');
  try {
    if ((await rd.stat()).ino !== renamed.ino) throw gone();
    if ((await readRange(rd, end, end + bytes.length)).equals(bytes)) return { kind: 'placed', end: end + bytes.length };
    // records are unique (ids, timestamps): the first copy after our end is ours
    const after = await readRange(rd, end, (await rd.stat()).size);
    const at = after.indexOf(bytes);
    if (at === -1) throw new Error(`${w.original.path}: ${bytes.length} bytes carried over from the old file are not in the new file`);
    return { kind: 'out-of-order', bytes, at: end + at };
  } finally {
    await rd.close();
  }
}
