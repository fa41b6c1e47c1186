// `npm run bench -- --search`, the command-line part (issue 26): a `session-loom search` as a user
// at a terminal runs it — a whole node process on the kept index, its answer written to /dev/null —
// against ripgrep (`rg -l`) finding the files that hold the same words in the same run. Thirty
// mixed queries: rare, middling and common single words, two words (AND), phrases, prefixes and an
// exclusion; ripgrep answers an AND or an exclusion as a terminal user would, with a second `rg`
// over the files the first one listed. Every figure is wall time from spawn to exit.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pct } from './processRun';

const CLI = join(__dirname, '..', 'dist', 'cli.js');

export interface CliQuery {
  /** The query as `session-loom search` takes it. */
  query: string;
  /** What it is (a row of the table groups by it). */
  kind: 'rare' | 'word' | 'common' | 'and' | 'phrase' | 'prefix' | 'exclude';
  /** The words (for and / exclude: [kept, second]). */
  words: string[];
}

/** The thirty queries from the corpus's word lists (bench/searchCorpus.ts: 50 rare, 50 middling, 20 common). */
export function cliQueries(w: { rare: string[]; mid: string[]; common: string[] }): CliQuery[] {
  const q: CliQuery[] = [];
  for (const x of w.rare.slice(0, 6)) q.push({ query: x, kind: 'rare', words: [x] });
  for (const x of w.mid.slice(20, 28)) q.push({ query: x, kind: 'word', words: [x] });
  for (const x of w.common.slice(0, 4)) q.push({ query: x, kind: 'common', words: [x] });
  for (let i = 0; i < 4; i++) {
    const a = w.mid[30 + i]!;
    const b = i % 2 === 0 ? w.mid[40 + i]! : w.common[4 + i]!;
    q.push({ query: `${a} ${b}`, kind: 'and', words: [a, b] });
  }
  for (let i = 0; i < 3; i++) {
    const a = w.common[i]!;
    const b = w.mid[44 + i]!;
    q.push({ query: `"${a} ${b}"`, kind: 'phrase', words: [a, b] });
  }
  for (let i = 0; i < 3; i++) {
    const p = w.mid[47 + i]!.slice(0, 5);
    q.push({ query: `${p}*`, kind: 'prefix', words: [p] });
  }
  for (let i = 0; i < 2; i++) q.push({ query: `${w.mid[28 + i]} -${w.mid[34 + i]}`, kind: 'exclude', words: [w.mid[28 + i]!, w.mid[34 + i]!] });
  return q;
}

/** Wall ms of one process, its stdout to /dev/null unless captured. */
function timed(cmd: string, args: string[], capture = false, env: NodeJS.ProcessEnv = process.env): { ms: number; out: string; err: string } {
  const devNull = openSync('/dev/null', 'w');
  try {
    const t = performance.now();
    const r = spawnSync(cmd, args, { stdio: ['ignore', capture ? 'pipe' : devNull, 'pipe'], encoding: 'utf8', maxBuffer: 1 << 26, env });
    const ms = performance.now() - t;
    // rg: 0 found, 1 nothing found; the CLI: 0 (found or not).
    if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { ms, out: capture ? r.stdout : '', err: r.stderr };
  } finally {
    closeSync(devNull);
  }
}

/** ripgrep finding the files of a query, as a terminal user would ask it. */
function rgRun(q: CliQuery, root: string): number {
  const base = ['-l', '-i', '--no-messages'];
  const word = (x: string): string[] => [...base, '-w', '-F', x];
  switch (q.kind) {
    case 'phrase':
      return timed('rg', [...base, '-w', `${q.words[0]}\\W+${q.words[1]}`, root]).ms;
    case 'prefix':
      return timed('rg', [...base, `\\b${q.words[0]}`, root]).ms;
    case 'and':
    case 'exclude': {
      const first = timed('rg', [...word(q.words[0]!), root], true);
      const files = first.out.split('\n').filter((l) => l !== '');
      if (files.length === 0) return first.ms;
      const second = q.kind === 'and' ? [...word(q.words[1]!), ...files] : ['--files-without-match', '-i', '-w', '-F', q.words[1]!, ...files];
      return first.ms + timed('rg', second).ms;
    }
    default:
      return timed('rg', [...word(q.words[0]!), root]).ms;
  }
}


