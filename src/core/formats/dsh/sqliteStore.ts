// dsh's SQLite session store (dsh-format.md §3, SQLite backend): one database holding many
// sessions, `application_id` 0x44534850 ("DSHP") and `user_version` 17. Read from a snapshot
// (src/core/store/sqliteSnapshot.ts): read-only, lock-free, WAL rows committed but not yet
// checkpointed included. A foreign application id or another version is refused before any
// table is read, and nothing is ever opened for writing.
//
// Rows map to storage records: a scalar row is one event (`data` JSON TEXT, or a zstd BLOB when
// large; `surface_op` JSON; `source_event_seqs` a varint BLOB); a row with `ignorable = 0` is a
// packed chunk row (seq/time of its first member, `data` the row's data object) and is expanded
// exactly as in JSONL. The corruption rule is the same as for files.
import { SqliteSnapshotError, openSqliteSnapshot, type SqliteReadonlyDb } from '../../store/sqliteSnapshot';
import { parseDshHeader } from './header';
import { assembleDshLog, type DshReadOptions } from './load';
import { DshRecordScanner } from './recordScanner';
import { decodeSourceEventSeqs } from './varint';
import { decompressBlob } from './zstdDecode';
import type { DshDiagnostic, DshHeader, DshLog } from './types';

export const DSH_SQLITE_APPLICATION_ID = 0x44534850;
export const DSH_SQLITE_SCHEMA_VERSION = 17;

export type DshDatabaseRefusal = 'foreign-application-id' | 'unsupported-schema-version' | 'not-a-dsh-store';

export class DshDatabaseError extends Error {
  constructor(
    readonly code: DshDatabaseRefusal,
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'DshDatabaseError';
  }
}

export interface DshDatabaseSession {
  /** The header rebuilt from the `sessions` row (null when it fails validation; see `problem`). */
  header: DshHeader | null;
  id: string;
  cwd: string | null;
  createdAt: number;
  parentSession: string | null;
  origin: string | null;
  delegationDepth: number;
  agentPreset: string | null;
  /** Rows stored (a packed row counts once) and the last row's seq. */
  rows: number;
  lastSeq: number | null;
  /** The latest session/title, when its row decodes. */
  title: string | null;
  /** Why the latest session/title row does not decode (e.g. a zstd BLOB above the cap). */
  titleProblem?: string;
  revision: number | null;
  problem?: string;
}

type Row = Record<string, unknown>;
const textDecoder = new TextDecoder('utf-8', { fatal: true });

/** A title's `data` is decoded under this cap in a listing (a title is a short line of text). */
const TITLE_DATA_CONTENT = 1024 * 1024;

/**
 * A JSON column that may be TEXT or a zstd BLOB (dsh stores large `data` compressed). A BLOB is
 * decoded in bounded steps, never beyond `cap` (default MAX_FRAME_CONTENT, 64 MiB; zstdDecode.ts):
 * a BLOB claiming or giving more throws (the row is then reported as not decoding).
 */
function jsonColumn(v: unknown, cap?: number): unknown {
  if (typeof v === 'string') return JSON.parse(v);
  if (v instanceof Uint8Array) return JSON.parse(textDecoder.decode(decompressBlob(v, cap)));
  throw new Error(`a ${v === null ? 'NULL' : typeof v} where JSON was expected`);
}

function headerOf(row: Row): { header: DshHeader | null; problem?: string } {
  const record: Record<string, unknown> = { type: 'session', version: row.version, id: row.id, createdAt: row.created_at };
  if (row.cwd !== null) record.cwd = row.cwd;
  if (row.parent_session !== null) record.parentSession = row.parent_session;
  if (row.seed_length !== null) record.seedLength = row.seed_length;
  if (row.origin !== null) record.origin = row.origin;
  if (row.delegation_depth !== null) record.delegationDepth = row.delegation_depth;
  if (row.agent_preset !== null) record.agentPreset = row.agent_preset;
  const parsed = parseDshHeader(record, 0);
  return parsed.ok ? { header: parsed.header } : { header: null, problem: parsed.diagnostic.message };
}

/** An open dsh store: list its sessions, load one. Close it when done. */
export class DshDatabase {
  private constructor(
    readonly path: string,
    private readonly db: SqliteReadonlyDb,
  ) {}

