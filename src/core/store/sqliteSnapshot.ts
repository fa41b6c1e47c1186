// A read-only snapshot of an SQLite database file, format-neutral (the dsh session store and the
// prompt-history reader both use it). It never opens the file for writing, creates no `-shm`
// and takes no lock, so a database held by a live writer still reads as its last committed state.
//
// How: the main file and its `-wal` are read as bytes and the WAL is merged here, following the
// SQLite file format (https://www.sqlite.org/fileformat.html, "The Write-Ahead Log"):
// - WAL header (32 bytes, big-endian): magic 0x377f0682 (checksums little-endian) or 0x377f0683
//   (big-endian), version, page size, checkpoint seq, salt-1, salt-2, checksum of bytes 0–23;
// - each frame: 24-byte header (page number, db size in pages after commit or 0, the two salts,
//   cumulative checksum over the header's first 8 bytes and the page) + one page;
// - a frame counts only while its salts match the header and the running checksum matches; the
//   pages of frames up to the LAST VALID COMMIT frame (db size ≠ 0) are applied in order, so an
//   uncommitted transaction and a torn frame are invisible, exactly as to SQLite itself.
// - every size a WAL claims is checked against what the files can supply: a commit frame's "db
//   size after commit" may not exceed the pages of the main file or the highest page the WAL
//   itself wrote up to that commit (SQLite writes every page a commit adds). A commit claiming
//   more is damage: it and every frame after it are ignored, with a problem reported (a 64 KB
//   WAL claiming 512 MB is not allocated).
// Rollback-journal databases (https://www.sqlite.org/fileformat.html, "The Rollback Journal";
// pager.c `pager_playback`): a `<db>-journal` that is non-empty and starts with a valid header
// (magic d9 d5 05 f9 20 a1 63 d7, record count, checksum initialiser, original db size in pages,
// sector size, page size; one header per sector-aligned segment) is hot: the pages it holds are
// the committed ones, and a live or killed writer may already have overwritten them in the main
// file. As SQLite's playback does, but in memory only (the journal and the database are never
// written or deleted): each record (page number, page, checksum of every 200th byte from the
// checksum initialiser) is laid over the main file's pages, playback stops at the first bad
// record, page 0 or the lock-byte page, pages past the original size are skipped, and the image
// is cut (or extended) to the original size. A journal whose first byte is 0 (zeroed on commit
// in PERSIST mode, or not yet synced: SQLite writes the magic only when it syncs, before it
// touches the main file) or whose super-journal is gone is not hot and is ignored, as by SQLite.
// The merged image (marked as a rollback-journal database: bytes 18–19 = 1, since there is no
// WAL beside it any more) is then deserialized read-only into the WASM SQLite.
// A concurrent checkpoint could change the main file or reset the WAL between the reads: the WAL
// header and the main file's identity (size, mtime, ctime) are taken before the main file is read
// and compared after the WAL is read, and the read is retried when either changed (a WAL truncated
// and refilled in between shows up as a main-file change: the checkpoint wrote to it). The
// journal's identity and header are compared the same way (a commit deletes or zeroes it), and
// it is read after the main file: every page a writer changed in the main file was journaled
// (and synced) before, so a journal read later holds the original of every change seen.
import { constants as fsConstants, existsSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { loadSqliteWasm, type Sqlite3 } from './sqliteWasm';

export type SqliteSnapshotErrorCode = 'missing' | 'not-sqlite' | 'corrupt' | 'unstable' | 'unreadable';

export class SqliteSnapshotError extends Error {
  constructor(
    readonly code: SqliteSnapshotErrorCode,
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'SqliteSnapshotError';
  }
}

export interface SqliteSnapshot {
  /** The merged database image. */
  image: Uint8Array;
  pageSize: number;
  /** Bytes of the main file and of the WAL as read. */
  dbBytes: number;
  walBytes: number;
  /** WAL frames applied (those up to the last valid commit), and frames ignored after them. */
  walFramesApplied: number;
  walFramesIgnored: number;
  /** Bytes of the rollback journal as read (0: none), and the original pages restored from it (a hot journal). */
  journalBytes: number;
  journalPagesApplied: number;
  /** Whether a hot rollback journal was honoured (its pages laid over the main file, in memory). */
  hotJournal: boolean;
  /** Damage found and worked around (a WAL commit claiming more than the files hold…), one sentence each. */
  problems: string[];
  /** The later modification time of the main file and the WAL (ms). */
  mtimeMs: number;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

// Every file here is named from outside (a --db path, a store chosen by the user, and the -wal and
// -journal beside them, which anyone could replace): each is opened without blocking (a FIFO put
// there would otherwise hang the open, and then the read, forever) and its type is checked on the
// open descriptor before a byte is read (as src/core/search/indexLock.ts does). Symbolic links are
// followed, as SQLite itself follows them.
const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);

/** What a file that is not a regular file is, for the sentence that refuses it. */
function notRegular(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a folder';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Opens `file` (the database itself or its `-wal`/`-journal`) for reading, or null when it does not
 * exist. Anything but a regular file is refused with a sentence naming it (`db` is the database
 * the error is about).
 */
async function openRegular(db: string, file: string, check = true): Promise<{ fh: FileHandle; mtimeMs: number } | null> {
  let fh: FileHandle;
  try {
    fh = await open(file, OPEN_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    // ENXIO: a socket (or a FIFO without a reader, on some systems) cannot be opened at all.
    if (code === 'ENXIO') throw new SqliteSnapshotError('unreadable', db, `${file === db ? 'it' : file} is not a regular file (a socket or a FIFO)`);
    if (code === 'ENAMETOOLONG') {
      // The -wal is looked at first: say which name is too long (usually the database's own).
      const own = file === db || (await stat(db).then(() => false, (err: NodeJS.ErrnoException) => err.code === 'ENAMETOOLONG'));
      throw new SqliteSnapshotError('unreadable', db, own ? 'file name too long' : `file name too long (${file})`);
    }
    throw e;
  }
  if (!check) return { fh, mtimeMs: 0 };
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new SqliteSnapshotError('unreadable', db, `${file === db ? 'it' : file} is ${notRegular(st)}, not a regular file`);
    return { fh, mtimeMs: st.mtimeMs };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

async function readWhole(db: string, path: string): Promise<{ bytes: Buffer; mtimeMs: number } | null> {
  const opened = await openRegular(db, path);
  if (!opened) return null;
  try {
    return { bytes: await opened.fh.readFile(), mtimeMs: opened.mtimeMs };
  } finally {
    await opened.fh.close();
  }
}

/**
 * The WAL's first bytes. Opened without blocking but not checked to be a regular file: a FIFO
 * reads as empty here, and readWhole (which does check) refuses it with a sentence. One system
 * call less on each side of the window a checkpointing writer must leave alone.
 */
async function readWalHead(db: string, path: string): Promise<Buffer | null> {
  const opened = await openRegular(db, path, false);
  if (!opened) return null;
  const fh = opened.fh;
  try {
    const buf = Buffer.alloc(WAL_HEADER);
    const { bytesRead } = await fh.read(buf, 0, WAL_HEADER, 0).catch(async (e: unknown) => {
      // A positioned read of a FIFO or a device fails (ESPIPE): say what the file is instead.
      const st = await fh.stat();
      if (!st.isFile()) throw new SqliteSnapshotError('unreadable', db, `${path === db ? 'it' : path} is ${notRegular(st)}, not a regular file`);
      throw e;
    });
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** The main file's identity as far as a checkpoint changes it ('' when absent). */
async function identity(path: string): Promise<string> {
  try {
    const st = await stat(path, { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return '';
  }
}

/** SQLite's WAL checksum over `data[start, end)` (a multiple of 8), continuing from (s0, s1). */
export function walChecksum(data: Uint8Array, start: number, end: number, bigEndian: boolean, s0: number, s1: number): [number, number] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let a = s0 >>> 0;
  let b = s1 >>> 0;
  for (let i = start; i < end; i += 8) {
    a = (a + view.getUint32(i, !bigEndian) + b) >>> 0;
    b = (b + view.getUint32(i + 4, !bigEndian) + a) >>> 0;
  }
  return [a, b];
}

/** The page size a database header declares (offset 16, big-endian; 1 means 65536). */
function dbPageSize(db: Uint8Array): number {
  const v = (db[16]! << 8) | db[17]!;
  return v === 1 ? 65536 : v;
}

interface WalMerge {
  pages: Map<number, { offset: number }>;
  dbPages: number;
  pageSize: number;
  applied: number;
  ignored: number;
  /** Why frames that are otherwise valid were not applied (a damaged size claim), or null. */
  problem: string | null;
}

/**
 * The committed frames of a WAL image, or null when it holds none (absent, empty, reset).
 * `dbFilePages`: the pages of the main file, what a commit's claimed db size is checked against
 * (with the highest page the WAL wrote up to that commit); a commit claiming more is damage:
 * it and what follows are ignored (`problem` says why).
 */
export function committedWalFrames(wal: Uint8Array, dbFilePages = 0): WalMerge | null {
  if (wal.length < WAL_HEADER) return null;
  const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
  const magic = view.getUint32(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return null;
  const bigEndian = (magic & 1) === 1;
  const pageSize = view.getUint32(8);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return null;
  const [h0, h1] = walChecksum(wal, 0, 24, bigEndian, 0, 0);
  if (h0 !== view.getUint32(24) || h1 !== view.getUint32(28)) return null;
  const salt1 = view.getUint32(16);
  const salt2 = view.getUint32(20);
  let s0 = h0;
  let s1 = h1;
  const frameSize = FRAME_HEADER + pageSize;
  let dbPages = 0;
  let applied = 0;
  let seen = 0;
  let maxPage = 0;
  let problem: string | null = null;
  // First pass: how many frames are committed (the pages are gathered after, once: copying a map
  // per commit would be quadratic in a WAL of many small commits).
  for (let off = WAL_HEADER; off + frameSize <= wal.length; off += frameSize) {
    if (view.getUint32(off + 8) !== salt1 || view.getUint32(off + 12) !== salt2) break;
    [s0, s1] = walChecksum(wal, off, off + 8, bigEndian, s0, s1);
    [s0, s1] = walChecksum(wal, off + FRAME_HEADER, off + frameSize, bigEndian, s0, s1);
    if (s0 !== view.getUint32(off + 16) || s1 !== view.getUint32(off + 20)) break;
    const page = view.getUint32(off);
    if (page === 0) break;
    seen++;
    maxPage = Math.max(maxPage, page);
    const commitSize = view.getUint32(off + 4);
    if (commitSize !== 0) {
      // A commit frame: everything so far is committed, if its size claim holds.
      const supplied = Math.max(dbFilePages, maxPage);
      if (commitSize > supplied) {
        problem =
          `the WAL's commit frame ${seen} (byte ${off}) claims a database of ${commitSize} pages of ${pageSize} bytes, ` +
          `but the database file and the WAL hold at most ${supplied}: damaged, so it and the frames after it are ignored (as SQLite would not trust them)`;
        break;
      }
      dbPages = commitSize;
      applied = seen;
    }
  }
  const totalFrames = Math.max(0, Math.floor((wal.length - WAL_HEADER) / frameSize));
  const pages = new Map<number, { offset: number }>();
  for (let k = 0, off = WAL_HEADER; k < applied; k++, off += frameSize) pages.set(view.getUint32(off), { offset: off + FRAME_HEADER });
  return { pages, dbPages, pageSize, applied, ignored: totalFrames - applied, problem };
}

const JOURNAL_MAGIC = Uint8Array.of(0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7);
/** SQLite's PENDING_BYTE: the page holding it (the lock-byte page) is never journaled. */
const PENDING_BYTE = 0x40000000;

const hasJournalMagic = (j: Uint8Array, at: number): boolean => JOURNAL_MAGIC.every((b, k) => j[at + k] === b);

/**
 * The super-journal named at the end of a journal (pager.c `readSuperJournal`): 4-byte length,
 * 4-byte checksum (the sum of the name's bytes), the journal magic, the name before them. '' when none.
 */
function superJournalName(j: Uint8Array): string {
  if (j.length < 16 || !hasJournalMagic(j, j.length - 8)) return '';
  const view = new DataView(j.buffer, j.byteOffset, j.byteLength);
  const len = view.getUint32(j.length - 16);
  if (len === 0 || len > j.length - 16 || len > 65536) return '';
  const name = j.subarray(j.length - 16 - len, j.length - 16);
  let sum = view.getUint32(j.length - 12);
  for (const b of name) sum = (sum - (b >= 128 ? b - 256 : b)) >>> 0;
  if (sum !== 0) return '';
  const zero = name.indexOf(0);
  return Buffer.from(zero === -1 ? name : name.subarray(0, zero)).toString('utf8');
}

interface JournalOverlay {
  image: Uint8Array;
  pages: number;
}

/**
 * The committed database image a hot rollback journal gives (pager.c `pager_playback`, in memory),
 * or null when `journal` is not hot. Problems (a damaged journal) go to `problems`.
 */
function rollbackImage(path: string, db: Uint8Array, journal: Uint8Array | null, journalPath: string, problems: string[]): JournalOverlay | null {
  // Not hot: absent, empty, zeroed first byte (PERSIST commit, or magic not yet synced), or a database of zero pages.
  if (!journal || journal.length === 0 || journal[0] === 0 || db.length === 0) return null;
  if (journal.length < 28 || !hasJournalMagic(journal, 0)) {
    problems.push(`${journalPath} has no valid journal header: ignored (SQLite plays nothing back from it either)`);
    return null;
  }
  const superName = superJournalName(journal);
  if (superName !== '' && !existsSync(superName)) return null; // a multi-database commit that completed: not hot
  const view = new DataView(journal.buffer, journal.byteOffset, journal.byteLength);
  const sectorSize = view.getUint32(20);
  const pageSize = view.getUint32(24);
  const pow2 = (n: number): boolean => (n & (n - 1)) === 0;
  if (pageSize < 512 || pageSize > 65536 || !pow2(pageSize) || sectorSize < 32 || sectorSize > 65536 || !pow2(sectorSize)) {
    throw new SqliteSnapshotError('corrupt', path, `its hot journal ${journalPath} has an invalid header (page size ${pageSize}, sector size ${sectorSize}); SQLite refuses it too`);
  }
  const origPages = view.getUint32(16);
  const lockPage = Math.floor(PENDING_BYTE / pageSize) + 1;
  const recordSize = pageSize + 8;
  // Record offsets to apply, in playback order (a later record of the same page wins, as in SQLite).
  const records: Array<{ page: number; at: number }> = [];
  let off = 0;
  let first = true;
  playback: for (;;) {
    if (!first) off = Math.ceil(off / sectorSize) * sectorSize;
    if (off + sectorSize > journal.length || !hasJournalMagic(journal, off)) break;
    let nRec = view.getUint32(off + 8);
    const cksumInit = view.getUint32(off + 12);
    off += sectorSize;
    if (nRec === 0xffffffff) nRec = first ? Math.floor((journal.length - sectorSize) / recordSize) : 0;
    first = false;
    for (let u = 0; u < nRec; u++) {
      if (off + recordSize > journal.length) break playback; // cut short: SQLite stops there
      const page = view.getUint32(off);
      const data = off + 4;
      const stored = view.getUint32(off + 4 + pageSize);
      off += recordSize;
      if (page === 0 || page === lockPage) break playback;
      if (page > origPages) continue;
      let sum = cksumInit;
      for (let i = pageSize - 200; i > 0; i -= 200) sum = (sum + journal[data + i]!) >>> 0;
      if (sum !== stored) {
        problems.push(`${journalPath}: the record at byte ${off - recordSize} (page ${page}) fails its checksum: playback stops there, as SQLite's does`);
        break playback;
      }
      records.push({ page, at: data });
    }
  }
  // The original size may not exceed what the files supply (a damaged claim is not allocated).
  let supplied = Math.ceil(db.length / pageSize);
  for (const r of records) supplied = Math.max(supplied, r.page);
  if (origPages > supplied) {
    problems.push(`${journalPath} claims an original database of ${origPages} pages, but the database file and the journal hold at most ${supplied}: damaged, ignored`);
    return null;
  }
  const image = new Uint8Array(origPages * pageSize);
  image.set(db.subarray(0, Math.min(db.length, image.length)));
  for (const { page, at } of records) image.set(journal.subarray(at, at + pageSize), (page - 1) * pageSize);
  return { image, pages: records.length };
}

interface Merged {
  image: Uint8Array;
  pageSize: number;
  applied: number;
  ignored: number;
  journalPages: number;
  hotJournal: boolean;
}

function mergeImage(path: string, db: Buffer, journal: Buffer | null, wal: Buffer | null, problems: string[]): Merged {
  if (db.length > 0 && (db.length < 100 || !db.subarray(0, 16).equals(SQLITE_MAGIC))) {
    throw new SqliteSnapshotError('not-sqlite', path, 'not an SQLite database (no "SQLite format 3" header)');
  }
  // A hot journal first (SQLite plays it back before it looks for a WAL), then the WAL.
  const rolled = rollbackImage(path, db, journal, `${path}-journal`, problems);
  const base: Uint8Array = rolled ? rolled.image : db;
  const journalPages = rolled?.pages ?? 0;
  const hotJournal = rolled !== null;
  if (base.length > 0 && (base.length < 100 || !Buffer.from(base.buffer, base.byteOffset, 16).equals(SQLITE_MAGIC))) {
    throw new SqliteSnapshotError('not-sqlite', path, 'the database with its hot journal played back has no SQLite header');
  }
  // SQLite looks for a WAL only when the header says WAL mode (bytes 18–19 = 2); a leftover -wal
  // beside a rollback-journal database is not part of it.
  const walMode = base.length === 0 || base[18] === 2;
  const merge = walMode && wal ? committedWalFrames(wal, base.length > 0 ? Math.floor(base.length / dbPageSize(base)) : 0) : null;
  if (merge?.problem) problems.push(merge.problem);
  if (!merge || merge.applied === 0) {
    if (base.length === 0) throw new SqliteSnapshotError('corrupt', path, 'the database file is empty and its WAL commits nothing');
    const image = rolled ? rolled.image : new Uint8Array(base);
    image[18] = 1;
    image[19] = 1;
    return { image, pageSize: dbPageSize(base), applied: 0, ignored: merge?.ignored ?? 0, journalPages, hotJournal };
  }
  const { pageSize } = merge;
  if (base.length > 0 && dbPageSize(base) !== pageSize) {
    throw new SqliteSnapshotError('corrupt', path, `the WAL's page size ${pageSize} differs from the database's ${dbPageSize(base)}`);
  }
  const image = new Uint8Array(merge.dbPages * pageSize);
  image.set(base.subarray(0, Math.min(base.length, image.length)));
  for (const [page, { offset }] of merge.pages) {
    if (page > merge.dbPages) continue; // truncated away by the last commit
    image.set(wal!.subarray(offset, offset + pageSize), (page - 1) * pageSize);
  }
  if (!Buffer.from(image.buffer, image.byteOffset, 16).equals(SQLITE_MAGIC)) {
    throw new SqliteSnapshotError('not-sqlite', path, 'the merged image has no SQLite header');
  }
  image[18] = 1;
  image[19] = 1;
  return { image, pageSize, applied: merge.applied, ignored: merge.ignored, journalPages, hotJournal };
}

/** Reads of a database that keeps changing under them (a writer committing and checkpointing in a loop) before it is called unstable. */
const TRIES = 10;

/** The database's last committed state as one image (main file + hot journal or committed WAL frames). */
export async function readSqliteSnapshot(path: string): Promise<SqliteSnapshot> {
  const walPath = `${path}-wal`;
  const journalPath = `${path}-journal`;
  for (let attempt = 0; attempt < TRIES; attempt++) {
    try {
      // As few steps as can be between the identities before and after (a writer that checkpoints
      // often leaves only short windows): the journal, absent in WAL mode, costs a stat outside them.
      // Its identity has its size and its change time in ns: a commit that deletes, truncates or
      // zeroes it (PERSIST) changes it.
      const journalBefore = await identity(journalPath);
      const headBefore = await readWalHead(path, walPath);
      const idBefore = await identity(path);
      const db = await readWhole(path, path);
      if (!db) throw new SqliteSnapshotError('missing', path, 'no such database file');
      // After the main file: what a writer changed in it was journaled first.
      const journal = journalBefore === '' ? null : await readWhole(path, journalPath);
      const wal = await readWhole(path, walPath);
      const headAfter = await readWalHead(path, walPath);
      const idAfter = await identity(path);
      const journalAfter = await identity(journalPath);
      const same = (a: Buffer | null, b: Buffer | null): boolean => (a === null ? b === null : b !== null && a.equals(b));
      // A WAL reset (new salts), a truncation, a new WAL or a checkpoint into the main file between the reads: read again.
      if (!same(headBefore, headAfter) || !same(headBefore, wal ? wal.bytes.subarray(0, WAL_HEADER) : null) || idBefore !== idAfter) continue;
      // A rollback-mode commit (the journal deleted, truncated or zeroed) or a new transaction between the reads: read again.
      if (journalBefore !== journalAfter) continue;
      const problems: string[] = [];
      const merged = mergeImage(path, db.bytes, journal?.bytes ?? null, wal?.bytes ?? null, problems);
      return {
        image: merged.image,
        pageSize: merged.pageSize,
        dbBytes: db.bytes.length,
        walBytes: wal?.bytes.length ?? 0,
        walFramesApplied: merged.applied,
        walFramesIgnored: merged.ignored,
        journalBytes: journal?.bytes.length ?? 0,
        journalPagesApplied: merged.journalPages,
        hotJournal: merged.hotJournal,
        problems,
        mtimeMs: Math.max(db.mtimeMs, wal?.mtimeMs ?? 0),
      };
    } catch (e) {
      if (e instanceof SqliteSnapshotError) throw e;
      throw new SqliteSnapshotError('unreadable', path, (e as Error).message);
    }
  }
  throw new SqliteSnapshotError('unstable', path, `the database, its WAL or its journal kept changing under ${TRIES} reads (a checkpoint or a commit in progress); try again`);
}

/** A read-only database opened from a snapshot. Close it when done (frees the WASM memory). */
export interface SqliteReadonlyDb {
  snapshot: SqliteSnapshot;
  /** Every row of a query, as objects keyed by column name. */
  all(sql: string, bind?: unknown[]): Array<Record<string, unknown>>;
  /** The first column of the first row, or undefined. */
  value(sql: string, bind?: unknown[]): unknown;
  close(): void;
}

/** Opens the snapshot of `path` read-only in the WASM SQLite (SQLITE_DESERIALIZE_READONLY). */
export async function openSqliteSnapshot(path: string): Promise<SqliteReadonlyDb> {
  const snapshot = await readSqliteSnapshot(path);
  const sqlite3: Sqlite3 = await loadSqliteWasm();
  const db = new sqlite3.oo1.DB();
  const { capi, wasm } = sqlite3;
  const n = snapshot.image.length;
  const p = wasm.allocFromTypedArray(snapshot.image);
  const rc = capi.sqlite3_deserialize(db.pointer!, 'main', p, n, n, capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_READONLY);
  if (rc !== 0) {
    db.close();
    throw new SqliteSnapshotError('corrupt', path, `SQLite refused the image (${capi.sqlite3_js_rc_str(rc) ?? rc})`);
  }
  try {
    // Reading the schema is what detects a damaged image.
    db.selectValue('SELECT count(*) FROM sqlite_schema');
  } catch (e) {
    db.close();
    throw new SqliteSnapshotError('corrupt', path, `SQLite cannot read it: ${(e as Error).message}`);
  }
  return {
    snapshot,
    all: (sql, bind) => db.selectObjects(sql, bind as never) as Array<Record<string, unknown>>,
    value: (sql, bind) => db.selectValue(sql, bind as never),
    close: () => db.close(),
  };
}
