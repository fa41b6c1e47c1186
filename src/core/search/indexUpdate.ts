// Bringing the index up to date with the session files under the roots, file by file:
//  - unchanged (same size and mtime): nothing is read;
//  - grown by appending (same inode, the bytes read before unchanged — the same identity check
//    as the editor's live tail, src/core/formats/xcsh/tail.ts): only the new bytes are read;
//  - renamed (a vanished path whose inode, size and mtime reappear under a new path): the path
//    is updated, nothing is read;
//  - anything else (rewritten, migrated, damaged; any change to a dsh log, a Codex rollout or a
//    Claude Code transcript, whose readers have no appended-tail state): its rows are dropped and
//    it is read again;
//  - gone: its rows are dropped.
// Reading uses the project's own reader (indexRead.ts), so an indexed entry id is the id the
// editor shows.
import { readdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { throwIfCancelled } from '../engine/rpc';
import { isSessionFileName } from '../discovery/roots';
import { readJsonlFile } from '../formats/xcsh/jsonl';
import { readFileIdentity, takeEntries } from '../formats/xcsh/load';
import type { Sqlite3 } from '../store/sqliteWasm';
import type { ViewEntry } from '../tree/treeView';
import type { SessionFormat } from '../formats/detect';
import { AGENT_TOKEN, filterToken } from './searchText';
import { DEFAULT_MERGE_POLICY, ROWS_PER_FILE, selectRows, setMergePolicy, type Db } from './indexDb';
import { RowWriter } from './rowWriter';
import { entryIndexRows, readWholeFile, type IndexRow, type WholeFileRows } from './indexRead';
import { ReadAhead } from './indexReadAhead';

export interface UpdateProgress {
  /** Files looked at so far, of `total`. */
  done: number;
  total: number;
  /** Files read (fully or their tail) so far. */
  read: number;
  /**
   * Files (of `done`) whose rows are committed: a query between two batches of a long update
   * already finds them (the first build goes newest first, so the newest sessions come first).
   */
  committed: number;
}

export interface UpdateStats {
  files: number;
  unchanged: number;
  appended: number;
  reindexed: number;
  added: number;
  renamed: number;
  removed: number;
  /** Entry rows written. */
  rows: number;
  ms: number;
}

/** What the identity pass compares with a file's stat (the first seven columns of `files`). */
interface KnownFile {
  id: number;
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtime: number;
  bytes: number;
}

/**
 * Every indexed file's identity (or these paths'). Only these columns: `SELECT *` brought each
 * file's head and seam (up to 8 KB of text) across the WASM boundary as an object per row — on a
 * CLI search with nothing changed, 10–30 ms of a 300-session corpus, ten times that at 3,000.
 */
function knownFiles(db: Db, paths?: Iterable<string>): Map<string, KnownFile> {
  const sql = 'SELECT id, path, dev, ino, size, mtime, bytes FROM files';
  const columns = ['id', 'path', 'dev', 'ino', 'size', 'mtime', 'bytes'] as const;
  const out = new Map<string, KnownFile>();
  const add = (rows: KnownFile[]): void => rows.forEach((r) => out.set(r.path, r));
  if (!paths) add(selectRows<KnownFile>(db, sql, [], columns));
  else for (const p of paths) add(selectRows<KnownFile>(db, `${sql} WHERE path = ?`, [p], columns));
  return out;
}

/** The whole row of a file whose identity changed (what reading its tail needs). */
function fileRow(db: Db, id: number): FileRow | null {
  const q = db.prepare('SELECT * FROM files WHERE id = ?');
  try {
    q.bind(1, id);
    return q.step() ? (q.get({}) as unknown as FileRow) : null;
  } finally {
    q.finalize();
  }
}

interface FileRow extends KnownFile {
  resume_from: number;
  resume_line: number;
  head: string;
  seam: string;
  tail_ok: number;
  next_seq: number;
}

/**
 * Every session file under the roots: `.jsonl` (xcsh, pi, raw dsh, Claude Code, Codex), `.jsonl.zstd` (dsh's
 * default) and `.jsonl.zst` (a compressed Codex rollout), subagent folders included; symlinks are not followed. dsh SQLite stores are not.
 */
export function sessionFilesUnder(roots: readonly string[]): Map<string, Stats> {
  // Synchronous on purpose: it runs in the index's worker thread or the CLI, never on the extension
  // host's thread, and each asynchronous readdir/stat was a round trip through libuv's pool (300
  // sessions: 16–26 ms that way, 2–3 ms this way — a CLI search pays it on every query).
  const out = new Map<string, Stats>();
  const stack = [...roots];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let ents;
    try {
      ents = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const d of ents) {
      const p = join(dir, d.name);
      if (d.isDirectory()) stack.push(p);
      else if (d.isFile() && isSessionFileName(d.name)) {
        let st: Stats | undefined;
        try {
          st = statSync(p, { throwIfNoEntry: false });
        } catch {
          st = undefined;
        }
        if (st?.isFile()) out.set(p, st);
      }
    }
  }
  return out;
}

