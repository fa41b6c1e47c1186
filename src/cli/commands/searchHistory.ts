// `session-loom search` (the full-text index over every session) and `session-loom history`
// (the agents' prompt histories: xcsh's database, Claude Code's and Codex's history.jsonl). Both
// read only: the index is a cache of ours in a cache directory, the history database is opened as
// a lock-free snapshot, a history.jsonl is only read.
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { defaultSessionRoots } from '../../core/discovery/discovery';
import { defaultAgentHistoryPaths, openAnyPromptHistory } from '../../core/history/agentPromptHistory';
import { locateAnyPrompt } from '../../core/history/agentPromptSessions';
import { defaultHistoryPaths, describeHistoryError, HistoryError, historyTimeIso, type HistoryEntry, type PromptHistory } from '../../core/history/promptHistory';
import { defaultClaudeHistoryPath } from '../../core/formats/claude/promptHistory';
import { defaultCodexHistoryPath } from '../../core/formats/codex/promptHistory';
import { indexPathFor } from '../../core/search/indexDb';
import { IndexLockedError } from '../../core/search/indexLock';
import { SessionSearchIndex } from '../../core/search/searchIndex';
import { hasPositiveTerms } from '../../core/search/queryLanguage';
import { markSnippet } from '../../core/search/snippet';
import { cliCacheDir } from '../ownWrites';
import { escapeForTerminal } from '../terminalText';
import { CliError, ensureDir, errorText, lookedIn, parse, requireDirectory, unexpectedArgument, UsageError, wrapText, writeJson, type Io } from '../util';
import { cliIndexCache } from './read';

export const USAGE = {
  search: 'usage: session-loom search <query> [--root <dir>]... [--index <dir>] [--limit N] [--json] [--pretty]',
  history: 'usage: session-loom history [--db <path>]... [--search <query>] [--cwd <dir>] [--limit N] [--locate] [--root <dir>]... [--json] [--pretty]',
};

/** The query language, one paragraph (wrapped where it is printed, `query: ` hanging). */
export const QUERY_HELP =
  'query: words (AND-ed, whole words), word* (prefix), "exact phrase", -exclude, role:user, tool:bash, project:<name>, agent:xcsh|dsh|claude|codex, after:2026-06-01, before:2026-07-01';

async function requireDirs(dirs: readonly string[]): Promise<void> {
  for (const d of dirs) await requireDirectory(d);
}

function limitOf(v: string | boolean | undefined, usage: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (typeof v !== 'string' || !Number.isInteger(n) || n < 1) throw new UsageError(`--limit expects a positive whole number\n${usage}`);
  return n;
}

