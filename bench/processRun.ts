// Whole-process measurements shared by `npm run bench -- --cli` (bench/cli.ts) and `--agents`
// (bench/agents.ts): a node process run as a user runs it (its output to /dev/null), timed from
// spawn to exit, with its peak RSS written by a preload at exit (process.resourceUsage().maxRSS,
// the same for every process measured). `prepareWork` writes the preload and the bare baseline
// script into a work folder; `measure` runs one process there.
import { spawnSync } from 'node:child_process';
import { openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The baseline, as bench/measure.ts does it: read, split the bytes at newlines, JSON.parse each line. */
const BASELINE = `
const { readFileSync } = require('node:fs');
const buf = readFileSync(process.argv[2]);
const values = [];
for (let s = 0; s < buf.length; ) {
  let e = buf.indexOf(10, s);
  if (e === -1) e = buf.length;
  if (e > s) values.push(JSON.parse(buf.toString('utf8', s, e)));
  s = e + 1;
}
if (values.length === 0) process.exitCode = 1;
`;

/**
 * The floor under any command that reads every line: node started, the file read, each line
 * JSON.parsed — and nothing kept (no array of values for the collector to trace, which the
 * baseline pays). A command that must parse every line (its diagnostics name every damaged one;
 * a tree needs every record's links) cannot cost less than this.
 */
const FLOOR = `
const { readFileSync } = require('node:fs');
const buf = readFileSync(process.argv[2]);
let n = 0;
for (let s = 0; s < buf.length; ) {
  let e = buf.indexOf(10, s);
  if (e === -1) e = buf.length;
  if (e > s && JSON.parse(buf.toString('utf8', s, e)) !== undefined) n++;
  s = e + 1;
}
if (n === 0) process.exitCode = 1;
`;

/** Preloaded into every measured process: its peak RSS written at exit to the file $BENCH_RSS_OUT. */
const RSS_PRELOAD = `process.on('exit', () => require('node:fs').writeFileSync(process.env.BENCH_RSS_OUT, String(process.resourceUsage().maxRSS)));`;

export interface Run {
  ms: number;
  rssMB: number;
  /** The process's stdout, when asked for (`measure(…, { stdout: true })`). */
  stdout?: string;
}

/** Writes the preload and the baseline script into `work`; returns the baseline script's path (the floor's is floorScript(work)). */
export function prepareWork(work: string): string {
  writeFileSync(join(work, 'rss-preload.js'), RSS_PRELOAD);
  writeFileSync(join(work, 'baseline.js'), BASELINE);
  writeFileSync(join(work, 'floor.js'), FLOOR);
  return join(work, 'baseline.js');
}

/** The floor's script in a folder prepared by prepareWork. */
export const floorScript = (work: string): string => join(work, 'floor.js');

/** One node process running `args` (in a folder prepared by prepareWork): wall ms from spawn to exit, and its peak RSS. */
export function measure(args: string[], env: NodeJS.ProcessEnv, work: string, opts: { stdout?: boolean } = {}): Run {
  const rssOut = join(work, 'rss');
  const devNull = openSync('/dev/null', 'w');
  try {
    const t = performance.now();
    const r = spawnSync(process.execPath, ['--require', join(work, 'rss-preload.js'), ...args], {
      env: { ...env, BENCH_RSS_OUT: rssOut },
      stdio: ['ignore', opts.stdout ? 'pipe' : devNull, 'pipe'],
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { ms, rssMB: Number(readFileSync(rssOut, 'utf8')) / 1024, ...(opts.stdout ? { stdout: r.stdout } : {}) };
  } finally {
    closeSync(devNull);
  }
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The p-th percentile of `xs` (nearest rank). */
export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
export const f0 = (x: number): string => x.toFixed(0);
export const f2 = (x: number): string => x.toFixed(2);
/** "lo–hi" of a list of figures, rounded. */
export const range = (xs: number[], f: (x: number) => string = f0): string => `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;