/** Drops the rows of file `id` (its entries and their postings). */
export function dropFileRows(db: Db, id: number): void {
  const lo = id * ROWS_PER_FILE;
  const ids = db.selectValues('SELECT id FROM entries WHERE id >= ? AND id < ?', [lo, lo + ROWS_PER_FILE]) as number[];
  const del = db.prepare('DELETE FROM fts WHERE rowid = ?');
  try {
    for (const rowid of ids) {
      del.bind(1, rowid);
      del.stepReset();
    }
  } finally {
    del.finalize();
  }
  db.exec({ sql: 'DELETE FROM entries WHERE id >= ? AND id < ?', bind: [lo, lo + ROWS_PER_FILE] });
}

/** Writes `rows` under file `fileId` from sequence `firstSeq` on, each with the file's agent token; the next free sequence. */
function writeRows(w: RowWriter, fileId: number, firstSeq: number, rows: readonly IndexRow[], agent: SessionFormat): number {
  let seq = firstSeq;
  const agentToken = filterToken(AGENT_TOKEN, agent);
  for (const r of rows) {
    if (seq >= ROWS_PER_FILE) break;
    w.add(fileId * ROWS_PER_FILE + seq, r.body, r.meta === '' ? agentToken : `${r.meta} ${agentToken}`, r.eid, r.ts, r.off, r.len);
    seq++;
  }
  return seq;
}

/** Writes a whole file's rows under `fileId` (sequence 0 is the title row) and its `files` columns. */
function writeWhole(db: Db, w: RowWriter, fileId: number, st: Stats, f: WholeFileRows): void {
  if (f.title) writeRows(w, fileId, 0, [f.title], f.agent);
  const next = writeRows(w, fileId, 1, f.rows, f.agent);
  db.exec({
    sql: `UPDATE files SET dev=?, ino=?, size=?, mtime=?, bytes=?, resume_from=?, resume_line=?, head=?, seam=?, tail_ok=?, next_seq=?, cwd=?, title=?, created=?, rows=?, agent=? WHERE id=?`,
    bind: [st.dev, st.ino, st.size, st.mtimeMs, f.bytes, f.resumeFrom, f.resumeLine, f.head, f.seam, f.tailOk ? 1 : 0, next, f.cwd, f.titleText, f.created, next, f.agent, fileId],
  });
}