  /** Opens a dsh store read-only; refuses a database that is not dsh's (typed errors). */
  static async open(path: string): Promise<DshDatabase> {
    const db = await openSqliteSnapshot(path);
    try {
      const image = db.snapshot.image;
      const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
      const applicationId = view.getUint32(68);
      const userVersion = view.getUint32(60);
      if (applicationId !== DSH_SQLITE_APPLICATION_ID) {
        throw new DshDatabaseError('foreign-application-id', path, `application id 0x${applicationId.toString(16).padStart(8, '0')} is not dsh's 0x44534850 ("DSHP"): not a dsh session store; nothing read`);
      }
      if (userVersion !== DSH_SQLITE_SCHEMA_VERSION) {
        throw new DshDatabaseError('unsupported-schema-version', path, `dsh store schema version ${userVersion}, this reader knows ${DSH_SQLITE_SCHEMA_VERSION} (dsh has no migration either); nothing read`);
      }
      const tables = new Set(db.all("SELECT name FROM sqlite_schema WHERE type = 'table'").map((r) => r.name));
      if (!tables.has('sessions') || !tables.has('events')) {
        throw new DshDatabaseError('not-a-dsh-store', path, 'the dsh application id is set but the sessions/events tables are missing');
      }
      return new DshDatabase(path, db);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  /** Every session row, with its latest title and row count (one query). */
  list(): DshDatabaseSession[] {
    const rows = this.db.all(
      `SELECT s.*,
         (SELECT count(*) FROM events e WHERE e.session_id = s.id) AS row_count,
         (SELECT max(seq) FROM events e WHERE e.session_id = s.id) AS last_seq,
         (SELECT data FROM events e WHERE e.session_id = s.id AND e.type = 'session/title' ORDER BY e.seq DESC LIMIT 1) AS title_data
       FROM sessions s ORDER BY s.created_at, s.id`,
    );
    return rows.map((row) => {
      const { header, problem } = headerOf(row);
      let title: string | null = null;
      let titleProblem: string | undefined;
      try {
        const t = row.title_data === null || row.title_data === undefined ? null : (jsonColumn(row.title_data, TITLE_DATA_CONTENT) as { title?: unknown }).title;
        title = typeof t === 'string' ? t : null;
      } catch (e) {
        title = null;
        titleProblem = `the latest session/title row does not decode: ${(e as Error).message}`;
      }
      const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
      return {
        header,
        id: String(row.id),
        cwd: str(row.cwd),
        createdAt: Number(row.created_at),
        parentSession: str(row.parent_session),
        origin: str(row.origin),
        delegationDepth: typeof row.delegation_depth === 'number' ? row.delegation_depth : 0,
        agentPreset: str(row.agent_preset),
        rows: Number(row.row_count),
        lastSeq: typeof row.last_seq === 'number' ? row.last_seq : null,
        title,
        revision: typeof row.revision === 'number' ? row.revision : null,
        ...(problem ? { problem } : {}),
        ...(titleProblem ? { titleProblem } : {}),
      };
    });
  }

  /** One session as a DshLog (encoding 'sqlite'), or null when the id has no row. */
  load(id: string, opts: Omit<DshReadOptions, 'mtimeMs'> = {}): DshLog | null {
    const sessionRow = this.db.all('SELECT * FROM sessions WHERE id = ?', [id])[0];
    if (!sessionRow) return null;
    const diagnostics: DshDiagnostic[] = [];
    const snap = this.db.snapshot;
    // What the snapshot worked around: damage (a WAL size claim beyond the files…) and a hot journal.
    for (const p of snap.problems) diagnostics.push({ line: 0, kind: 'dsh-frame', message: `${this.path}: ${p}` });
    if (snap.hotJournal) {
      diagnostics.push({
        line: 0,
        kind: 'dsh-log',
        message: `a hot rollback journal (${this.path}-journal: a writer's transaction that never committed) was played back in memory: ${snap.journalPagesApplied} original page(s) read from it, as SQLite reads them; nothing written`,
      });
    }
    const { header, problem } = headerOf(sessionRow);
    // The database is closed after reading: every row is kept parsed (packed rows unexpanded).
    const scanner = new DshRecordScanner(header?.id ?? null);
    if (header) {
      const rows = this.db.all('SELECT seq, type, time, data, source_event_seqs, surface_op, ignorable FROM events WHERE session_id = ? ORDER BY seq', [id]);
      for (const row of rows) {
        if (scanner.stopped) break;
        const place = { line: 0, rowSeq: Number(row.seq) };
        let record: Record<string, unknown>;
        try {
          const data = jsonColumn(row.data);
          if (row.ignorable === 0) {
            // The packed-row discriminator; expanded (and validated) by the scanner.
            record = { type: row.type, seq0: row.seq, time0: row.time, data };
            if (!String(row.type).endsWith('-chunks')) throw new Error(`ignorable = 0 marks a packed row, but its type is ${String(row.type)}`);
          } else {
            record = { type: row.type, seq: row.seq, time: row.time, data };
            if (row.ignorable === 1) record.ignorable = true;
            if (row.source_event_seqs !== null) {
              record.sourceEventSeqs = row.source_event_seqs instanceof Uint8Array ? decodeSourceEventSeqs(row.source_event_seqs) : JSON.parse(String(row.source_event_seqs));
            }
            if (row.surface_op !== null) record.surfaceOp = JSON.parse(String(row.surface_op));
          }
        } catch (e) {
          scanner.unparsable(place, `the row does not decode: ${(e as Error).message}`);
          continue;
        }
        scanner.addRecord(record, place);
      }
    } else {
      diagnostics.push({ line: 0, kind: 'invalid-header', message: `session ${id}: ${problem}` });
    }
    return assembleDshLog({ header, scan: scanner.finish(), diagnostics, corrupt: header === null }, 'sqlite', snap.dbBytes + snap.walBytes, { ...opts, mtimeMs: snap.mtimeMs });
  }

  close(): void {
    this.db.close();
  }
}

/** The sessions of a dsh SQLite store (for a root entry added by path). */
export async function listDshDatabaseSessions(path: string): Promise<DshDatabaseSession[]> {
  const db = await DshDatabase.open(path);
  try {
    return db.list();
  } finally {
    db.close();
  }
}

/** One session of a dsh SQLite store, or null when it has no such session. */
export async function loadDshDatabaseSession(path: string, id: string, opts: Omit<DshReadOptions, 'mtimeMs'> = {}): Promise<DshLog | null> {
  const db = await DshDatabase.open(path);
  try {
    return db.load(id, opts);
  } finally {
    db.close();
  }
}

export { SqliteSnapshotError };