export async function searchCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(
    argv,
    { root: { type: 'string', multiple: true }, index: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' }, pretty: { type: 'boolean' } },
    USAGE.search,
  );
  if (values.help) {
    io.out(`${USAGE.search}\n${wrapText(QUERY_HELP, { hang: ' '.repeat('query: '.length) })}\n`);
    return 0;
  }
  const query = positionals.join(' ').trim();
  if (query === '') throw new UsageError(`missing <query>\n${USAGE.search}`);
  const rootOpt = (values.root as unknown as string[] | undefined)?.map((r) => resolve(r));
  if (rootOpt) await requireDirs(rootOpt);
  const roots = rootOpt && rootOpt.length > 0 ? rootOpt : defaultSessionRoots();
  const limit = limitOf(values.limit, USAGE.search, 20);
  const indexPath = typeof values.index === 'string' ? join(resolve(values.index), 'index.db') : indexPathFor(cliCacheDir(), roots);
  // The folder named by --index (or the cache's), made here: a folder that cannot be made or used
  // is named as the search index folder, not blamed on the query.
  const indexDir = typeof values.index === 'string' ? values.index : dirname(indexPath);
  await ensureDir(indexDir, 'the search index folder');
  let index: SessionSearchIndex;
  try {
    index = await SessionSearchIndex.open(indexPath);
  } catch (e) {
    if (e instanceof IndexLockedError) throw new CliError(`${e.message}; try again when it is done`, null, 0);
    throw new CliError(`cannot open the search index: ${errorText(e)}`, indexDir, 0);
  }
  try {
    const fresh = index.fresh;
    if (fresh) io.err(`building the search index in ${escapeForTerminal(indexPath)} (first use)…\n`);
    const upd = await index.update(roots);
    if (fresh) io.err(`indexed ${upd.files} sessions (${upd.rows} entries) in ${(upd.ms / 1000).toFixed(1)} s\n`);
    const out = await index.search(query, { entriesPerSession: 3, detailedSessions: limit });
    for (const p of out.results.problems) io.err(`session-loom: ${escapeForTerminal(p)}\n`);
    // Only filters, or only exclusions: nothing the index can look up.
    if (!hasPositiveTerms(out.query)) return 2;
    const sessions = out.results.sessions.slice(0, limit).map((s) => ({
      file: s.file,
      cwd: s.cwd,
      title: s.title,
      matches: s.matches,
      titleMatch: s.titleMatch,
      agent: s.agent,
      entries: (out.entries[s.file] ?? []).map((e) => ({ entryId: e.entryId || null, time: e.time === null ? null : new Date(e.time).toISOString(), snippet: e.snippet.text, highlights: e.snippet.ranges })),
    }));
    // Nothing found: exit 0, and where it looked on stderr (as ls and history), in both modes.
    if (sessions.length === 0) {
      const indexed = index.info().files;
      io.err(await lookedIn(`no session matches ${escapeForTerminal(JSON.stringify(query))} (${indexed} session${indexed === 1 ? '' : 's'} searched)`, roots));
    }
    if (values.json) {
      writeJson(io, { query, sessions, totalSessions: out.results.sessions.length, matchingEntries: out.results.rows, approximate: out.results.approximate, ms: Math.round(out.ms * 10) / 10 }, values.pretty === true);
      return 0;
    }
    if (sessions.length === 0) return 0;
    for (const s of sessions) {
      const what = s.matches > 0 ? `${s.matches} match${s.matches === 1 ? '' : 'es'}` : 'title matches';
      io.out(`${escapeForTerminal(s.file)}  (${what}${s.cwd ? `, ${escapeForTerminal(s.cwd)}` : ''})\n`);
      for (const e of out.entries[s.file] ?? []) io.out(`  ${e.entryId || '(title)'}  ${escapeForTerminal(markSnippet(e.snippet))}\n`);
    }
    const more = out.results.sessions.length - sessions.length;
    io.err(`${out.results.sessions.length} session${out.results.sessions.length === 1 ? '' : 's'}${more > 0 ? ` (${more} more: --limit)` : ''}, ${out.results.rows} matching entries, ${out.ms.toFixed(1)} ms\n`);
    return 0;
  } finally {
    index.close();
  }
}

/** The text listing's time column for a row without a usable created_at (as wide as a time). */
const UNKNOWN_TIME = 'unknown time'.padEnd('2026-01-01 00:00:00'.length);

async function firstExisting(paths: readonly string[]): Promise<string | null> {
  for (const p of paths) if (await stat(p).catch(() => null)) return p;
  return null;
}