/** Reads only the bytes appended since the last read; false when a full read is needed instead. */
async function indexTail(db: Db, w: RowWriter, row: FileRow, st: Stats): Promise<boolean> {
  if (!row.tail_ok || st.dev !== row.dev || st.ino !== row.ino || st.size < row.bytes) return false;
  const before = await readFileIdentity(row.path, row.bytes, st).catch(() => null);
  if (!before || before.head !== row.head || before.seam !== row.seam) return false;
  const tail = await readJsonlFile(row.path, { from: row.resume_from, startLine: row.resume_line });
  const cols = takeEntries(tail.columns, 0, []);
  // An entry without an id would get a made-up id that depends on the whole file.
  if (cols.missingIds.length > 0) return false;
  const after = await readFileIdentity(row.path, tail.bytes, st).catch(() => null);
  if (!after) return false;
  const lastEntryLine = cols.entryLines.length > 0 ? cols.entryLines[cols.entryLines.length - 1]! : 0;
  const resume = tail.resume;
  const tailOk = resume.from === tail.bytes || lastEntryLine < resume.startLine + 1;
  // (Only an xcsh session's tail is read alone: every other reader sets tail_ok false.)
  const next = writeRows(w, row.id, row.next_seq, entryIndexRows(cols.entries as unknown as ViewEntry[], cols.entryStarts, cols.entryEnds, ROWS_PER_FILE), 'xcsh');
  db.exec({
    sql: 'UPDATE files SET size=?, mtime=?, bytes=?, resume_from=?, resume_line=?, head=?, seam=?, tail_ok=?, next_seq=?, rows=? WHERE id=?',
    bind: [st.size, st.mtimeMs, Math.max(row.bytes, tail.bytes), resume.from, resume.startLine, after.head, after.seam, tailOk ? 1 : 0, next, next, row.id],
  });
  return true;
}

/**
 * The first file's id. Ids count down from here (a newer session has a lower id, so "newest first"
 * is FTS5's cheap ascending rowid order) and are not reused while their row exists; rowids
 * (id × 2^24 + row, ids below 2^29) stay below 2^53, so JavaScript numbers hold them exactly.
 */
export const FIRST_FILE_ID = 2 ** 28;

/**
 * Ids for the files not in the index yet (`fresh`, oldest first), keeping newer = lower: below
 * every id in use, the oldest highest; or — files older than every indexed one, what a first build
 * that was stopped had not reached yet (it goes newest first) — above every id in use.
 */
function freshIds(db: Db, fresh: readonly [string, Stats][], known: ReadonlyMap<string, KnownFile>): Map<string, number> {
  const ids = new Map<string, number>();
  if (fresh.length === 0) return ids;
  let oldestKnown = Infinity;
  for (const r of known.values()) oldestKnown = Math.min(oldestKnown, r.mtime);
  const k = fresh.length;
  if (known.size > 0 && fresh.every(([, st]) => st.mtimeMs <= oldestKnown)) {
    const max = Number(db.selectValue('SELECT max(id) FROM files'));
    fresh.forEach(([p], i) => ids.set(p, max + k - i));
  } else {
    const min = Number(db.selectValue(`SELECT coalesce(min(id), ${FIRST_FILE_ID + 1}) FROM files`));
    fresh.forEach(([p], i) => ids.set(p, min - 1 - i));
  }
  return ids;
}

/** FTS5's pending postings during a bulk update (its default is 1 MB). */
const BULK_HASH_BYTES = 64 * 1024 * 1024;

/** Merge the index into one segment after an update that wrote this many rows. */
const OPTIMIZE_ROWS = 20_000;

/**
 * Commits after this many bytes read: progress survives a cancel, a journal stays small, and
 * queries waiting for a long update are answered between two batches (searchIndex.ts).
 */
const BATCH_BYTES = 64 * 1024 * 1024;

/**
 * Unchanged: the same file (device and inode) with the same size and mtime. A session replaced by
 * another file of the same size and mtime (a copy with its times kept, `mv` over it) is a new inode:
 * read again.
 */
function sameFile(row: { dev: number; ino: number; size: number; mtime: number }, st: { dev: number; ino: number; size: number; mtimeMs: number }): boolean {
  return row.size === st.size && row.mtime === st.mtimeMs && row.ino === st.ino && row.dev === st.dev;
}