/**
 * Runs each query `reps` times as `session-loom search` and as ripgrep, interleaved; prints the
 * table and returns the p95 ratio (CLI / rg).
 */
export function cliSearchTable(root: string, indexDir: string, queries: CliQuery[], reps: number, target: number): { ratio: number; ok: boolean } | null {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`node esbuild.mjs\` first`);
  if (spawnSync('rg', ['--version']).status !== 0) {
    console.log('\n(ripgrep, `rg`, is not installed: the command-line comparison is skipped)');
    return null;
  }
  const cliArgs = (q: string): string[] => [CLI, 'search', '--root', root, '--index', indexDir, q];
  // The CLI as a user has it (the search server on: src/cli/searchServer.ts) and with the server off
  // (each search a whole process of its own), in a cache folder of the bench's own, so its server
  // is its own (stopped at the end).
  const cache = mkdtempSync(join(tmpdir(), 'sl-bench-cli-'));
  const served: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: cache, SESSION_LOOM_SEARCH_SERVER: 'trace', SESSION_LOOM_SEARCH_SERVER_IDLE: '300' };
  const own: NodeJS.ProcessEnv = { ...served, SESSION_LOOM_SEARCH_SERVER: '0' };
  // One run first: the index is brought up to date with the roots (nothing to read) and the page
  // cache warmed, for both; then searches until the server it started answers.
  timed(process.execPath, cliArgs(queries[0]!.query), false, own);
  rgRun(queries[0]!, root);
  let pid: number | null = null;
  for (let i = 0; i < 100 && pid === null; i++) {
    const m = /answered by the search server \(pid (\d+)\)/.exec(timed(process.execPath, cliArgs(queries[0]!.query), false, served).err);
    if (m) pid = Number(m[1]);
    else spawnSync('sleep', ['0.2']);
  }
  const cli: number[] = [];
  const cold: number[] = [];
  const rg: number[] = [];
  const node0: number[] = [];
  const byKind = new Map<string, { cli: number[]; cold: number[]; rg: number[] }>();
  try {
    for (let r = 0; r < reps; r++) {
      node0.push(timed(process.execPath, ['-e', '0']).ms);
      for (const q of queries) {
        const c = timed(process.execPath, cliArgs(q.query), false, served);
        if (!c.err.includes('answered by the search server')) throw new Error(`the search server did not answer ${q.query}: ${c.err}`);
        const o = timed(process.execPath, cliArgs(q.query), false, own).ms;
        const g = rgRun(q, root);
        cli.push(c.ms);
        cold.push(o);
        rg.push(g);
        const k = byKind.get(q.kind) ?? { cli: [], cold: [], rg: [] };
        k.cli.push(c.ms);
        k.cold.push(o);
        k.rg.push(g);
        byKind.set(q.kind, k);
      }
    }
  } finally {
    if (pid !== null) {
      try {
        process.kill(pid);
      } catch {
        // gone
      }
    }
    rmSync(cache, { recursive: true, force: true });
  }
  const ratio = pct(cli, 95) / pct(rg, 95);
  const ok = ratio <= target;
  const f = (xs: number[]): string => `${pct(xs, 50).toFixed(0)} / ${pct(xs, 95).toFixed(0)} ms`;
  console.log(`\nCommand line: \`session-loom search\` on the kept index against \`rg -l\` for the same words, ${queries.length} queries × ${reps} runs, interleaved (wall time from spawn to exit; output to /dev/null). \`search\` as installed: answered by the search server the first search started; \`server off\`: SESSION_LOOM_SEARCH_SERVER=0, each search a whole process of its own:`);
  console.log('| queries | session-loom search p50 / p95 | server off p50 / p95 | rg -l p50 / p95 |');
  console.log('|---|---:|---:|---:|');
  for (const [kind, k] of byKind) console.log(`| ${kind} (${k.cli.length / reps}) | ${f(k.cli)} | ${f(k.cold)} | ${f(k.rg)} |`);
  console.log(`| all | ${f(cli)} | ${f(cold)} | ${f(rg)} |`);
  console.log(`p95 ratio session-loom / rg = ${ratio.toFixed(2)}× (target ≤ ${target}×: ${ok ? 'met' : 'MISSED'}); server off: ${(pct(cold, 95) / pct(rg, 95)).toFixed(2)}×; a bare \`node -e 0\` takes ${pct(node0, 50).toFixed(0)} ms here (p50)`);
  return { ratio, ok };
}
