// Reading a whole dsh log file, by content (dsh-format.md §3 "Raw vs zstd detection": a zstd
// file starts with 28 B5 2F FD, a raw one with `{`), and turning what the encoding reader found
// into the log a viewer shows: legacy shapes upgraded, the state stated, closers in memory.
// Nothing here writes, and a file that grows while it is read is re-read (the reference
// reader's before/after stat rule), at most a few times.
import { open, type FileHandle } from 'node:fs/promises';
import { startsWithZstdMagic } from '../detect';
import { LIVE_WINDOW_MS } from '../../store/liveWindow';
import { interruptedTurnClosers } from './closers';
import type { ParsedDshLog } from './logText';
import { readRawLog, readRawLogFile } from './rawLog';
import { readZstdLog } from './zstdLog';
import { readZstdFrame } from './zstdFrames';
import type { DshDiagnostic, DshEncoding, DshLog, DshLogState } from './types';

export interface DshReadOptions {
  /** The source's modification time (ms): with `now`, tells an open turn that may be live. */
  mtimeMs?: number;
  /** Defaults to Date.now(). */
  now?: number;
  /**
   * A log ending in an open turn whose source changed within this window may still be written
   * (state `open`, no closers); older, it was interrupted (closers applied). Default 5000 ms.
   */
  liveWindowMs?: number;
}

/** Builds the log a viewer shows from what an encoding reader parsed. */
export function assembleDshLog(parsed: ParsedDshLog, encoding: DshEncoding, bytes: number, opts: DshReadOptions = {}): DshLog {
  const { header, scan } = parsed;
  // The legacy pass ran as the events were read (logBuilder.ts); its findings come after the scan's.
  const diagnostics: DshDiagnostic[] = [...parsed.diagnostics, ...scan.diagnostics, ...scan.legacyDiagnostics];
  const events = scan.events;
  const corrupt = parsed.corrupt || scan.corrupt || header === null;
  const ends = scan.openTurn;
  let state: DshLogState;
  let closers: DshLog['closers'] = [];
  if (corrupt) {
    // dsh refuses a corrupt log outright: there is no repair it would write, so none is shown.
    state = 'corrupt';
  } else if (ends.openTurn !== null && opts.mtimeMs !== undefined && (opts.now ?? Date.now()) - opts.mtimeMs < (opts.liveWindowMs ?? LIVE_WINDOW_MS)) {
    // A session that is still live is never repaired (§4): its turn is simply not over yet.
    state = 'open';
  } else if (ends.openTurn !== null) {
    closers = interruptedTurnClosers(events, ends);
    state = scan.torn ? 'torn' : 'interrupted';
    diagnostics.push({
      line: 0,
      seq: events.length,
      kind: 'dsh-interrupted',
      message: `turn ${ends.openTurn} was never closed: ${closers.length} synthetic closer(s) (seq ${events.length}–${events.length + closers.length - 1}) applied in memory as dsh's inspect() does; never written`,
    });
  } else {
    state = scan.torn ? 'torn' : 'complete';
  }
  return {
    encoding,
    header,
    events,
    closers,
    state,
    openTurn: ends.openTurn,
    diagnostics,
    bytes,
    ...(opts.mtimeMs !== undefined ? { mtimeMs: opts.mtimeMs } : {}),
  };
}

/**
 * Reads a dsh log from its bytes (raw or zstd, decided by content). The log keeps `bytes` (the
 * events it does not keep parsed are read again from them): do not modify them afterwards.
 */
export async function readDshLog(bytes: Uint8Array, opts: DshReadOptions = {}): Promise<DshLog> {
  const zstd = startsWithZstdMagic(bytes);
  const parsed = zstd ? await readZstdLog(bytes) : readRawLog(bytes);
  return assembleDshLog(parsed, zstd ? 'zstd' : 'raw', bytes.length, opts);
}

const STABLE_READ_TRIES = 4;

