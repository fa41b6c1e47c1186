// Writes the index's rows (an FTS5 row and an `entries` row per indexed entry) through SQLite's
// C functions directly. The oo1 wrapper's bind() copies each string into a fresh WASM allocation
// (encode, malloc, copy, free once bound) through several layers of argument adapters: about
// 10 µs per row, a fifth of a first build's time on the bench corpus. Here the strings are
// encoded straight into one reused WASM buffer and bound as SQLITE_STATIC (SQLite reads them in
// place; the buffer is not touched again before the statement is reset).
import type { Sqlite3 } from '../store/sqliteWasm';
import type { Db } from './indexDb';

const SQLITE_DONE = 101;
const SQLITE_STATIC = 0;

/** The C functions used (the WASM module's own exports: pointers and lengths, no adapters). */
interface CExports {
  sqlite3_bind_text(stmt: number, col: number, text: number, bytes: number, destructor: number): number;
  sqlite3_bind_int64(stmt: number, col: number, value: bigint): number;
  sqlite3_bind_double(stmt: number, col: number, value: number): number;
  sqlite3_bind_null(stmt: number, col: number): number;
  sqlite3_step(stmt: number): number;
  sqlite3_reset(stmt: number): number;
}

type Stmt = ReturnType<Db['prepare']>;

export class RowWriter {
  private readonly fts: Stmt;
  private readonly entries: Stmt;
  private readonly ftsPtr: number;
  private readonly entriesPtr: number;
  private readonly c: CExports;
  private readonly encoder = new TextEncoder();
  private buf = 0;
  private cap = 0;
  rows = 0;

  constructor(
    private readonly db: Db,
    private readonly sqlite3: Sqlite3,
  ) {
    this.fts = db.prepare('INSERT INTO fts(rowid, body, meta) VALUES (?, ?, ?)');
    this.entries = db.prepare('INSERT INTO entries(id, eid, ts, off, len) VALUES (?, ?, ?, ?, ?)');
    this.ftsPtr = Number(this.fts.pointer);
    this.entriesPtr = Number(this.entries.pointer);
    this.c = sqlite3.wasm.exports as unknown as CExports;
  }

  /** Room for `chars` UTF-16 code units as UTF-8 (at most 3 bytes each). */
  private reserve(chars: number): void {
    const need = chars * 3 + 16;
    if (need <= this.cap) return;
    const wasm = this.sqlite3.wasm;
    if (this.buf !== 0) wasm.dealloc(this.buf);
    this.buf = 0;
    this.cap = Math.max(need, 1 << 16);
    this.buf = Number(wasm.alloc(this.cap));
  }

  /** Encodes `s` at byte `at` of the buffer; its length in bytes. */
  private put(s: string, at: number): number {
    const heap = this.sqlite3.wasm.heap8u();
    return this.encoder.encodeInto(s, heap.subarray(this.buf + at, this.buf + this.cap)).written;
  }

  private int(stmt: number, col: number, v: number): void {
    this.c.sqlite3_bind_int64(stmt, col, BigInt(v));
  }

  private step(stmt: number): void {
    const rc = this.c.sqlite3_step(stmt);
    this.c.sqlite3_reset(stmt);
    if (rc !== SQLITE_DONE) {
      // As oo1 throws it: the result code (corruption is told apart by it: indexDb.isCorruption).
      const SQLite3Error = this.sqlite3.SQLite3Error as unknown as new (rc: number, message: string) => Error;
      throw new SQLite3Error(rc, this.sqlite3.capi.sqlite3_errmsg(this.db.pointer!));
    }
  }

  /** One row: `body` is the entry's searchable text, `meta` its role/tool tokens. */
  add(rowid: number, body: string, meta: string, eid: string, ts: number | null, off: number, len: number): void {
    this.addText(rowid, body, meta);
    this.addEntry(rowid, eid, ts, off, len);
  }

  /** The FTS5 half of a row (bench/searchGroups.ts also writes rows of several entries through it). */
  addText(rowid: number, body: string, meta: string): void {
    this.reserve(body.length + meta.length);
    const nBody = this.put(body, 0);
    const nMeta = this.put(meta, nBody);
    const { c, ftsPtr: f } = this;
    this.int(f, 1, rowid);
    c.sqlite3_bind_text(f, 2, this.buf, nBody, SQLITE_STATIC);
    c.sqlite3_bind_text(f, 3, this.buf + nBody, nMeta, SQLITE_STATIC);
    this.step(f);
  }

  /** The `entries` half of a row. */
  addEntry(id: number, eid: string, ts: number | null, off: number, len: number): void {
    this.reserve(eid.length);
    const nEid = this.put(eid, 0);
    const { c, entriesPtr: e } = this;
    this.int(e, 1, id);
    c.sqlite3_bind_text(e, 2, this.buf, nEid, SQLITE_STATIC);
    if (ts === null) c.sqlite3_bind_null(e, 3);
    else if (Number.isSafeInteger(ts)) this.int(e, 3, ts);
    else c.sqlite3_bind_double(e, 3, ts);
    this.int(e, 4, off);
    this.int(e, 5, len);
    this.step(e);
    this.rows++;
  }

  close(): void {
    this.fts.finalize();
    this.entries.finalize();
    if (this.buf !== 0) this.sqlite3.wasm.dealloc(this.buf);
    this.buf = 0;
    this.cap = 0;
  }
}