/**
 * Brings the index up to date for `files` (path → current stat; paths indexed before and
 * missing from it are dropped when `complete` says the map is every file under the roots).
 * Cancellable between files: what was committed stays, the rest is picked up next time.
 */
export async function updateIndex(
  { db, sqlite3 }: { db: Db; sqlite3: Sqlite3 },
  files: Map<string, Stats>,
  opts: {
    complete: boolean;
    signal?: AbortSignal;
    onProgress?: (p: UpdateProgress) => void;
    /** The read-ahead worker's bundle (indexReadAhead.ts); none: every file is read in this thread. */
    readWorkerFile?: string | null;
    /** Bytes of new files from which the read-ahead worker is used (a worker's start is not worth it for a few). */
    readAheadFrom?: number;
    /** Commit after this many bytes read (default BATCH_BYTES; tests make batches small). */
    batchBytes?: number;
    /**
     * Awaited after each commit inside the update, outside any transaction: where queries that
     * came in meanwhile run (they see every committed file).
     */
    betweenBatches?: () => Promise<void>;
  },
): Promise<UpdateStats> {
  const t0 = performance.now();
  const stats: UpdateStats = { files: files.size, unchanged: 0, appended: 0, reindexed: 0, added: 0, renamed: 0, removed: 0, rows: 0, ms: 0 };
  // Every indexed file for a complete update; for the few files a watcher named, only those (a
  // full table is thousands of rows).
  const known = knownFiles(db, opts.complete ? undefined : files.keys());

  // Renames: a row whose path is gone, whose inode now sits under a new path with the same size and mtime.
  if (opts.complete) {
    const vanished = new Map<string, KnownFile>();
    for (const [p, r] of known) if (!files.has(p)) vanished.set(`${r.dev}:${r.ino}:${r.size}:${r.mtime}`, r);
    if (vanished.size > 0) {
      for (const [p, st] of files) {
        if (known.has(p)) continue;
        const r = vanished.get(`${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`);
        if (!r) continue;
        db.exec({ sql: 'UPDATE files SET path=? WHERE id=?', bind: [p, r.id] });
        vanished.delete(`${r.dev}:${r.ino}:${r.size}:${r.mtime}`);
        known.delete(r.path);
        known.set(p, { ...r, path: p });
        stats.renamed++;
      }
    }
    const gone = [...known.values()].filter((r) => !files.has(r.path));
    if (gone.length > 0) {
      db.exec('BEGIN');
      for (const r of gone) {
        dropFileRows(db, r.id);
        db.exec({ sql: 'DELETE FROM files WHERE id=?', bind: [r.id] });
        known.delete(r.path);
        stats.removed++;
      }
      db.exec('COMMIT');
    }
  }

  // A bulk update (the first build, or many sessions changed) lets FTS5 hold up to BULK_HASH_BYTES
  // of postings in memory and merges nothing until the end: by default it flushes a segment every
  // 1 MB and keeps merging them as it goes, so the postings of a 2.5 GB corpus were rewritten
  // several times before the final 'optimize' rewrote them once more.
  let toRead = 0;
  for (const [p, st] of files) {
    const row = known.get(p);
    if (!row || !sameFile(row, st)) toRead += st.size - (row && st.size >= row.bytes ? row.bytes : 0);
  }
  const bulk = toRead >= BATCH_BYTES;
  if (bulk) setMergePolicy(db, { hashBytes: BULK_HASH_BYTES, automerge: 0 });

  // Newest first: file ids count down with age (freshIds), so the rows go in with ascending rowids.
  // FTS5 writes its pending postings out as a new segment whenever a rowid is lower than the last
  // one: oldest first, that was a segment per file (3,000 on the bench corpus, merged at the end);
  // newest first, one per 64 MB of postings (measured: 1.6–2.1× less CPU in FTS5 for the same rows).
  const byAge = [...files.entries()].sort((a, b) => a[1].mtimeMs - b[1].mtimeMs || (a[0] < b[0] ? -1 : 1));
  const ids = freshIds(db, byAge.filter(([p]) => !known.has(p)), known);
  const order = byAge.reverse();
  const progress: UpdateProgress = { done: 0, total: order.length, read: 0, committed: 0 };
  const batchBytes = opts.batchBytes ?? BATCH_BYTES;
  const fresh = order.filter(([p]) => !known.has(p)).map(([path, st]) => ({ path, size: st.size }));
  const freshBytes = fresh.reduce((n, f) => n + f.size, 0);
  const ahead = opts.readWorkerFile && fresh.length > 1 && freshBytes >= (opts.readAheadFrom ?? BATCH_BYTES) ? new ReadAhead(opts.readWorkerFile, fresh, ROWS_PER_FILE) : null;
  const w = new RowWriter(db, sqlite3);
  let inTx = false;
  let batch = 0;
  try {
    for (const [path, st] of order) {
      throwIfCancelled(opts.signal);
      const row = known.get(path);
      progress.done++;
      if (row && sameFile(row, st)) {
        stats.unchanged++;
        if (!inTx) progress.committed = progress.done;
        continue;
      }
      if (!inTx) {
        db.exec('BEGIN');
        inTx = true;
      }
      try {
        const whole = row ? fileRow(db, row.id) : null;
        if (whole && (await indexTail(db, w, whole, st))) stats.appended++;
        else {
          let id: number;
          if (row) {
            dropFileRows(db, row.id);
            id = row.id;
            stats.reindexed++;
          } else {
            id = ids.get(path)!;
            db.exec({ sql: 'INSERT INTO files(id, path, next_seq) VALUES (?, ?, 1)', bind: [id, path] });
            stats.added++;
          }
          writeWhole(db, w, id, st, await (ahead && !row ? ahead.take(path) : readWholeFile(path, ROWS_PER_FILE)));
        }
      } catch (e) {
        // Unreadable now (gone, no permission): skip it; the next update tries again.
        if ((e as { name?: string }).name === 'CancelledError') throw e;
        if ((e as { resultCode?: number }).resultCode !== undefined) throw e;
      }
      progress.read++;
      batch += Math.max(0, st.size - (row?.bytes ?? 0));
      if (batch >= batchBytes) {
        db.exec('COMMIT');
        inTx = false;
        batch = 0;
        progress.committed = progress.done;
        opts.onProgress?.(progress);
        await opts.betweenBatches?.();
      } else opts.onProgress?.(progress);
    }
    if (inTx) db.exec('COMMIT');
    inTx = false;
    progress.committed = progress.done;
  } catch (e) {
    if (inTx) {
      // Keep what this batch wrote when cancelled (each file's rows are complete); roll back on errors.
      if ((e as { name?: string }).name === 'CancelledError') db.exec('COMMIT');
      else db.exec('ROLLBACK');
    }
    throw e;
  } finally {
    ahead?.close();
    w.close();
    if (bulk) setMergePolicy(db, DEFAULT_MERGE_POLICY);
  }
  opts.onProgress?.(progress);
  // After a big batch (the first build), merge FTS5's segments into one: every term lookup probes
  // each segment, and a freshly built index has thousands (a query's range seeks get ~4× faster;
  // the merge costs under a tenth of the build). Small updates leave it to FTS5's automerge.
  if (w.rows >= OPTIMIZE_ROWS) {
    db.exec("INSERT INTO fts(fts) VALUES('optimize')");
    // The merged segment was written beside the ones it replaces: give their pages back (the file
    // would otherwise keep the build's peak size, up to twice the index).
    // (It yields a row per page freed, one page per step: run it to the end.)
    const vacuum = db.prepare('PRAGMA incremental_vacuum');
    try {
      while (vacuum.step());
    } finally {
      vacuum.finalize();
    }
  }
  stats.rows = w.rows;
  stats.ms = performance.now() - t0;
  return stats;
}
