// Queries against the search index: which sessions match (grouped by the rowid ranges of their
// files), and a session's matching entries with snippets read from the real file, so a
// result always names the entry as it is on disk now.
import { closeSync, openSync, readSync } from 'node:fs';
import type { ViewEntry } from '../tree/treeView';
import { ROWS_PER_FILE, selectRows, type Db } from './indexDb';
import { ftsMatchExpression, needsTextCheck, textCheck, type SearchQuery } from './queryLanguage';
import { entrySearchFields } from './searchText';
import { dshRowText, isDshSurfaceRecord } from './dshSearch';
import { codexRowText, rolloutRange, type RolloutText } from './codexSearch';
import { claudeRowText } from './claudeSearch';
import { startsWithZstdMagic, type SessionFormat } from '../formats/detect';
import { makeSnippet, type Snippet } from './snippet';

export interface SessionHit {
  file: string;
  cwd: string | null;
  title: string | null;
  /** Matching entry rows (the title row not counted). */
  matches: number;
  /** The session's title matches. */
  titleMatch: boolean;
  /** The agent that wrote it (null: not known to this index). */
  agent: SessionFormat | null;
}

export interface SessionResults {
  sessions: SessionHit[];
  /** Matching rows over all sessions. */
  rows: number;
  /** Counting stopped (COUNT_LIMIT matches, CHECK_LIMIT phrase candidates): counts are bounds, the newest sessions shown. */
  approximate: boolean;
  /** Why nothing could be searched (no word in the query), in English. */
  problems: string[];
}

export interface EntryHit {
  /** The entry to open ('' for the session's title). */
  entryId: string;
  time: number | null;
  snippet: Snippet;
}

// No bm25: with detail=none on a contentless table FTS5 knows no term frequency, so bm25() is 0
// for every row (test: "bm25 is 0 for every row of the index"), yet each statement that asks for
// it first walks every posting of every query term to weigh it — on a common word a full pass over
// millions of rows, once per session asked. Sessions are ordered by title match, match count and
// recency; a session's entries in file order.
// Joins with `entries` are written `fts CROSS JOIN entries`: SQLite then runs the FTS5 query as
// the outer loop and looks rows up by id. Left to itself it drives a plain join from `entries`
// and probes the index once per entry — ten times slower.
/** Matches counted at most (the newest ones): beyond, counts are lower bounds. */
const COUNT_LIMIT = 20_000;
/** Phrases are checked on the real text of at most this many candidate rows. */
const CHECK_LIMIT = 1_000;

interface FileInfo {
  id: number;
  path: string;
  cwd: string | null;
  title: string | null;
  mtime: number;
  agent: SessionFormat | null;
}

/** The files table as read by the last query, while nothing was written since (total_changes() says). */
const fileInfoCache = new WeakMap<Db, { changes: number; files: Map<number, FileInfo> }>();

function fileInfos(db: Db): Map<number, FileInfo> {
  const changes = Number(db.selectValue('SELECT total_changes()'));
  const hit = fileInfoCache.get(db);
  if (hit && hit.changes === changes) return hit.files;
  const out = new Map<number, FileInfo>();
  for (const r of selectRows<FileInfo>(db, 'SELECT id, path, cwd, title, mtime, agent FROM files', [], ['id', 'path', 'cwd', 'title', 'mtime', 'agent'])) out.set(r.id, r);
  fileInfoCache.set(db, { changes, files: out });
  return out;
}

/** The files a `project:` filter keeps (cwd or path contains one of the names), or null for all. */
function projectFilter(q: SearchQuery, files: Map<number, FileInfo>): Set<number> | null {
  if (q.projects.length === 0) return null;
  const keep = new Set<number>();
  for (const f of files.values()) {
    const hay = `${f.cwd ?? ''}\n${f.path}`.toLowerCase();
    if (q.projects.some((p) => hay.includes(p))) keep.add(f.id);
  }
  return keep;
}

function timeClause(q: SearchQuery): { sql: string; bind: number[] } {
  const parts: string[] = [];
  const bind: number[] = [];
  if (q.after !== null) {
    parts.push('e.ts >= ?');
    bind.push(q.after);
  }
  if (q.before !== null) {
    parts.push('e.ts < ?');
    bind.push(q.before);
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(''), bind };
}

/** Reads byte ranges of files, each file opened once. */
export class RangeReader {
  private readonly fds = new Map<string, number>();
  /** Rollouts met by this reader: compressed ones are decoded once (codexSearch.ts). */
  readonly rollouts = new Map<string, RolloutText>();

