// Builders for dsh test inputs, made with the real tools: zstd logs with Debian's `zstd --check`
// (one frame per batch: each part compressed alone, the frames concatenated, as dsh writes them),
// and SQLite stores with the WASM SQLite itself (schema and pragmas of dsh-format.md §3).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadSqliteWasm } from '../../src/core/store/sqliteWasm';
import { encodeSourceEventSeqs } from '../reference/dshVarint';
import { fixture } from './fixtures';

export const DSH_FIXTURES = [
  'dsh-cancel-aborted.session.jsonl',
  'dsh-compaction-recovery.session.jsonl',
  'dsh-interrupted-tool-outcome-unknown.session.jsonl',
  'dsh-packed-chunks.session.jsonl',
  'dsh-subagent-child.session.jsonl',
] as const;

export const dshFixture = (name: string): string => fixture('dsh', name);
export const dshFixtureText = (name: string): string => readFileSync(dshFixture(name), 'utf8');

/** One checksummed zstd frame holding `text` (zstd --check, default level). */
export function zstdFrame(text: string | Buffer, opts: { check?: boolean; level?: number } = {}): Buffer {
  const args = [opts.check === false ? '--no-check' : '--check', `-${opts.level ?? 3}`, '-c', '-q'];
  return execFileSync('/usr/bin/zstd', args, { input: text, maxBuffer: 1 << 28 });
}

/** A raw log's text as dsh's zstd encoding: the header line alone in frame 1, then one frame per `batch` lines. */
export function zstdLogOf(rawText: string, batch = 5): Buffer {
  const lines = rawText.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const frames = [zstdFrame(lines[0]! + '\n')];
  for (let i = 1; i < lines.length; i += batch) frames.push(zstdFrame(lines.slice(i, i + batch).join('\n') + '\n'));
  return Buffer.concat(frames);
}

/** The frames' [start, end) offsets of zstdLogOf's output, by building it frame by frame. */
export function zstdLogFrames(rawText: string, batch = 5): { bytes: Buffer; frames: Array<[number, number]> } {
  const lines = rawText.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const parts = [zstdFrame(lines[0]! + '\n')];
  for (let i = 1; i < lines.length; i += batch) parts.push(zstdFrame(lines.slice(i, i + batch).join('\n') + '\n'));
  const frames: Array<[number, number]> = [];
  let at = 0;
  for (const p of parts) {
    frames.push([at, at + p.length]);
    at += p.length;
  }
  return { bytes: Buffer.concat(parts), frames };
}

export const DSH_SCHEMA = `
CREATE TABLE persistence_state (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), store_id TEXT NOT NULL) STRICT;
CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, created_at INTEGER NOT NULL, cwd TEXT,
  parent_session TEXT, seed_length INTEGER, origin TEXT, delegation_depth INTEGER, agent_preset TEXT,
  incarnation TEXT NOT NULL, revision INTEGER NOT NULL) STRICT;
CREATE TABLE events (session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
  type TEXT NOT NULL, time INTEGER NOT NULL, data ANY NOT NULL, source_event_seqs ANY, surface_op TEXT,
  ignorable INTEGER CHECK (ignorable IS NULL OR ignorable IN (0, 1)), PRIMARY KEY (session_id, seq)) STRICT;
INSERT INTO persistence_state VALUES (1, '00000000-0000-4000-8000-000000000000');
`;

export interface StoreSession {
  /** The header record (type 'session'…). */
  header: Record<string, unknown>;
  /** Storage records as in a raw log: events written verbatim or packed rows. */
  records: Array<Record<string, unknown>>;
}