/**
 * Reads a file whole, opened read-only, retrying while its size or mtime changes under the read
 * (a live writer appending); the last read is used when it never settles (it is still a prefix).
 */
export async function readStableFile(path: string): Promise<{ bytes: Buffer; mtimeMs: number }> {
  let last: { bytes: Buffer; mtimeMs: number } | null = null;
  for (let i = 0; i < STABLE_READ_TRIES; i++) {
    const fh = await open(path, 'r');
    try {
      const before = await fh.stat({ bigint: true });
      const bytes = await fh.readFile();
      const after = await fh.stat({ bigint: true });
      last = { bytes, mtimeMs: Number(after.mtimeMs) };
      if (before.size === after.size && before.mtimeNs === after.mtimeNs && BigInt(bytes.length) === after.size) return last;
    } finally {
      await fh.close();
    }
  }
  return last!;
}

/**
 * Reads a dsh session file (`session.jsonl` or `session.jsonl.zstd`, or any name). A raw log is
 * read in chunks (readRawLogFile): junk (a NUL-filled region, a line that cannot be JSON) is
 * scanned, never held, so memory follows the log's records, not the file's size. It is re-read
 * while its size or mtime changes under the read, like readStableFile.
 */
export async function loadDshFile(path: string, opts: Omit<DshReadOptions, 'mtimeMs'> = {}): Promise<DshLog> {
  for (let i = 0; i < STABLE_READ_TRIES; i++) {
    const fh = await open(path, 'r');
    try {
      const before = await fh.stat({ bigint: true });
      const head = Buffer.alloc(4);
      const { bytesRead } = await fh.read(head, 0, 4, 0);
      const size = Number(before.size);
      const zstd = startsWithZstdMagic(head.subarray(0, bytesRead));
      const parsed = zstd ? await readZstdLog(await readZstdPrefix(fh, size)) : await readRawLogFile(fh, size);
      const after = await fh.stat({ bigint: true });
      if ((before.size === after.size && before.mtimeNs === after.mtimeNs) || i === STABLE_READ_TRIES - 1) {
        return assembleDshLog(parsed, zstd ? 'zstd' : 'raw', size, { ...opts, mtimeMs: Number(after.mtimeMs) });
      }
    } finally {
      await fh.close();
    }
  }
  throw new Error('unreachable: the last try always returns');
}

const ZSTD_READ_CHUNK = 1024 * 1024;

/**
 * The bytes of a zstd log up to where its frame structure ends: its frames are walked as the file
 * is read, and reading stops at the first byte that is no valid frame (nothing after it is walked
 * anyway: zstdLog.ts), so junk after the frames (a zeroed tail) costs one read, not its size.
 * A frame running past MAX_FRAME_BYTES is invalid (zstdFrames.ts), which bounds a torn one.
 */
async function readZstdPrefix(fh: FileHandle, size: number): Promise<Buffer> {
  let buf = Buffer.allocUnsafe(Math.min(size, ZSTD_READ_CHUNK));
  let len = 0;
  let next = 0;
  walk: while (len < size) {
    const want = Math.min(ZSTD_READ_CHUNK, size - len);
    if (len + want > buf.length) {
      const bigger = Buffer.allocUnsafe(Math.min(size, Math.max(buf.length * 2, len + want)));
      buf.copy(bigger, 0, 0, len);
      buf = bigger;
    }
    const { bytesRead } = await fh.read(buf, len, want, len);
    if (bytesRead === 0) break;
    len += bytesRead;
    for (;;) {
      const step = readZstdFrame(buf.subarray(0, len), next);
      if (step.frame) {
        next = step.frame.end;
        if (next >= len) break;
        continue;
      }
      if (step.invalid) break walk;
      break; // torn: read on
    }
  }
  // Keep only what was read (a grown buffer may be up to twice that).
  return len * 2 < buf.length ? Buffer.from(buf.subarray(0, len)) : buf.subarray(0, len);
}
