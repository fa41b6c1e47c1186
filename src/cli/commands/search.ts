// `session-loom search`: the full-text index over every session (a cache of ours in a cache
// directory). Its own module, loaded alone: a search at the terminal pays for the index and
// nothing else of the CLI (main.ts loads each command on demand).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { defaultSessionRoots } from '../../core/discovery/roots';
import { indexPathFor } from '../../core/search/indexDb';
import { IndexLockedError } from '../../core/search/indexLock';
import { SessionSearchIndex } from '../../core/search/searchIndex';
import { hasPositiveTerms } from '../../core/search/queryLanguage';
import { markSnippet } from '../../core/search/snippet';
import { cliCacheDir } from '../ownWrites';
import { escapeForTerminal } from '../terminalText';
import { baselineWasmOnly, CliError, ensureDir, errorText, limitOf, lookedIn, parse, requireDirs, UsageError, wrapText, writeJson, type Io } from '../util';
import { QUERY_HELP, USAGE } from '../usage';

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
  if (existsSync(indexPath)) baselineWasmOnly();
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
      // Only the sessions: counting the entries too read the whole entries table (~50 ms at 1.7 M rows).
      const indexed = index.fileCount();
      io.err(await lookedIn(`no session matches ${escapeForTerminal(JSON.stringify(query))} (${indexed} session${indexed === 1 ? '' : 's'} searched)`, roots));
    }
    if (values.json) {
      writeJson(io, { query, sessions, totalSessions: out.results.sessions.length, matchingEntries: out.results.rows, approximate: out.results.approximate, ms: Math.round(out.ms * 10) / 10 }, values.pretty === true);
      return 0;
    }
    if (sessions.length === 0) return 0;
    // One write: a line at a time was ~80 system calls (6 ms of a 150 ms search).
    const lines: string[] = [];
    for (const s of sessions) {
      const what = s.matches > 0 ? `${s.matches} match${s.matches === 1 ? '' : 'es'}` : 'title matches';
      lines.push(`${escapeForTerminal(s.file)}  (${what}${s.cwd ? `, ${escapeForTerminal(s.cwd)}` : ''})\n`);
      for (const e of out.entries[s.file] ?? []) lines.push(`  ${e.entryId || '(title)'}  ${escapeForTerminal(markSnippet(e.snippet))}\n`);
    }
    io.out(lines.join(''));
    const more = out.results.sessions.length - sessions.length;
    io.err(`${out.results.sessions.length} session${out.results.sessions.length === 1 ? '' : 's'}${more > 0 ? ` (${more} more: --limit)` : ''}, ${out.results.rows} matching entries, ${out.ms.toFixed(1)} ms\n`);
    return 0;
  } finally {
    index.close();
  }
}