export async function historyCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      db: { type: 'string', multiple: true },
      search: { type: 'string' },
      cwd: { type: 'string' },
      limit: { type: 'string' },
      locate: { type: 'boolean' },
      root: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      pretty: { type: 'boolean' },
    },
    USAGE.history,
  );
  if (values.help) {
    io.out(
      `${USAGE.history}\n  --db: xcsh's history.db, or a Claude Code or Codex history.jsonl (default: each agent's own)\n  --search: words, each a prefix (a database: through its own FTS5 index, ranked)\n  --locate: also find the session and entry where each prompt was sent\n`,
    );
    return 0;
  }
  if (positionals.length > 0) throw unexpectedArgument(positionals[0]!, USAGE.history);
  const limit = limitOf(values.limit, USAGE.history, 50);
  // The agents' own histories: xcsh's database (the first of ~/.xcsh, ~/.omp, ~/.pi there is), then
  // Claude Code's and Codex's history.jsonl. None there is "nothing found", exit 0 with where it
  // looked on stderr (as ls); a history named by --db must exist.
  const named = (values.db as unknown as string[] | undefined)?.map((p) => resolve(p));
  let paths: string[];
  if (named && named.length > 0) paths = named;
  else {
    const db = await firstExisting(defaultHistoryPaths());
    paths = [...(db ? [db] : []), ...defaultAgentHistoryPaths()];
  }
  if (paths.length === 0) {
    io.err(await lookedIn('no prompt history found', [...defaultHistoryPaths(), defaultClaudeHistoryPath(), defaultCodexHistoryPath()]));
    if (values.json) writeJson(io, { db: null, sources: [], walFrames: 0, total: 0, entries: [] }, values.pretty === true);
    return 0;
  }
  const histories: PromptHistory[] = [];
  try {
    for (const p of paths) {
      try {
        histories.push(await openAnyPromptHistory(p));
      } catch (e) {
        if (e instanceof HistoryError) throw new CliError(describeHistoryError(e), null, 0);
        throw e;
      }
    }
    const query = { ...(typeof values.search === 'string' ? { search: values.search } : {}), ...(typeof values.cwd === 'string' ? { cwd: resolve(values.cwd) } : {}), limit };
    // Ranked (a search) or newest first; several histories interleave by the same order (as the view).
    const found: { entry: HistoryEntry; h: PromptHistory; rank: number }[] = [];
    for (const h of histories) {
      let got;
      try {
        got = h.query(query);
      } catch (e) {
        // Damage the schema read did not reach (a page of rows): one sentence, like the other damage.
        throw new CliError(describeHistoryError(new HistoryError('corrupt', h.path, errorText(e))), null, 0);
      }
      if (typeof values.search === 'string' && !got.usedFts) io.err(`${escapeForTerminal(h.path)}: no FTS5 index (history_fts) usable: searched by substring\n`);
      got.entries.forEach((entry, rank) => found.push({ entry, h, rank }));
    }
    const search = typeof values.search === 'string';
    found.sort((a, b) => (search ? a.rank - b.rank : 0) || (b.entry.createdAt ?? -Infinity) - (a.entry.createdAt ?? -Infinity));
    const several = histories.length > 1;
    const rootOpt = (values.root as unknown as string[] | undefined)?.map((r) => resolve(r));
    const roots = rootOpt && rootOpt.length > 0 ? rootOpt : defaultSessionRoots();
    const rows = [];
    for (const { entry: e, h } of found.slice(0, limit)) {
      // A row whose created_at is no time (text, NULL, out of range) is listed with createdAt null.
      const row: Record<string, unknown> = { id: e.id, prompt: e.prompt, createdAt: historyTimeIso(e.createdAt), cwd: e.cwd };
      if (several || h.agent !== 'xcsh') Object.assign(row, { agent: h.agent, source: h.path });
      if (e.sessionId !== undefined) row.sessionId = e.sessionId;
      if (values.locate) {
        const at = await locateAnyPrompt(e, roots, cliIndexCache());
        row.session = at ? { file: at.file, entryId: at.entryId } : null;
      }
      rows.push(row);
    }
    if (rows.length === 0) io.err(`${histories.map((h) => escapeForTerminal(h.path)).join(', ')}: no prompt ${typeof values.search === 'string' || typeof values.cwd === 'string' ? 'matches' : 'in it yet'}\n`);
    if (values.json) {
      const total = histories.reduce((n, h) => n + h.count(), 0);
      const walFrames = histories.reduce((n, h) => n + h.walFrames, 0);
      writeJson(io, { db: histories[0]!.path, sources: histories.map((h) => ({ path: h.path, agent: h.agent, total: h.count() })), walFrames, total, entries: rows }, values.pretty === true);
      return 0;
    }
    for (const r of rows) {
      const where = r.session === undefined ? '' : r.session === null ? '  (no session holds it any more)' : `  → ${(r.session as { file: string; entryId: string }).file}#${(r.session as { entryId: string }).entryId}`;
      const when = typeof r.createdAt === 'string' ? r.createdAt.slice(0, 19).replace('T', ' ') : UNKNOWN_TIME;
      const agent = several ? `${String(r.agent).padEnd(6)}  ` : '';
      io.out(`${when}  ${agent}${escapeForTerminal(String(r.cwd ?? '-'))}  ${escapeForTerminal(String(r.prompt).replace(/\s+/g, ' ').slice(0, 200))}${escapeForTerminal(where)}\n`);
    }
    return 0;
  } finally {
    for (const h of histories) h.close();
  }
}
