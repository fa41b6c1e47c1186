// The search index's database: a file we write (through the Node-fs VFS), opened by one process
// at a time (indexLock.ts). It is a cache of the session files: a missing, damaged or older-schema
// index of ours is deleted and built again, never repaired. Ours means marked as ours: SQLite's
// application id in the file's header (or, for indexes made before the mark, our user_version and
// our three tables). Any other file at the index's path — another program's database, with its
// `-journal` or `-wal`, or bytes that are not SQLite — is never deleted: opening refuses with a
// sentence (IndexNotOursError) and leaves every file as it was.
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
//  - files: per file its identity and where an appended tail starts (incremental updates), and
//    the agent (format) that wrote it, which says how a row's bytes read back.
import { chmodSync, closeSync, existsSync, fstatSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadSqliteWasm, type Sqlite3 } from '../store/sqliteWasm';
import { NODE_FS_VFS, registerNodeFsVfs } from '../store/nodeFsVfs';
import { lockIndexDir } from './indexLock';
import { makePrivateDir } from '../store/privateDir';

/**
 * Bumped when the layout or what is indexed changes: an older index is rebuilt. 3: dsh logs are
 * indexed (an index of 2 holds raw dsh logs as unchanged files without rows). 4: Codex rollouts and
 * Claude Code transcripts are indexed, each file knows its agent, and every row has its agent token.
 */
export const INDEX_SCHEMA_VERSION = 4;
export const ROWS_PER_FILE = 2 ** 24;
/** SQLite's application id of our index files ('SLix'): what tells our index from any other database. */
export const INDEX_APPLICATION_ID = 0x534c6978;

