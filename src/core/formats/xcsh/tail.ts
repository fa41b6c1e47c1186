// Incremental tail loading for live sessions (Part B §9: the agent keeps the file open with
// O_APPEND and only appends). Re-reading a 100 MB session for every burst of appends costs
// seconds; reading only the new bytes costs what they are worth.
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
import { open, stat as fsStat } from 'node:fs/promises';
import { checkBlobRefs, type BlobStore } from './blobs';
import type { Diagnostic } from '../../diagnostics';
import { readJsonlFile, type ReadFrom } from './jsonl';
import { takeEntries, readFileIdentity, type EntryColumns, type LoadedSession } from './load';
import { CURRENT_SESSION_VERSION } from './entryTypes';
import { stripReplayData } from './replayData';

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

export interface TailOptions {
  /** As in LoadOptions: check blob references of the new entries. */
  blobs?: BlobStore;
}

export interface PreparedTail {
  /** Entries the tail adds. */
  added: number;
  /** Applies the tail to the LoadedSession in place, synchronously (arrays are pushed to). */
  commit(): void;
}

/**
 * Reads the planned tail. Nothing changes until `commit()`, so the caller can update what it
 * derives from the session (the tree index) in the same synchronous step. Positions, offsets and
 * line numbers of what was loaded before never change. Null when a full reload is needed: the
 * file changed under the read, or the tail would change the ids made for entries without one.
 */
export async function readTail(loaded: LoadedSession, plan: Extract<TailPlan, { kind: 'tail' }>, st: Stats, opts: TailOptions = {}): Promise<PreparedTail | null> {
  const path = loaded.path!;
  const tail = await readJsonlFile(path, plan.at);
  const identity = await readFileIdentity(path, tail.bytes, st).catch(() => null);
  if (!identity) return null;

  const diags: Diagnostic[] = tail.diagnostics.slice();
  const cols: EntryColumns & { missingIds: number[] } = takeEntries(tail.columns, 0, diags);
  // Part C §10: a made id must not collide with any id in the file, so an entry without an id, or
  // a new id equal to one made earlier, changes the made ids: a full load decides them.
  if (cols.missingIds.length > 0) return null;
  const made = loaded.syntheticIds;
  // (and an entry naming a numeric id as its parent is linked to a made id: ids.ts)
  if (made) for (const e of cols.entries) if (made.has(e.id) || typeof (e as { parentId?: unknown }).parentId === 'number' || typeof (e as { firstKeptEntryId?: unknown }).firstKeptEntryId === 'number') return null;
  stripReplayData(cols.entries);
  // Same order as a full load: by line, reader notes before loader notes, blob notes last.
  diags.sort((a, b) => a.line - b.line);
  if (opts.blobs && cols.entries.length > 0) {
    const blobDiags = await checkBlobRefs(cols.entries, cols.entryLines, opts.blobs);
    if (blobDiags.length > 0) {
      diags.push(...blobDiags);
      diags.sort((a, b) => a.line - b.line);
    }
  }

  const commit = (): void => {
    for (let i = 0; i < cols.entries.length; i++) {
      loaded.entries.push(cols.entries[i]!);
      loaded.entryLines.push(cols.entryLines[i]!);
      loaded.entryStarts.push(cols.entryStarts[i]!);
      loaded.entryEnds.push(cols.entryEnds[i]!);
    }
    if (plan.dropFrom > 0) {
      const d = loaded.diagnostics;
      let keep = d.length;
      while (keep > 0 && d[keep - 1]!.line >= plan.dropFrom) keep--;
      d.length = keep;
    }
    for (const d of diags) loaded.diagnostics.push(d);

    const readAny = tail.lines > plan.at.startLine;
    if (readAny) {
      loaded.lines = tail.lines;
      loaded.endsWithNewline = tail.endsWithNewline;
    } else if (plan.at.from > loaded.bytes) {
      loaded.endsWithNewline = true; // only the `\n` that ended the last line was new
    }
    loaded.resume = tail.resume;
    loaded.bytes = Math.max(loaded.bytes, tail.bytes);
    loaded.stat = { size: st.size, mtimeMs: st.mtimeMs };
    loaded.identity = identity;
  };
  return { added: cols.entries.length, commit };
}

/** stat, or null when the file is gone. */
export async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await fsStat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
