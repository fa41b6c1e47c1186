// Incremental tail loading for live sessions (Part B §9: the agent keeps the file open with
// O_APPEND and only appends). Re-reading a 100 MB session for every burst of appends costs
// seconds; reading only the new bytes costs what they are worth. planTail decides whether a tail
// read is safe; the session engine reads the tail into its index (engine/xcsh/lazy/lazyIndex.ts),
// the reference whole-file model into its LoadedSession (test/reference/tail.ts).
//
// The one rule: a tail load must leave the LoadedSession deep-equal to a full load of the file
// as it now is. So the tail resumes only where the previous read provably stands at a line
// boundary of the same bytes, and everything else is a full reload:
//   - a different file (inode) or changed bytes at the start or just before the resume point
//     (an atomic or in-place rewrite), a file shorter than what was read;
//   - a session that is not plain writable v3: migration works over the whole file (v1 ids, v1
//     compaction indices), and damaged or too-new files are read-only snapshots anyway;
//   - a last line without `\n` that produced entries and was continued by more than `\n` (the
//     bytes glue onto that line, and the entries it gave may change);
//   - an open end (below) that holds entries.
// What more bytes could still change — the reader's `resume` point: a torn last line, a record
// spread over lines that is not closed yet, a run of blank or unreadable lines reaching the end
// (one diagnostic that more such lines extend) — is simply read again, with what follows it,
// after dropping its diagnostics. It holds no entry, so nothing loaded before moves.
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ReadFrom } from './jsonl';
import { readFileIdentity, type LoadedSession } from './load';
import { CURRENT_SESSION_VERSION } from './entryTypes';

export type TailPlan =
  | { kind: 'unchanged' }
  | { kind: 'full'; reason: string }
  /** Read from `at`; first drop the diagnostics of lines `dropFrom` and after (0: none), which are read again. */
  | { kind: 'tail'; at: ReadFrom; dropFrom: number };

/** Decides how to bring `loaded` up to date with the file whose current stat is `st`. */
export async function planTail(loaded: LoadedSession, st: Stats): Promise<TailPlan> {
  const path = loaded.path;
  if (path === null) return { kind: 'full', reason: 'not loaded from a file' };
  if (loaded.stat && st.size === loaded.stat.size && st.mtimeMs === loaded.stat.mtimeMs) return { kind: 'unchanged' };
  const id = loaded.identity;
  if (!id || loaded.lines === undefined || loaded.resume === undefined) return { kind: 'full', reason: 'no identity of the previous read' };
  if (loaded.header === null || loaded.readOnlyReason !== null) return { kind: 'full', reason: 'damaged or read-only session' };
  if (loaded.originalVersion !== CURRENT_SESSION_VERSION) return { kind: 'full', reason: `version ${loaded.originalVersion} session (migration reads the whole file)` };
  if (st.dev !== id.dev || st.ino !== id.ino) return { kind: 'full', reason: 'the file was replaced' };
  if (st.size < loaded.bytes) return { kind: 'full', reason: 'the file shrank' };
  const now = await readFileIdentity(path, loaded.bytes, st).catch(() => null);
  if (!now || now.head !== id.head || now.seam !== id.seam) return { kind: 'full', reason: 'bytes already read have changed' };

  const resume = loaded.resume;
  if (resume.from === loaded.bytes) return { kind: 'tail', at: resume, dropFrom: 0 };
  // The end is open (see the top): from line `first` on, more bytes may change what was read.
  const first = resume.startLine + 1;
  const lastEntryLine = loaded.entryLines.length > 0 ? loaded.entryLines[loaded.entryLines.length - 1]! : 0;
  if (lastEntryLine < first && first > loaded.headerLine) {
    // It gave no entry (a torn fragment, blank or unreadable lines, a record not closed yet): read it again with what follows.
    return { kind: 'tail', at: resume, dropFrom: first };
  }
  // The unterminated last line gave entries (or is the header): resumable only when the next byte
  // just ends it (which also closes any run of unreadable lines before it), and it was clean (a
  // diagnostic such as a glued-records note would still be right, but keep it simple).
  const last = loaded.lines;
  if (!loaded.endsWithNewline && Math.max(lastEntryLine, loaded.headerLine) === last && st.size > loaded.bytes && !loaded.diagnostics.some((d) => d.line >= last) && (await byteAt(path, loaded.bytes)) === 0x0a) {
    return { kind: 'tail', at: { from: loaded.bytes + 1, startLine: last }, dropFrom: 0 };
  }
  return { kind: 'full', reason: first === last ? 'the unterminated last line was continued' : `the open end from line ${first} holds entries` };
}

async function byteAt(path: string, at: number): Promise<number> {
  const fh = await open(path, 'r');
  try {
    const b = Buffer.alloc(1);
    const { bytesRead } = await fh.read(b, 0, 1, at);
    return bytesRead === 1 ? b[0]! : -1;
  } finally {
    await fh.close();
  }
}
