// The search index's database: a file we write (through the Node-fs VFS), opened by one process
// at a time (indexLock.ts). It is a cache of the session files: a missing, foreign, damaged or
// older-schema database is deleted and built again, never repaired.
//
// Layout (why each choice, measured on the bench corpus — see README "Search"):
//  - fts: FTS5, contentless (the text stays in the session files; a snippet reads the entry's
//    bytes back), contentless_delete=1 (a rewritten or deleted session drops its rows),
//    detail=none (document-level postings: about 0.26× the corpus instead of 0.44× with
//    positions, and common-word queries twice as fast; phrases are checked on the real text).
//  - rowid = file id × 2^24 + the row's sequence number in that file: the rows of one session are
//    one rowid range, so results group by session without a join, and a session's own matches
//    are a range query.
//  - entries: per row the entry id to open, its time and its byte range in the file.
//  - files: per file its identity and where an appended tail starts (incremental updates).
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadSqliteWasm, type Sqlite3 } from '../store/sqliteWasm';
import { NODE_FS_VFS, registerNodeFsVfs } from '../store/nodeFsVfs';
import { lockIndexDir } from './indexLock';

/** Bumped when the layout or what is indexed changes: an older index is rebuilt. */
export const INDEX_SCHEMA_VERSION = 2;
export const ROWS_PER_FILE = 2 ** 24;

export type Db = InstanceType<Sqlite3['oo1']['DB']>;

const SCHEMA = `
CREATE TABLE files(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  dev INTEGER, ino INTEGER, size INTEGER, mtime REAL,
  bytes INTEGER, resume_from INTEGER, resume_line INTEGER, head TEXT, seam TEXT, tail_ok INTEGER,
  next_seq INTEGER NOT NULL,
  cwd TEXT, title TEXT, created INTEGER, rows INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE entries(id INTEGER PRIMARY KEY, eid TEXT NOT NULL, ts INTEGER, off INTEGER NOT NULL, len INTEGER NOT NULL);
CREATE VIRTUAL TABLE fts USING fts5(body, meta, content='', contentless_delete=1, detail=none, tokenize='unicode61 remove_diacritics 2');
`;

// Set before the first table exists. auto_vacuum=INCREMENTAL: the pages a full merge frees are
// given back to the file system after a bulk build (indexUpdate.ts), at the cost of pointer-map
// pages (a few per thousand).
const CREATE_PRAGMAS = 'PRAGMA page_size=8192; PRAGMA auto_vacuum=INCREMENTAL;';

/** FTS5's own defaults: a small update is one small segment, merged four at a time. */
export const DEFAULT_MERGE_POLICY = { hashBytes: 1024 * 1024, automerge: 4 };

/** FTS5's in-memory postings limit and automerge (stored in the index's config table). */
export function setMergePolicy(db: Db, p: { hashBytes: number; automerge: number }): void {
  db.exec({ sql: "INSERT INTO fts(fts, rank) VALUES('hashsize', ?)", bind: [p.hashBytes] });
  db.exec({ sql: "INSERT INTO fts(fts, rank) VALUES('automerge', ?)", bind: [p.automerge] });
}

export interface OpenedIndex {
  db: Db;
  sqlite3: Sqlite3;
  path: string;
  /** The database was (re)created empty: the first build is a full one. */
  fresh: boolean;
  close(): void;
}

function removeDb(path: string): void {
  for (const p of [path, `${path}-journal`, `${path}-wal`]) rmSync(p, { force: true });
}

function configure(db: Db): void {
  // A cache: a crash may lose the last transaction, never make it inconsistent (the journal);
  // durability across a power cut is not worth an fsync per batch.
  db.exec('PRAGMA journal_mode=TRUNCATE; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-32768;');
}

function schemaOk(db: Db): boolean {
  const version = db.selectValue('PRAGMA user_version');
  if (version !== INDEX_SCHEMA_VERSION) return false;
  const tables = new Set(db.selectValues("SELECT name FROM sqlite_schema WHERE type IN ('table')") as string[]);
  return tables.has('files') && tables.has('entries') && tables.has('fts');
}

/**
 * Opens (or creates) the index at `path`, taking the directory's lock. A database that cannot be
 * used as it is (not SQLite, damaged, another schema) is deleted and created anew.
 */
export async function openIndexDb(path: string): Promise<OpenedIndex> {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const release = lockIndexDir(dir);
  try {
    const sqlite3 = await loadSqliteWasm();
    registerNodeFsVfs(sqlite3);
    const open = (): Db => new sqlite3.oo1.DB({ filename: path, flags: 'c', vfs: NODE_FS_VFS } as never);
    let db: Db | null = null;
    let fresh = false;
    try {
      db = open();
      configure(db);
      if (!schemaOk(db)) {
        const empty = db.selectValue('SELECT count(*) FROM sqlite_schema') === 0;
        if (!empty) throw new Error('another schema');
        db.exec(CREATE_PRAGMAS);
        db.exec(`BEGIN; ${SCHEMA} PRAGMA user_version=${INDEX_SCHEMA_VERSION}; COMMIT;`);
        fresh = true;
      }
      // A bulk update cut short (killed mid-way) leaves its policy in the config table.
      setMergePolicy(db, DEFAULT_MERGE_POLICY);
    } catch {
      // Not a database, damaged, or an older layout: it is only a cache.
      db?.close();
      removeDb(path);
      db = open();
      configure(db);
      db.exec(CREATE_PRAGMAS);
      db.exec(`BEGIN; ${SCHEMA} PRAGMA user_version=${INDEX_SCHEMA_VERSION}; COMMIT;`);
      setMergePolicy(db, DEFAULT_MERGE_POLICY);
      fresh = true;
    }
    const handle = db;
    return {
      db: handle,
      sqlite3,
      path,
      fresh,
      close: () => {
        try {
          handle.close();
        } finally {
          release();
        }
      },
    };
  } catch (e) {
    release();
    throw e;
  }
}

/** Deletes the index files at `path` (the database and its journal). */
export function deleteIndexDb(path: string): void {
  removeDb(path);
}

/** Whether an error from SQLite means the database file is damaged (rebuild it). */
export function isCorruption(e: unknown): boolean {
  const code = (e as { resultCode?: number }).resultCode;
  // SQLITE_CORRUPT (11) and SQLITE_NOTADB (26), with or without an extended code.
  return typeof code === 'number' && ((code & 0xff) === 11 || (code & 0xff) === 26);
}

/** The index directory for a set of roots under a cache folder: one index per set of roots. */
export function indexPathFor(cacheDir: string, roots: readonly string[]): string {
  // FNV-1a over the sorted roots: a stable short name, no crypto needed.
  let h = 0x811c9dc5;
  for (const ch of [...roots].sort().join('\n')) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return join(cacheDir, `index-${h.toString(16).padStart(8, '0')}`, 'index.db');
}
