// `npm run bench`: generates 10k / 100k / 1M-entry sessions and prints one table of load+index,
// buildSessionContext at the deepest leaf and peak RSS, each as a ratio against a baseline
// measured in the same run (read the file, split lines, JSON.parse each). Every measurement runs
// in a fresh child process so peak RSS belongs to that measurement alone.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSession } from './generate';

interface Measure {
  ms: number;
  allMs: number[];
  peakRssMB: number;
  idleRssMB: number;
  records: number;
  ctxMs?: number;
  ctxMaxMs?: number;
  depth?: number;
  messages?: number;
}

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'session-loom-bench-'));

function measure(mode: 'baseline' | 'core', file: string, reps: number): Measure {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--max-old-space-size=16384', '--import', 'tsx', join(__dirname, 'measure.ts'), mode, file, String(reps)],
    { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as Measure;
}

const pad = (s: string, n: number): string => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);
const verdict = (ok: boolean): string => (ok ? 'pass' : 'FAIL');

const rows: string[][] = [];
let allOk = true;
try {
  for (const n of SIZES) {
    const file = join(dir, `bench-${n}.jsonl`);
    const g0 = performance.now();
    const gen = generateSession(file, n);
    const genMs = performance.now() - g0;
    const mb = gen.bytes / 1048576;
    const reps = n <= 100_000 ? 3 : 1;
    process.stderr.write(`generated ${n} entries (${f1(mb)} MB, ${gen.compactions} compactions, ${gen.branches} side branches) in ${f1(genMs / 1000)} s; measuring…\n`);
    const base = measure('baseline', file, reps);
    const core = measure('core', file, reps);
    const loadRatio = core.ms / base.ms;
    const ctxRatio = core.ctxMs! / core.ms;
    const rssDelta = core.peakRssMB - core.idleRssMB;
    const rssRatio = core.peakRssMB / mb;
    const rssDeltaRatio = rssDelta / mb;
    const okLoad = loadRatio <= 2;
    const okCtx = ctxRatio < 1 / 20;
    // Peak RSS target: absolute peak < 4× file; for files far smaller than the runtime itself
    // (~50 MB of node + tsx), the growth over the idle process is what the core costs.
    const okRss = rssRatio < 4 || rssDeltaRatio < 4;
    allOk &&= okLoad && okCtx && okRss;
    rows.push([
      String(n),
      f1(mb),
      f1(base.ms),
      f1(core.ms),
      `${f2(loadRatio)} ${verdict(okLoad)}`,
      `${f1(core.ctxMs!)} (${core.messages} msgs, depth ${core.depth})`,
      `${f2(ctxRatio * 100)}% ${verdict(okCtx)}`,
      `${f1(core.peakRssMB)} (base ${f1(base.peakRssMB)})`,
      `${f2(rssRatio)} / Δ${f2(rssDeltaRatio)} ${verdict(okRss)}`,
    ]);
    rmSync(file, { force: true });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const head = ['entries', 'file MB', 'baseline ms', 'load+index ms', 'load/base (≤2×)', 'context@deepest ms', 'ctx/load (<5%)', 'peak RSS MB', 'RSS/file (<4×)'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]): string => '| ' + cells.map((c, i) => pad(c, widths[i]!)).join(' | ') + ' |';
console.log(line(head));
console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
for (const r of rows) console.log(line(r));
console.log(`\nbaseline = readFileSync + split('\\n') + JSON.parse per line; times are the best of ${SIZES.some((n) => n <= 100_000) ? '3 runs (≤100k) / 1 run (1M)' : '1 run'}; each measurement in a fresh process.`);
console.log('RSS/file: absolute peak RSS ÷ file size, and Δ = (peak − idle process RSS) ÷ file size.');
console.log(allOk ? 'all targets met' : 'SOME TARGETS MISSED');