  read(path: string, off: number, len: number): Buffer | null {
    let fd = this.fds.get(path);
    try {
      if (fd === undefined) {
        fd = openSync(path, 'r');
        this.fds.set(path, fd);
      }
      const buf = Buffer.alloc(len);
      let got = 0;
      while (got < len) {
        const n = readSync(fd, buf, got, len - got, off + got);
        if (n === 0) break;
        got += n;
      }
      return got === len ? buf : null;
    } catch {
      return null;
    }
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

/**
 * The searchable text of the record at a byte range ('' when it no longer parses). `eid` is the
 * row's entry id: a dsh zstd row's bytes are the whole frame holding its record, and the seq in
 * the id picks the record (dshSearch.ts); a Codex row's id names its line. `agent`: the file's
 * (a Codex or Claude Code line is read by its own format's rules).
 */
export function rowText(reader: RangeReader, path: string, off: number, len: number, isTitle: boolean, eid = '', agent: SessionFormat | null = null): string {
  if (agent === 'codex') {
    const rec = isTitle ? null : rolloutRange((p, o, l) => reader.read(p, o, l), reader.rollouts, path, off, len);
    return rec ? codexRowText(rec, eid) : '';
  }
  const buf = reader.read(path, off, len);
  if (!buf) return '';
  if (agent === 'claude') return claudeRowText(buf, isTitle);
  if (startsWithZstdMagic(buf)) return dshRowText(buf, eid, isTitle);
  try {
    const v = JSON.parse(buf.toString('utf8')) as Record<string, unknown>;
    // A raw dsh log's row: a surface event (or session/title) line; an xcsh entry type has no slash.
    if (isDshSurfaceRecord(v) || v.type === 'session/title') return dshRowText(buf, eid, isTitle);
    if (isTitle) return typeof v.title === 'string' ? v.title : '';
    // A v1 (or hand-made) record has no id in the file: the index gave its row the id made in
    // memory (Part C §10), and its text does not depend on the id, so any id reads it.
    const e = typeof v.id === 'string' ? v : { ...v, id: '' };
    return entrySearchFields(e as ViewEntry)?.body ?? '';
  } catch {
    return '';
  }
}

/** How many of a session's first matching rows querySessions keeps for topEntryHits. */
const FIRST_ROWS = 16;

/**
 * Each session's first matching rows (rowids, in file order), as the query that counted them saw
 * them: the entries of the first page are read from these, without asking FTS5 again per
 * session (a prefix or a phrase's words would be looked up once more for each).
 */
const firstRowsOf = new WeakMap<SessionResults, Map<number, number[]>>();

/** The sessions that match, best first. */
export function querySessions(db: Db, q: SearchQuery): SessionResults {
  const expr = ftsMatchExpression(q);
  if (expr === null) return { sessions: [], rows: 0, approximate: false, problems: ['the query has no word to look up (add a word, a "phrase", role:, tool: or agent:)'] };
  const files = fileInfos(db);
  const allowed = projectFilter(q, files);
  const time = timeClause(q);
  const groups = new Map<number, { n: number; title: boolean }>();
  const firstRows = new Map<number, number[]>();
  const keepRow = (fid: number, rowid: number): void => {
    const list = firstRows.get(fid);
    if (!list) firstRows.set(fid, [rowid]);
    else if (list.length < FIRST_ROWS) list.push(rowid);
  };
  let approximate = false;
  let rows = 0;

  if (needsTextCheck(q)) {
    // Candidates by their words, then the phrase checked on the real text.
    const cand = selectRows<{ id: number; eid: string; off: number; len: number }>(
      db,
      `SELECT e.id AS id, e.eid AS eid, e.off AS off, e.len AS len FROM fts CROSS JOIN entries e ON e.id = fts.rowid WHERE fts MATCH ?${time.sql} ORDER BY fts.rowid LIMIT ?`,
      [expr, ...time.bind, CHECK_LIMIT + 1],
      ['id', 'eid', 'off', 'len'],
    ).sort((a, b) => a.id - b.id);
    if (cand.length > CHECK_LIMIT) {
      approximate = true;
      cand.length = CHECK_LIMIT;
    }
    const reader = new RangeReader();
    try {
      for (const c of cand) {
        const fid = Math.floor(c.id / ROWS_PER_FILE);
        const f = files.get(fid);
        if (!f || (allowed && !allowed.has(fid))) continue;
        const isTitle = c.id % ROWS_PER_FILE === 0;
        if (!textCheck(rowText(reader, f.path, c.off, c.len, isTitle, c.eid, f.agent), q)) continue;
        const g = groups.get(fid) ?? { n: 0, title: false };
        if (isTitle) g.title = true;
        else g.n++;
        groups.set(fid, g);
        keepRow(fid, c.id);
        rows++;
      }
    } finally {
      reader.close();
    }
  } else {
    // Counted over the newest COUNT_LIMIT matches at most: FTS5 walks a common word's postings
    // lazily in rowid order, so a query stops there instead of visiting millions of rows; beyond
    // it the counts are lower bounds (and say so). Newer files have lower ids (indexUpdate.ts):
    // ascending is the order FTS5 reads cheaply (backwards, it first loads whole doclists).
    const inner =
      time.bind.length > 0
        ? `SELECT fts.rowid AS r FROM fts CROSS JOIN entries e ON e.id = fts.rowid WHERE fts MATCH ?${time.sql} ORDER BY fts.rowid LIMIT ${COUNT_LIMIT + 1}`
        : `SELECT rowid AS r FROM fts WHERE fts MATCH ? ORDER BY rowid LIMIT ${COUNT_LIMIT + 1}`;
    const counted = selectRows<{ f: number; n: number; title: number; rs: string }>(
      db,
      `SELECT m.r / ${ROWS_PER_FILE} AS f, count(*) AS n, min(m.r % ${ROWS_PER_FILE}) = 0 AS title, group_concat(m.r) AS rs FROM (${inner}) m GROUP BY f`,
      [expr, ...time.bind],
      ['f', 'n', 'title', 'rs'],
    );
    let seen = 0;
    for (const c of counted) {
      seen += c.n;
      if (allowed && !allowed.has(c.f)) continue;
      groups.set(c.f, { n: c.n - (c.title ? 1 : 0), title: c.title === 1 });
      rows += c.n;
      // group_concat keeps no promised order: sort (a session's matches are few or capped anyway).
      firstRows.set(c.f, c.rs.split(',').map(Number).sort((a, b) => a - b).slice(0, FIRST_ROWS));
    }
    if (seen > COUNT_LIMIT) approximate = true;
  }

  const sessions: SessionHit[] = [];
  for (const [fid, g] of groups) {
    const f = files.get(fid);
    if (!f) continue;
    sessions.push({ file: f.path, cwd: f.cwd, title: f.title, matches: g.n, titleMatch: g.title, agent: f.agent });
  }
  const mtime = (s: SessionHit): number => files.get(idOf(files, s.file))?.mtime ?? 0;
  sessions.sort((a, b) => Number(b.titleMatch) - Number(a.titleMatch) || b.matches - a.matches || mtime(b) - mtime(a));
  const results: SessionResults = { sessions, rows, approximate, problems: [] };
  firstRowsOf.set(results, firstRows);
  return results;
}

const idCache = new WeakMap<Map<number, FileInfo>, Map<string, number>>();
function idOf(files: Map<number, FileInfo>, path: string): number {
  let m = idCache.get(files);
  if (!m) {
    m = new Map([...files.values()].map((f) => [f.path, f.id]));
    idCache.set(files, m);
  }
  return m.get(path) ?? -1;
}

/** The file id of an indexed path, or null. */
export function fileIdOf(db: Db, path: string): number | null {
  const v = db.selectValue('SELECT id FROM files WHERE path = ?', [path]);
  return typeof v === 'number' ? v : null;
}

/** What a query over one session's rows needs (its rowid range from `lo`), or null when it can match nothing there. */
function sessionScope(db: Db, q: SearchQuery, path: string): { expr: string; time: { sql: string; bind: number[] }; lo: number; check: boolean; agent: SessionFormat | null } | null {
  const expr = ftsMatchExpression(q);
  const fid = fileIdOf(db, path);
  if (expr === null || fid === null) return null;
  return { expr, time: timeClause(q), lo: fid * ROWS_PER_FILE, check: needsTextCheck(q), agent: fileInfos(db).get(fid)?.agent ?? null };
}

/**
 * A session's matching entries in file order, each with a snippet of its current text. Rows whose
 * bytes no longer read as an entry (the file changed since it was indexed) are left out.
 */
export function sessionEntryHits(db: Db, q: SearchQuery, path: string, limit: number): EntryHit[] {
  const scope = sessionScope(db, q, path);
  if (scope === null) return [];
  const { expr, time, lo, check, agent } = scope;
  // The FTS5 query alone, then its rows' details: joined in one statement, SQLite drives the
  // join from `entries` and probes the index row by row (ten times slower).
  const want = check ? CHECK_LIMIT : limit;
  type Row = { id: number; eid: string; ts: number | null; off: number; len: number };
  const rows = selectRows<Row>(
    db,
    time.bind.length > 0
      ? `SELECT e.id AS id, e.eid AS eid, e.ts AS ts, e.off AS off, e.len AS len FROM (SELECT rowid AS r FROM fts WHERE fts MATCH ? AND rowid >= ? AND rowid < ?) m CROSS JOIN entries e ON e.id = m.r WHERE 1${time.sql} ORDER BY m.r LIMIT ?`
      : `SELECT e.id AS id, e.eid AS eid, e.ts AS ts, e.off AS off, e.len AS len FROM (SELECT rowid AS r FROM fts WHERE fts MATCH ? AND rowid >= ? AND rowid < ? ORDER BY rowid LIMIT ?) m CROSS JOIN entries e ON e.id = m.r`,
    time.bind.length > 0 ? [expr, lo, lo + ROWS_PER_FILE, ...time.bind, want] : [expr, lo, lo + ROWS_PER_FILE, want],
    ['id', 'eid', 'ts', 'off', 'len'],
  ).sort((a, b) => a.id - b.id);
  const reader = new RangeReader();
  const out: EntryHit[] = [];
  try {
    for (const r of rows) {
      if (out.length >= limit) break;
      const text = rowText(reader, path, r.off, r.len, r.id === lo, r.eid, agent);
      if (check && !textCheck(text, q)) continue;
      out.push({ entryId: r.eid, time: r.ts, snippet: makeSnippet(text, q) });
    }
  } finally {
    reader.close();
  }
  return out;
}

/**
 * The first `per` matching entries of each of these sessions (from `results` of querySessions for
 * the same query), with snippets of their current text.
 */
export function topEntryHits(db: Db, q: SearchQuery, results: SessionResults, paths: readonly string[], per: number): Record<string, EntryHit[]> {
  const out: Record<string, EntryHit[]> = {};
  const firstRows = firstRowsOf.get(results);
  if (paths.length === 0 || per <= 0) return out;
  if (!firstRows || per > FIRST_ROWS) {
    for (const p of paths) out[p] = sessionEntryHits(db, q, p, per);
    return out;
  }
  const files = fileInfos(db);
  const byPath = new Map([...files.values()].map((f) => [f.path, f.id]));
  const want: number[] = [];
  for (const p of paths) {
    const fid = byPath.get(p);
    if (fid !== undefined) want.push(...(firstRows.get(fid) ?? []));
  }
  if (want.length === 0) return out;
  const found = new Map(
    selectRows<{ id: number; eid: string; ts: number | null; off: number; len: number }>(db, `SELECT id, eid, ts, off, len FROM entries WHERE id IN (${want.map(() => '?').join(',')})`, want, ['id', 'eid', 'ts', 'off', 'len']).map((r) => [r.id, r]),
  );
  const check = needsTextCheck(q);
  const reader = new RangeReader();
  try {
    for (const p of paths) {
      const fid = byPath.get(p);
      if (fid === undefined) continue;
      const list: EntryHit[] = [];
      for (const id of firstRows.get(fid) ?? []) {
        if (list.length >= per) break;
        const r = found.get(id);
        if (!r) continue;
        const text = rowText(reader, p, r.off, r.len, id % ROWS_PER_FILE === 0, r.eid, files.get(fid)?.agent ?? null);
        if (check && !textCheck(text, q)) continue;
        list.push({ entryId: r.eid, time: r.ts, snippet: makeSnippet(text, q) });
      }
      out[p] = list;
    }
  } finally {
    reader.close();
  }
  return out;
}

/** Every matching entry id of a session (what the Sessions view's branch tree shows), up to `limit`. */
export function sessionMatchIds(db: Db, q: SearchQuery, path: string, limit = 100_000): string[] {
  const scope = sessionScope(db, q, path);
  if (scope === null) return [];
  const { expr, time, lo, check, agent } = scope;
  const rows = selectRows<{ id: number; eid: string; off: number; len: number }>(
    db,
    `SELECT e.id AS id, e.eid AS eid, e.off AS off, e.len AS len FROM (SELECT rowid AS r FROM fts WHERE fts MATCH ? AND rowid > ? AND rowid < ?) m CROSS JOIN entries e ON e.id = m.r WHERE 1${time.sql} ORDER BY m.r LIMIT ?`,
    [expr, lo, lo + ROWS_PER_FILE, ...time.bind, limit],
    ['id', 'eid', 'off', 'len'],
  ).sort((a, b) => a.id - b.id);
  if (!check) return [...new Set(rows.map((r) => r.eid))];
  const reader = new RangeReader();
  try {
    return [...new Set(rows.filter((r) => textCheck(rowText(reader, path, r.off, r.len, false, r.eid, agent), q)).map((r) => r.eid))];
  } finally {
    reader.close();
  }
}