/** A file at the index's path that the index did not make: it is left as it is. */
export class IndexNotOursError extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path} is not a Session Loom search index (${what}); it was left untouched: remove it or choose another index folder`);
    this.name = 'IndexNotOursError';
  }
}

export type Db = InstanceType<Sqlite3['oo1']['DB']>;

const SCHEMA = `
CREATE TABLE files(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  dev INTEGER, ino INTEGER, size INTEGER, mtime REAL,
  bytes INTEGER, resume_from INTEGER, resume_line INTEGER, head TEXT, seam TEXT, tail_ok INTEGER,
  next_seq INTEGER NOT NULL,
  cwd TEXT, title TEXT, created INTEGER, rows INTEGER NOT NULL DEFAULT 0, agent TEXT
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

/**
 * The rows of `sql` as objects with these columns, read through one JSON text that SQLite builds.
 * sqlite-wasm's own row readers cross the WASM boundary for every cell and decode every string on
 * its own; in a fresh process (a CLI search), before the JIT has warmed up, that cost 10–17 ms for
 * 300 files' rows, against 1–3 ms as one JSON text. Numbers come back exactly: integers below
 * 2^53, and reals, which SQLite's JSON writes with the digits that read back as the same double (a
 * file's mtime is compared exactly: test/unit/searchIndexSafety.test.ts). Row order is the order
 * SQLite aggregates in, which is not promised: callers that need an order sort.
 */
export function selectRows<T>(db: Db, sql: string, bind: readonly unknown[], columns: readonly (keyof T & string)[]): T[] {
  const text = db.selectValue(`SELECT json_group_array(json_object(${columns.map((c) => `'${c}', "${c}"`).join(', ')})) FROM (${sql})`, bind.length > 0 ? (bind as never) : undefined);
  return typeof text === 'string' ? (JSON.parse(text) as T[]) : [];
}

/** Whether FTS5's config table holds this policy (a value it does not hold is FTS5's default, which the default policy is). */
function hasMergePolicy(db: Db, p: { hashBytes: number; automerge: number }): boolean {
  const held = new Map((db.selectArrays("SELECT k, v FROM fts_config WHERE k IN ('hashsize', 'automerge')") as [string, unknown][]).map(([k, v]) => [k, Number(v)]));
  const same = (k: string, v: number, dflt: number): boolean => (held.get(k) ?? dflt) === v;
  return same('hashsize', p.hashBytes, DEFAULT_MERGE_POLICY.hashBytes) && same('automerge', p.automerge, DEFAULT_MERGE_POLICY.automerge);
}

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

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Whether the file at `path` is one the index may open, empty or delete: none there, an empty
 * file, or a database whose header carries our application id — or, made before that mark, our
 * user_version with the auto-vacuum mode we create (confirmed by the tables after opening).
 * Throws IndexNotOursError for anything else, reading only the header and never writing.
 */
function checkOurs(path: string): 'none' | 'ours' | 'legacy' {
  for (const side of [`${path}-journal`, `${path}-wal`]) {
    // A FIFO or device there would hang SQLite's open: refused before anything opens it.
    if (existsSync(side) && !statSync(side).isFile()) throw new IndexNotOursError(side, 'not a regular file');
  }
  if (!existsSync(path)) return 'none';
  const st = statSync(path);
  if (!st.isFile()) throw new IndexNotOursError(path, 'not a regular file');
  if (st.size === 0) return 'none';
  const head = Buffer.alloc(100);
  const fd = openSync(path, 'r');
  let got = 0;
  try {
    if (!fstatSync(fd).isFile()) throw new IndexNotOursError(path, 'not a regular file');
    got = readSync(fd, head, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (got < 100 || !head.subarray(0, 16).equals(SQLITE_MAGIC)) throw new IndexNotOursError(path, 'not a SQLite database');
  const applicationId = head.readUInt32BE(68);
  if (applicationId === INDEX_APPLICATION_ID) return 'ours';
  const userVersion = head.readUInt32BE(60);
  const incrementalVacuum = head.readUInt32BE(64);
  if (applicationId === 0 && userVersion >= 1 && userVersion <= INDEX_SCHEMA_VERSION && incrementalVacuum === 1) return 'legacy';
  throw new IndexNotOursError(path, applicationId !== 0 ? `another program's database, application id 0x${applicationId.toString(16)}` : 'another database');
}



function configure(db: Db): void {
  // A cache: a crash may lose the last transaction, never make it inconsistent (the journal);
  // durability across a power cut is not worth an fsync per batch.
  db.exec('PRAGMA journal_mode=TRUNCATE; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-32768;');
}

function ourTables(db: Db): boolean {
  const tables = new Set(db.selectValues("SELECT name FROM sqlite_schema WHERE type IN ('table')") as string[]);
  return tables.has('files') && tables.has('entries') && tables.has('fts');
}

function schemaOk(db: Db): boolean {
  return db.selectValue('PRAGMA user_version') === INDEX_SCHEMA_VERSION && ourTables(db);
}

const CREATE = `BEGIN; ${SCHEMA} PRAGMA user_version=${INDEX_SCHEMA_VERSION}; PRAGMA application_id=${INDEX_APPLICATION_ID}; COMMIT;`;

/**
 * After an unclean end (a stale lock taken over, or a journal left behind), a quick check of the
 * pages and FTS5's own integrity check of its segments: false when either finds damage.
 */
function intact(db: Db): boolean {
  try {
    if (db.selectValue('PRAGMA quick_check') !== 'ok') return false;
    db.exec("INSERT INTO fts(fts, rank) VALUES('integrity-check', 0)");
    return true;
  } catch {
    return false;
  }
}

/**
 * Opens (or creates) the index at `path`, taking the directory's lock. A database that cannot be
 * used as it is (not SQLite, damaged, another schema) is deleted and created anew.
 */
export async function openIndexDb(path: string): Promise<OpenedIndex> {
  const dir = dirname(path);
  // The index's folder and files are the user's alone (0700 / 0600), whatever the umask: they hold the sessions' words.
  await makePrivateDir(dir);
  const lock = lockIndexDir(dir);
  const release = lock.release;
  try {
    const kind = checkOurs(path);
    const journal = `${path}-journal`;
    const unclean = lock.tookOver || (existsSync(journal) && statSync(journal).size > 0);
    const sqlite3 = await loadSqliteWasm();
    registerNodeFsVfs(sqlite3);
    const open = (): Db => new sqlite3.oo1.DB({ filename: path, flags: 'c', vfs: NODE_FS_VFS } as never);
    let db: Db | null = null;
    let fresh = false;
    try {
      db = open();
      if (kind === 'legacy' && !ourTables(db)) {
        db.close();
        db = null;
        throw new IndexNotOursError(path, 'another database');
      }
      configure(db);
      if (!schemaOk(db)) {
        const empty = db.selectValue('SELECT count(*) FROM sqlite_schema') === 0;
        if (!empty) throw new Error('another schema');
        db.exec(CREATE_PRAGMAS);
        db.exec(CREATE);
        fresh = true;
      } else if (kind === 'legacy') {
        db.exec(`PRAGMA application_id=${INDEX_APPLICATION_ID}`);
      }
      if (unclean && !fresh && !intact(db)) throw new Error('damaged after an unclean end');
      // A bulk update cut short (killed mid-way) leaves its policy in the config table. Checked
      // before it is written: writing it at every open made each CLI search a write transaction.
      if (!hasMergePolicy(db, DEFAULT_MERGE_POLICY)) setMergePolicy(db, DEFAULT_MERGE_POLICY);
    } catch (e) {
      if (e instanceof IndexNotOursError) throw e;
      // Ours, but damaged or of an older layout: it is only a cache.
      db?.close();
      removeDb(path);
      db = open();
      configure(db);
      db.exec(CREATE_PRAGMAS);
      db.exec(CREATE);
      setMergePolicy(db, DEFAULT_MERGE_POLICY);
      fresh = true;
    }
    for (const p of [path, journal]) if (existsSync(p)) chmodSync(p, 0o600);
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

/** Deletes the index files at `path` (the database and its journal) — only if they are ours. */
export function deleteIndexDb(path: string): void {
  checkOurs(path);
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
