// Reading a rollout file (codex-format.md B.1): `.jsonl` streamed in chunks, `.jsonl.zst` (told by
// the zstd magic, never by the name) decoded frame by frame; every line through the scanner.
// Nothing is ever written. A refresh of a plain file reads only what was appended after the last
// complete line (`resume`), the way the CLI appends to a live rollout.
import { open, readFile, stat } from 'node:fs/promises';
import { readChunks } from '../../store/readChunks';
import { startsWithZstdMagic } from '../detect';
import { RolloutLineScanner } from './lineScanner';
import { firstSessionMeta } from './sessionMeta';
import type { CodexDiagnostic, CodexRecord, CodexRollout } from './types';
import { decodeZstRollout } from './zstRollout';

const CHUNK = 1 << 20;

function eraOf(records: readonly CodexRecord[]): CodexRollout['era'] {
  if (records.length === 0) return 'empty';
  let envelope = false;
  let bare = false;
  for (const r of records) {
    if (r.era === 'envelope') envelope = true;
    else bare = true;
    if (envelope && bare) return 'mixed';
  }
  return envelope ? 'envelope' : 'bare';
}

/** The diagnostics that depend on the whole file, not on one line. */
function fileDiagnostics(records: readonly CodexRecord[]): CodexDiagnostic[] {
  if (records.length === 0) return [{ line: 0, kind: 'codex-empty', message: 'no record at all: the CLI refuses an all-empty rollout (it writes the session_meta first, once the first turn is flushed)' }];
  const first = records[0]!;
  if (first.type !== 'session_meta') return [{ line: first.line, kind: 'codex-no-meta', message: `the first record is a ${first.type}, not the session_meta: the thread id, cwd and version are unknown` }];
  return [];
}

function assemble(path: string, encoding: CodexRollout['encoding'], size: number, mtimeMs: number, scanner: RolloutLineScanner, extra: CodexDiagnostic[], resume: CodexRollout['resume']): CodexRollout {
  const records = scanner.records;
  const diagnostics = [...scanner.diagnostics, ...extra, ...fileDiagnostics(records)].sort((a, b) => a.line - b.line);
  return { path, encoding, bytes: size, mtimeMs, records, diagnostics, meta: firstSessionMeta(records), era: eraOf(records), resume };
}

/** The rollout held in `bytes` (plain or zstd), e.g. for tests or an in-memory copy. */
export async function readCodexRolloutBytes(bytes: Uint8Array, path = '(memory)', mtimeMs = 0): Promise<CodexRollout> {
  const scanner = new RolloutLineScanner();
  if (startsWithZstdMagic(bytes)) {
    const problems = await decodeZstRollout(bytes, (t) => scanner.push(t), () => scanner.line);
    scanner.finish();
    return assemble(path, 'zstd', bytes.length, mtimeMs, scanner, problems, null);
  }
  scanner.push(bytes);
  scanner.finish();
  return assemble(path, 'jsonl', bytes.length, mtimeMs, scanner, [], null);
}

async function startsWithZstd(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await fh.read(head, 0, 4, 0);
    return startsWithZstdMagic(head.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

/** Reads the file from `start` to its end through the scanner (which copies what it keeps of a line cut by a read). */
async function streamInto(path: string, start: number, scanner: RolloutLineScanner): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await readChunks(fh, start, { first: CHUNK, next: CHUNK }, (chunk, got) => scanner.push(chunk.subarray(0, got)));
  } finally {
    await fh.close();
  }
  scanner.finish();
}

/**
 * Reads a rollout file whole — or, with `window`, a plain one from that line start on (a tail
 * peek: `line` is the number of the line starting at `from`, so records keep their own numbers).
 */
export async function loadCodexRollout(path: string, window?: { from: number; line: number }): Promise<CodexRollout> {
  const st = await stat(path);
  if (await startsWithZstd(path)) {
    const r = await readCodexRolloutBytes(await readFile(path), path, st.mtimeMs);
    return { ...r, bytes: st.size };
  }
  const scanner = window && window.from > 0 ? new RolloutLineScanner({ firstLine: window.line, recordsBefore: true }) : new RolloutLineScanner();
  await streamInto(path, window?.from ?? 0, scanner);
  const tail = scanner.unterminated;
  return assemble(path, 'jsonl', st.size, st.mtimeMs, scanner, [], { offset: tail ? tail.offset : scanner.completeBytes, nextLine: tail ? tail.line : scanner.line, ino: st.ino });
}

/**
 * The records appended to a plain rollout since `prev` was read: null when the file cannot have
 * only grown (another inode, shorter than what was read, now compressed), so it must be read
 * again. A last line read without its newline is read again from its start (it may have grown).
 */
export async function readCodexAppend(prev: CodexRollout): Promise<CodexRollout | null> {
  if (prev.encoding !== 'jsonl' || !prev.resume) return null;
  const st = await stat(prev.path);
  const { offset, nextLine, ino } = prev.resume;
  if (st.ino !== ino || st.size < offset) return null;
  const keptRecords = prev.records.filter((r) => r.line < nextLine);
  const scanner = new RolloutLineScanner({ firstLine: nextLine, recordsBefore: keptRecords.length > 0 });
  await streamInto(prev.path, offset, scanner);
  const tail = scanner.unterminated;
  const records = [...keptRecords, ...scanner.records];
  const lineDiagnostics = prev.diagnostics.filter((d) => d.line > 0 && d.line < nextLine && d.kind !== 'codex-empty' && d.kind !== 'codex-no-meta');
  // A type reported unknown before is reported again only if it first shows up in the new part.
  const seen = new Set(lineDiagnostics.filter((d) => d.kind === 'codex-unknown-type').map((d) => d.message));
  const fresh = scanner.diagnostics.filter((d) => d.kind !== 'codex-unknown-type' || !seen.has(d.message));
  const diagnostics = [...lineDiagnostics, ...fresh, ...fileDiagnostics(records)].sort((a, b) => a.line - b.line);
  return {
    path: prev.path,
    encoding: 'jsonl',
    bytes: st.size,
    mtimeMs: st.mtimeMs,
    records,
    diagnostics,
    meta: firstSessionMeta(records),
    era: eraOf(records),
    resume: { offset: offset + (tail ? tail.offset : scanner.completeBytes), nextLine: tail ? tail.line : scanner.line, ino: st.ino },
  };
}
