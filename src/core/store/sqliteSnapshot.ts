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
// The merged image (marked as a rollback-journal database: bytes 18–19 = 1, since there is no
// WAL beside it any more) is then deserialized read-only into the WASM SQLite.
// A concurrent checkpoint could change the main file or reset the WAL between the reads: the WAL
// header and the main file's identity (size, mtime, ctime) are taken before the main file is read
// and compared after the WAL is read, and the read is retried when either changed (a WAL truncated
// and refilled in between shows up as a main-file change: the checkpoint wrote to it).
import { open, stat } from 'node:fs/promises';
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
  /** The later modification time of the main file and the WAL (ms). */
  mtimeMs: number;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

async function readWhole(path: string): Promise<{ bytes: Buffer; mtimeMs: number } | null> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new SqliteSnapshotError('unreadable', path, 'not a regular file');
    return { bytes: await fh.readFile(), mtimeMs: st.mtimeMs };
  } finally {
    await fh.close();
  }
}

async function readWalHead(path: string): Promise<Buffer | null> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const buf = Buffer.alloc(WAL_HEADER);
    const { bytesRead } = await fh.read(buf, 0, WAL_HEADER, 0);
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
}

/** The committed frames of a WAL image, or null when it holds none (absent, empty, reset). */
export function committedWalFrames(wal: Uint8Array): WalMerge | null {
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
  const pending = new Map<number, { offset: number }>();
  let committed = new Map<number, { offset: number }>();
  let dbPages = 0;
  let applied = 0;
  let seen = 0;
  for (let off = WAL_HEADER; off + frameSize <= wal.length; off += frameSize) {
    if (view.getUint32(off + 8) !== salt1 || view.getUint32(off + 12) !== salt2) break;
    [s0, s1] = walChecksum(wal, off, off + 8, bigEndian, s0, s1);
    [s0, s1] = walChecksum(wal, off + FRAME_HEADER, off + frameSize, bigEndian, s0, s1);
    if (s0 !== view.getUint32(off + 16) || s1 !== view.getUint32(off + 20)) break;
    const page = view.getUint32(off);
    if (page === 0) break;
    seen++;
    pending.set(page, { offset: off + FRAME_HEADER });
    const commitSize = view.getUint32(off + 4);
    if (commitSize !== 0) {
      // A commit frame: everything so far is committed.
      committed = new Map(pending);
      dbPages = commitSize;
      applied = seen;
    }
  }
  const totalFrames = Math.max(0, Math.floor((wal.length - WAL_HEADER) / frameSize));
  if (applied === 0) return { pages: new Map(), dbPages: 0, pageSize, applied: 0, ignored: totalFrames };
  return { pages: committed, dbPages, pageSize, applied, ignored: totalFrames - applied };
}

function mergeImage(path: string, db: Buffer, wal: Buffer | null): { image: Uint8Array; pageSize: number; applied: number; ignored: number } {
  if (db.length > 0 && (db.length < 100 || !db.subarray(0, 16).equals(SQLITE_MAGIC))) {
    throw new SqliteSnapshotError('not-sqlite', path, 'not an SQLite database (no "SQLite format 3" header)');
  }
  // SQLite looks for a WAL only when the header says WAL mode (bytes 18–19 = 2); a leftover -wal
  // beside a rollback-journal database is not part of it.
  const walMode = db.length === 0 || db[18] === 2;
  const merge = walMode && wal ? committedWalFrames(wal) : null;
  if (!merge || merge.applied === 0) {
    if (db.length === 0) throw new SqliteSnapshotError('corrupt', path, 'the database file is empty and its WAL commits nothing');
    const image = new Uint8Array(db);
    image[18] = 1;
    image[19] = 1;
    return { image, pageSize: dbPageSize(db), applied: 0, ignored: merge?.ignored ?? 0 };
  }
  const { pageSize } = merge;
  if (db.length > 0 && dbPageSize(db) !== pageSize) {
    throw new SqliteSnapshotError('corrupt', path, `the WAL's page size ${pageSize} differs from the database's ${dbPageSize(db)}`);
  }
  const image = new Uint8Array(merge.dbPages * pageSize);
  image.set(db.subarray(0, Math.min(db.length, image.length)));
  for (const [page, { offset }] of merge.pages) {
    if (page > merge.dbPages) continue; // truncated away by the last commit
    image.set(wal!.subarray(offset, offset + pageSize), (page - 1) * pageSize);
  }
  if (!Buffer.from(image.buffer, image.byteOffset, 16).equals(SQLITE_MAGIC)) {
    throw new SqliteSnapshotError('not-sqlite', path, 'the merged image has no SQLite header');
  }
  image[18] = 1;
  image[19] = 1;
  return { image, pageSize, applied: merge.applied, ignored: merge.ignored };
}

const TRIES = 5;

/** The database's last committed state as one image (main file + committed WAL frames). */
export async function readSqliteSnapshot(path: string): Promise<SqliteSnapshot> {
  const walPath = `${path}-wal`;
  for (let attempt = 0; attempt < TRIES; attempt++) {
    try {
      const headBefore = await readWalHead(walPath);
      const idBefore = await identity(path);
      const db = await readWhole(path);
      if (!db) throw new SqliteSnapshotError('missing', path, 'no such database file');
      const wal = await readWhole(walPath);
      const headAfter = await readWalHead(walPath);
      const idAfter = await identity(path);
      const same = (a: Buffer | null, b: Buffer | null): boolean => (a === null ? b === null : b !== null && a.equals(b));
      // A WAL reset (new salts), a truncation, a new WAL or a checkpoint into the main file between the reads: read again.
      if (!same(headBefore, headAfter) || !same(headBefore, wal ? wal.bytes.subarray(0, WAL_HEADER) : null) || idBefore !== idAfter) continue;
      const merged = mergeImage(path, db.bytes, wal?.bytes ?? null);
      return {
        image: merged.image,
        pageSize: merged.pageSize,
        dbBytes: db.bytes.length,
        walBytes: wal?.bytes.length ?? 0,
        walFramesApplied: merged.applied,
        walFramesIgnored: merged.ignored,
        mtimeMs: Math.max(db.mtimeMs, wal?.mtimeMs ?? 0),
      };
    } catch (e) {
      if (e instanceof SqliteSnapshotError) throw e;
      throw new SqliteSnapshotError('unreadable', path, (e as Error).message);
    }
  }
  throw new SqliteSnapshotError('unstable', path, `the WAL kept changing under ${TRIES} reads (a checkpoint in progress); try again`);
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
