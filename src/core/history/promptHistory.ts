// The agents' prompt history (spec Part A "Related but separate: prompt history"): the SQLite
// database `~/.xcsh/agent/history.db` (oh-my-pi and pi keep theirs under ~/.omp/agent/ and
// ~/.pi/agent/) with the table `history(id, prompt, created_at, cwd)` — created_at in epoch
// seconds — and the FTS5 index `history_fts` (external content, kept by a trigger).
//
// Read-only and lock-free through src/core/store/sqliteSnapshot.ts: the agent may be writing it;
// committed rows still in its `-wal` show, an uncommitted transaction does not, nothing is ever
// written (no -shm, no lock). What cannot be read is a typed HistoryError the view and the CLI
// turn into one clear sentence.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { english, type Translate } from '../l10n';
import { openSqliteSnapshot, SqliteSnapshotError, type SqliteReadonlyDb } from '../store/sqliteSnapshot';

export type HistoryErrorCode = 'missing' | 'not-sqlite' | 'corrupt' | 'locked' | 'foreign' | 'unreadable';

export class HistoryError extends Error {
  constructor(
    readonly code: HistoryErrorCode,
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = 'HistoryError';
  }
}

/** One sentence for the user about a history database that cannot be shown. */
export function describeHistoryError(e: HistoryError, l10nT: Translate = english): string {
  switch (e.code) {
    case 'missing':
      return l10nT('No prompt history yet: {0} does not exist.', e.path);
    case 'not-sqlite':
      return l10nT('{0} is not an SQLite database, so it is not a prompt history.', e.path);
    case 'corrupt':
      return l10nT('The prompt history {0} is damaged and cannot be read ({1}).', e.path, e.detail);
    case 'locked':
      return l10nT('The prompt history {0} kept changing while it was read (the agent is writing it); try again.', e.path);
    case 'foreign':
      return l10nT('{0} is an SQLite database but not a prompt history ({1}).', e.path, e.detail);
    case 'unreadable':
      return l10nT('The prompt history {0} cannot be read: {1}', e.path, e.detail);
  }
}

export interface HistoryEntry {
  id: number;
  prompt: string;
  /**
   * Epoch seconds (the agent's `created_at`); null when the row holds no usable time (text such
   * as 'yesterday', NULL, or a number no date can carry): the row is still listed, its time unknown.
   */
  createdAt: number | null;
  cwd: string | null;
  /**
   * A prompt of Claude Code's or Codex's `history.jsonl` (agentPromptHistory.ts): the agent, the
   * session (Claude's `sessionId`, Codex's thread id) it was sent in, and the agent's home folder
   * (where its sessions are). Absent for xcsh's database.
   */
  agent?: 'claude' | 'codex';
  sessionId?: string | null;
  home?: string;
}

export interface HistoryQuery {
  /** FTS words, each a prefix ("git comm" finds "git commit …"); empty for the newest prompts. */
  search?: string;
  /** Only prompts sent from this working directory. */
  cwd?: string;
  limit?: number;
}

/** Where the agents keep their prompt history, the xcsh one first; only the omp/pi ones that exist. */
export function defaultHistoryPaths(home: string = homedir()): string[] {
  const out = [join(home, '.xcsh', 'agent', 'history.db')];
  for (const alt of ['.omp', '.pi']) {
    const p = join(home, alt, 'agent', 'history.db');
    if (existsSync(p)) out.push(p);
  }
  return out;
}

/** The FTS5 query the agent itself builds: each whitespace-separated token a quoted prefix. */
export function historyFtsQuery(search: string): string | null {
  const tokens = search.trim().split(/\s+/).filter(Boolean);
  if (tokens.length === 0) return null;
  return tokens.map((t) => `"${t.replace(/"/g, '""')}"*`).join(' ');
}

export interface PromptHistory {
  path: string;
  /** Which agent keeps it: xcsh's (pi's, oh-my-pi's) database, or Claude Code's or Codex's history.jsonl. */
  agent: 'xcsh' | 'claude' | 'codex';
  /** The database has the FTS5 index (else search falls back to LIKE, and says so). */
  hasFts: boolean;
  /** Rows in the WAL that were applied (committed but not checkpointed). */
  walFrames: number;
  /** A hot rollback journal (a writer killed mid-transaction) was played back in memory: what SQLite reads. */
  hotJournal: boolean;
  /** Damage the snapshot worked around (a WAL commit claiming more than the files hold…), one sentence each. */
  problems: string[];
  mtimeMs: number;
  /** `usedFts`: the search matched words by their starts (FTS5, or a history.jsonl's own word match); false: by substring. */
  query(q: HistoryQuery): { entries: HistoryEntry[]; usedFts: boolean };
  /** Every working directory with its prompt count, most prompts first. */
  cwds(): { cwd: string | null; count: number }[];
  count(): number;
  close(): void;
}

const MAX_LIMIT = 10_000;

/** The latest time a JavaScript Date holds, in seconds (ECMAScript: ±8.64e15 ms). */
const MAX_DATE_SECONDS = 8.64e12;