/** Parses a raw log's text into a StoreSession (header + storage records). */
export function storeSessionOf(rawText: string, id?: string): StoreSession {
  const lines = rawText.split('\n').filter((l) => l !== '');
  const header = JSON.parse(lines[0]!) as Record<string, unknown>;
  if (id !== undefined) header.id = id;
  return { header, records: lines.slice(1).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/**
 * The bytes of a dsh SQLite store holding `sessions`, rows mapped as dsh maps them: packed rows
 * with ignorable = 0; `data` as JSON text, or as a zstd BLOB (no checksum) when it is 4096 bytes
 * or more and the BLOB is smaller; source_event_seqs as a varint BLOB; surface_op as JSON.
 */
export async function dshStoreBytes(sessions: StoreSession[], opts: { applicationId?: number; userVersion?: number } = {}): Promise<Uint8Array> {
  const sqlite3 = await loadSqliteWasm();
  const db = new sqlite3.oo1.DB();
  try {
    db.exec(DSH_SCHEMA);
    db.exec(`PRAGMA application_id = ${opts.applicationId ?? 0x44534850}; PRAGMA user_version = ${opts.userVersion ?? 17};`);
    for (const s of sessions) insertStoreSession(db as unknown as SqlExec, s);
    return sqlite3.capi.sqlite3_js_db_export(db.pointer!);
  } finally {
    db.close();
  }
}

interface SqlExec {
  exec(opts: { sql: string; bind: unknown[] }): void;
}

/** The SQL statements (with bound values) that store one session, for the WASM DB or the CLI. */
export function storeRows(s: StoreSession): Array<{ sql: string; bind: unknown[] }> {
  const h = s.header;
  const out: Array<{ sql: string; bind: unknown[] }> = [
    {
      sql: 'INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?,?)',
      bind: [h.id, h.version, h.createdAt, h.cwd ?? null, h.parentSession ?? null, h.seedLength ?? null, h.origin ?? null, h.delegationDepth ?? null, h.agentPreset ?? null, 'incarnation', 1],
    },
  ];
  for (const r of s.records) {
    if (typeof r.__bad === 'number') {
      // a row whose data does not decode (contract tests of the corruption rule)
      out.push({ sql: 'INSERT INTO events VALUES (?,?,?,?,?,?,?,?)', bind: [h.id, r.__bad, 'user/message', 0, '{not json', null, null, null] });
      continue;
    }
    const packed = typeof r.seq0 === 'number';
    const text = JSON.stringify(r.data);
    let data: string | Uint8Array = text;
    if (Buffer.byteLength(text) >= 4096) {
      const blob = zstdFrame(text, { check: false });
      if (blob.length < Buffer.byteLength(text)) data = new Uint8Array(blob);
    }
    out.push({
      sql: 'INSERT INTO events VALUES (?,?,?,?,?,?,?,?)',
      bind: packed
        ? [h.id, r.seq0, r.type, r.time0, data, null, null, 0]
        : [
            h.id,
            r.seq,
            r.type,
            r.time,
            data,
            Array.isArray(r.sourceEventSeqs) ? encodeSourceEventSeqs(r.sourceEventSeqs as number[]) : null,
            r.surfaceOp !== undefined ? JSON.stringify(r.surfaceOp) : null,
            r.ignorable === true ? 1 : null,
          ],
    });
  }
  return out;
}

function insertStoreSession(db: SqlExec, s: StoreSession): void {
  for (const stmt of storeRows(s)) db.exec(stmt);
}

/** Writes a dsh store file built from raw logs (each with its own session id). */
export async function writeDshStore(path: string, sessions: StoreSession[], opts: { applicationId?: number; userVersion?: number } = {}): Promise<void> {
  writeFileSync(path, await dshStoreBytes(sessions, opts));
}

/** A SQL literal for the sqlite3 CLI (strings quoted, BLOBs as X'…', numbers as is). */
export function sqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return String(v);
  if (v instanceof Uint8Array) return `X'${Buffer.from(v).toString('hex')}'`;
  return `'${String(v).replace(/'/g, "''")}'`;
}

/** The statements of storeRows as one SQL script with literals (for the sqlite3 CLI). */
export function storeSql(s: StoreSession): string {
  return storeRows(s)
    .map(({ sql, bind }) => {
      let i = 0;
      return sql.replace(/\?/g, () => sqlLiteral(bind[i++])) + ';';
    })
    .join('\n');
}
