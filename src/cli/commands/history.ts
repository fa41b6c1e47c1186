// `session-loom history`: the agents' prompt histories (xcsh's database, Claude Code's and Codex's
// history.jsonl), read only: the history database is opened as a lock-free snapshot, a
// history.jsonl is only read.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { defaultSessionRoots } from '../../core/discovery/roots';
import { defaultAgentHistoryPaths, openAnyPromptHistory } from '../../core/history/agentPromptHistory';
import { locateAnyPrompt } from '../../core/history/agentPromptSessions';
import { defaultHistoryPaths, describeHistoryError, HistoryError, historyTimeIso, type HistoryEntry, type PromptHistory } from '../../core/history/promptHistory';
import { defaultClaudeHistoryPath } from '../../core/formats/claude/promptHistory';
import { defaultCodexHistoryPath } from '../../core/formats/codex/promptHistory';
import { escapeForTerminal } from '../terminalText';
import { baselineWasmOnly, CliError, errorText, limitOf, lookedIn, parse, unexpectedArgument, writeJson, type Io } from '../util';
import { cliIndexCache } from './read';
import { USAGE } from '../usage';

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
  // A history database is read in a few short queries (a snapshot, a page of rows).
  baselineWasmOnly();
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