/**
 * A `created_at` as epoch seconds, or null when it is none: SQLite's column types are advisory, so
 * a row can hold text ('yesterday'), NULL, or a number past what a date can carry (99999999999999),
 * which `new Date(x * 1000).toISOString()` would throw on. A number written as text ('1780308060') counts.
 */
export function historyTime(value: unknown): number | null {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'bigint') n = Number(value);
  else if (typeof value === 'string' && /^\s*[-+]?\d+(\.\d+)?\s*$/.test(value)) n = Number(value);
  else return null;
  return Number.isFinite(n) && Math.abs(n) <= MAX_DATE_SECONDS ? n : null;
}

/** The ISO time of a history row, or null when it has none (historyTime). */
export function historyTimeIso(createdAt: number | null): string | null {
  return createdAt === null ? null : new Date(createdAt * 1000).toISOString();
}

function toEntry(r: Record<string, unknown>): HistoryEntry {
  return { id: Number(r.id), prompt: String(r.prompt ?? ''), createdAt: historyTime(r.created_at), cwd: typeof r.cwd === 'string' && r.cwd !== '' ? r.cwd : null };
}

/** Opens a snapshot of the history database. Throws HistoryError. */
export async function openPromptHistory(path: string): Promise<PromptHistory> {
  let db: SqliteReadonlyDb;
  try {
    db = await openSqliteSnapshot(path);
  } catch (e) {
    if (e instanceof SqliteSnapshotError) {
      const code: HistoryErrorCode = e.code === 'unstable' ? 'locked' : e.code;
      throw new HistoryError(code, path, e.message.replace(`${path}: `, ''));
    }
    throw new HistoryError('unreadable', path, (e as Error).message);
  }
  try {
    const tables = new Set(db.all("SELECT name FROM sqlite_schema WHERE type = 'table'").map((r) => String(r.name)));
    if (!tables.has('history')) throw new HistoryError('foreign', path, 'it has no "history" table');
    const cols = new Set(db.all('PRAGMA table_info(history)').map((r) => String(r.name)));
    const missing = ['id', 'prompt', 'created_at'].filter((c) => !cols.has(c));
    if (missing.length > 0) throw new HistoryError('foreign', path, `its "history" table has no ${missing.join(', ')} column`);
    const hasCwd = cols.has('cwd');
    const hasFts = tables.has('history_fts');
    const cwdCol = hasCwd ? 'h.cwd' : 'NULL';
    const select = `SELECT h.id AS id, h.prompt AS prompt, h.created_at AS created_at, ${cwdCol} AS cwd FROM history h`;
    return {
      path,
      agent: 'xcsh',
      hasFts,
      walFrames: db.snapshot.walFramesApplied,
      hotJournal: db.snapshot.hotJournal,
      problems: db.snapshot.problems,
      mtimeMs: db.snapshot.mtimeMs,
      query(q) {
        const limit = Math.max(1, Math.min(MAX_LIMIT, Math.floor(q.limit ?? 500)));
        const where: string[] = [];
        const bind: unknown[] = [];
        if (q.cwd !== undefined && hasCwd) {
          where.push('h.cwd = ?');
          bind.push(q.cwd);
        }
        const fts = q.search ? historyFtsQuery(q.search) : null;
        if (fts && hasFts) {
          try {
            // Ranked by FTS5's bm25, newest first among equals.
            const rows = db.all(
              `${select} JOIN history_fts f ON f.rowid = h.id WHERE history_fts MATCH ?${where.map((w) => ` AND ${w}`).join('')} ORDER BY f.rank, h.created_at DESC, h.id DESC LIMIT ?`,
              [fts, ...bind, limit],
            );
            return { entries: rows.map(toEntry), usedFts: true };
          } catch {
            // A query FTS5 cannot parse: the substring search below.
          }
        }
        if (q.search && q.search.trim() !== '') {
          for (const t of q.search.trim().split(/\s+/)) {
            where.push("h.prompt LIKE ? ESCAPE '\\'");
            bind.push(`%${t.replace(/[\\%_]/g, '\\$&')}%`);
          }
        }
        const rows = db.all(`${select}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY h.created_at DESC, h.id DESC LIMIT ?`, [...bind, limit]);
        return { entries: rows.map(toEntry), usedFts: false };
      },
      cwds() {
        if (!hasCwd) return [{ cwd: null, count: Number(db.value('SELECT count(*) FROM history')) }];
        return db.all('SELECT cwd, count(*) AS n FROM history GROUP BY cwd ORDER BY n DESC, cwd').map((r) => ({ cwd: typeof r.cwd === 'string' && r.cwd !== '' ? r.cwd : null, count: Number(r.n) }));
      },
      count: () => Number(db.value('SELECT count(*) FROM history')),
      close: () => db.close(),
    };
  } catch (e) {
    db.close();
    if (e instanceof HistoryError) throw e;
    throw new HistoryError('corrupt', path, (e as Error).message);
  }
}

/** The local day (YYYY-MM-DD) of an epoch-seconds time, for grouping by day. */
export function dayOf(createdAt: number, tzOffsetMinutes = new Date(createdAt * 1000).getTimezoneOffset()): string {
  return new Date(createdAt * 1000 - tzOffsetMinutes * 60_000).toISOString().slice(0, 10);
}
