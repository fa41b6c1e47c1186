// `npm run bench`: generates 10k / 100k / 1M-entry sessions and prints one table of load+index,
// buildSessionContext at the deepest leaf and peak RSS, each as a ratio against a baseline
// measured in the same run (read the file, split lines, JSON.parse each). Every measurement runs
// in a fresh child process so peak RSS belongs to that measurement alone.
import { execFileSync } from 'node:child_process';
import { buildSync } from 'esbuild';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSession } from './generate';
import { lastLineInModelWorker } from './modelWorkerRun';
import { IndexCache } from '../src/core/engine/xcsh/lazy/indexCache';
import { LazyXcshModel } from '../src/core/engine/xcsh/lazy/lazyModel';

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
  // ---- lazy mode ----
  loopMaxMs?: number;
  loopP99Ms?: number;
  settledRssMB?: number;
  indexedRssMB?: number;
  ctxWindowMs?: number;
  ctxBytesRead?: number;
  treeMs?: number;
  firstPaintMs?: number;
  indexBytes?: number;
}

type Mode = 'baseline' | 'core' | 'lazy';

// `npm run bench -- --search [--sessions N] [--mb M] [--libraries] [--dedup]` measures the search index instead (bench/search.ts);
// `npm run bench -- --dsh` the deepseek-harness reader (bench/dsh.ts, also `npm run bench:dsh`).
// `BENCH_SIZES=100000 npm run bench` (or `npm run bench -- --sizes 100000`) measures only some sizes.
const sizesArg = process.argv.indexOf('--sizes');
const SIZES = (sizesArg !== -1 ? process.argv[sizesArg + 1]! : (process.env.BENCH_SIZES ?? '10000,100000,1000000')).split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'session-loom-bench-'));

// The measured processes run a bundle under plain `node`: no TypeScript loader (tsx) in them,
// whose own ~35 MB would otherwise count as the core's memory.
const worker = join(__dirname, 'out', 'measure.js');
buildSync({ entryPoints: [join(__dirname, 'measure.ts')], outfile: worker, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning' });

function run(flags: string[], mode: Mode, file: string, reps: number): Measure {
  const out = execFileSync(process.execPath, [...flags, worker, mode, file, String(reps)], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop()!) as Measure;
}

/** Fresh processes per memory figure: one process's RSS varies by ±2% of a small file's cost. */
const MEM_RUNS = 3;

/**
 * Times come from a run of `reps` repetitions (--expose-gc, so each starts from a collected heap);
 * memory from separate single runs with no node flags at all, each exactly the process a user
 * gets. Of MEM_RUNS such processes the one with the median cost (peak − idle) is reported, and
 * the spread of that cost is kept to be printed next to it.
 */
function measure(mode: Mode, file: string, reps: number): Measure & { memSpreadMB: [number, number] } {
  const timed = run(['--expose-gc'], mode, file, reps);
  const mem = medianMemory([], mode, file);
  return { ...timed, peakRssMB: mem.peakRssMB, idleRssMB: mem.idleRssMB, memSpreadMB: mem.memSpreadMB, ...(mem.settledRssMB !== undefined ? { settledRssMB: mem.settledRssMB, indexedRssMB: mem.indexedRssMB, loopMaxMs: mem.loopMaxMs, loopP99Ms: mem.loopP99Ms } : {}) };
}

/**
 * A single run in a worker thread with the model worker's heap limits (MODEL_WORKER_LIMITS): where
 * the extension indexes a session. Memory is the process's RSS, as in the other runs.
 */
function runInModelWorker(mode: Mode, file: string): Measure {
  return JSON.parse(lastLineInModelWorker(worker, [mode, file, '1'])) as Measure;
}

/** MEM_RUNS runs in the model worker's configuration: the median cost's run, and the spread. */
function workerMemory(mode: Mode, file: string): Measure & { memSpreadMB: [number, number] } {
  const mems = Array.from({ length: MEM_RUNS }, () => runInModelWorker(mode, file));
  const cost = (m: Measure): number => m.peakRssMB - m.idleRssMB;
  mems.sort((a, b) => cost(a) - cost(b));
  return { ...mems[MEM_RUNS >> 1]!, memSpreadMB: [cost(mems[0]!), cost(mems[MEM_RUNS - 1]!)] };
}

/** MEM_RUNS single runs in fresh processes started with `flags`: the median cost's run, and the spread. */
function medianMemory(flags: string[], mode: Mode, file: string): Measure & { memSpreadMB: [number, number] } {
  const mems: Measure[] = [];
  for (let k = 0; k < MEM_RUNS; k++) mems.push(run(flags, mode, file, 1));
  const cost = (m: Measure): number => m.peakRssMB - m.idleRssMB;
  mems.sort((a, b) => cost(a) - cost(b));
  return { ...mems[MEM_RUNS >> 1]!, memSpreadMB: [cost(mems[0]!), cost(mems[MEM_RUNS - 1]!)] };
}

const pad = (s: string, n: number): string => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);
const verdict = (ok: boolean): string => (ok ? 'pass' : 'FAIL');

/**
 * Following a live session: the time to pick up 10 appended entries, read as a tail (the
 * engine's refresh) against opening the file again. In this process, best of 5.
 */
async function measureLiveAppend(file: string): Promise<{ tailMs: number; fullMs: number }> {
  const bytes = readFileSync(file);
  let cut = bytes.length - 1;
  for (let k = 0; k < 10; k++) cut = bytes.lastIndexOf(0x0a, cut - 1);
  const live = file + '.live.jsonl';
  let tailMs = Infinity;
  let fullMs = Infinity;
  for (let rep = 0; rep < 5; rep++) {
    writeFileSync(live, bytes.subarray(0, cut + 1));
    const model = await LazyXcshModel.open(live);
    const before = (await model.summary()).entryCount;
    appendFileSync(live, bytes.subarray(cut + 1));
    let t0 = performance.now();
    const r = await model.refresh();
    tailMs = Math.min(tailMs, performance.now() - t0);
    if (r.kind !== 'appended' || r.summary.entryCount !== before + 10) throw new Error(`live append: expected a tail of 10 entries, got ${r.kind} (${r.summary.entryCount - before})`);
    t0 = performance.now();
    await LazyXcshModel.open(live);
    fullMs = Math.min(fullMs, performance.now() - t0);
  }
  rmSync(live, { force: true });
  return { tailMs, fullMs };
}
/**
 * Reopening a session whose index is in the index cache (what the Sessions view and the editor do
 * for a big session after the first time): open + the view's top-level branch rows, best of three,
 * and the cache file's size.
 */
async function measureCachedOpen(file: string): Promise<{ openMs: number; segmentsMs: number; cacheBytes: number }> {
  const cacheDir = file + '.ixcache';
  const cache = new IndexCache(cacheDir, { minBytes: 0 });
  const first = await LazyXcshModel.open(file, { indexCache: cache });
  if (!first) throw new Error('index cache: the bench session is not in the lazy scope');
  await first.refresh(); // after the cache is written
  first.dispose();
  let openMs = Infinity;
  let segmentsMs = Infinity;
  for (let rep = 0; rep < 3; rep++) {
    const t0 = performance.now();
    const m = await LazyXcshModel.open(file, { indexCache: cache });
    const t1 = performance.now();
    await m!.segments({ filter: 'default', search: '' }, null);
    openMs = Math.min(openMs, t1 - t0);
    segmentsMs = Math.min(segmentsMs, performance.now() - t1);
    m!.dispose();
  }
  const cacheBytes = statSync(cache.fileFor(file)).size;
  rmSync(cacheDir, { recursive: true, force: true });
  return { openMs, segmentsMs, cacheBytes };
}
const cachedLines: string[] = [];

const LIVE_N = SIZES.includes(100_000) ? 100_000 : SIZES[0]!;
let liveLine = '';
const lazyRows: string[][] = [];
let lazyAllOk = true;
let jitLine = '';

/**
 * `npm run bench -- --huge`: a ~2 GB session (issue 11: it must open and preview without running
 * out of memory in a 4 GB extension host) indexed lazily by a node with --max-old-space-size=4096:
 * index time, peak RSS, and a first paint (the context at the deepest leaf and a window of its
 * messages). Only the lazy model: the eager one holds every parsed entry. The file is deleted after.
 */
async function huge(): Promise<void> {
  const entries = Number(process.env.BENCH_HUGE_ENTRIES ?? '4600000');
  const fs = statfsSync(dir);
  const freeGB = (fs.bavail * fs.bsize) / 2 ** 30;
  if (freeGB < 3) throw new Error(`--huge needs ~3 GB free in ${dir}; ${freeGB.toFixed(1)} GB free`);
  const file = join(dir, 'bench-huge.jsonl');
  try {
    const g0 = performance.now();
    const gen = generateSession(file, entries);
    const mb = gen.bytes / 1048576;
    process.stderr.write(`generated ${entries} entries (${f1(mb)} MB) in ${f1((performance.now() - g0) / 1000)} s; indexing lazily with --max-old-space-size=4096…\n`);
    const m = run(['--max-old-space-size=4096'], 'lazy', file, 1);
    console.log(
      `Huge session (${entries} entries, ${f1(mb / 1024)} GB), lazy model in node --max-old-space-size=4096: index ${f1(m.ms / 1000)} s, ` +
        `peak RSS ${f1(m.peakRssMB)} MB (${f2((m.peakRssMB - m.idleRssMB) / mb)}× the file over idle), settled ${f1(m.settledRssMB!)} MB; ` +
        `context at the deepest leaf (depth ${m.depth}, ${m.messages} messages) ${f1(m.ctxMs!)} ms, + its last 50 messages ${f1(m.ctxWindowMs!)} ms (${f1(m.ctxBytesRead! / 1024)} KB read); ` +
        `100 tree rows ${f1(m.treeMs!)} ms; first paint ${f1(m.firstPaintMs!)} ms; event loop max ${f1(m.loopMaxMs!)} ms while indexing in-process.`,
    );
  } finally {
    rmSync(file, { force: true });
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--huge')) {
    try {
      await huge();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return;
  }
  const rows: string[][] = [];
  let allOk = true;
  try {
    for (const n of SIZES) {
      const file = join(dir, `bench-${n}.jsonl`);
      const g0 = performance.now();
      const gen = generateSession(file, n);
      const genMs = performance.now() - g0;
      const mb = gen.bytes / 1048576;
      const reps = n <= 10_000 ? 10 : n <= 100_000 ? 3 : 1;
      process.stderr.write(`generated ${n} entries (${f1(mb)} MB, ${gen.compactions} compactions, ${gen.branches} side branches) in ${f1(genMs / 1000)} s; measuring…\n`);
      const base = measure('baseline', file, reps);
      const core = measure('core', file, reps);
      const lazy = measure('lazy', file, reps);
      // The targets are judged where the extension indexes: in the model worker (its heap limits);
      // the flagless main-thread figures stand beside them.
      const inWorker = workerMemory('lazy', file);
      {
        const lazyRatio = lazy.ms / base.ms;
        const peakRatio = (inWorker.peakRssMB - inWorker.idleRssMB) / mb;
        const settledRatio = (inWorker.settledRssMB! - inWorker.idleRssMB) / mb;
        const indexedRatio = (inWorker.indexedRssMB! - inWorker.idleRssMB) / mb;
        const flagPeak = (lazy.peakRssMB - lazy.idleRssMB) / mb;
        const flagSettled = (lazy.settledRssMB! - lazy.idleRssMB) / mb;
        const okIdx = lazyRatio <= 1;
        const okPeak = peakRatio <= (n >= 1_000_000 ? 0.5 : 1);
        // The figure "once indexed" is for the 1M session (below it, only the peak has a
        // target); what the first paint adds (tree layout, context arrays) is printed beside it.
        const okSettled = n < 1_000_000 || indexedRatio <= 0.25;
        lazyAllOk &&= okIdx && okPeak && okSettled;
        lazyRows.push([
          String(n),
          f1(mb),
          f1(base.ms),
          f1(lazy.ms),
          `${f2(lazyRatio)} ${verdict(okIdx)}`,
          `${f1(lazy.loopMaxMs!)} / ${f1(lazy.loopP99Ms!)}`,
          `${f2(peakRatio)} [${f2(inWorker.memSpreadMB[0] / mb)}–${f2(inWorker.memSpreadMB[1] / mb)}] ${verdict(okPeak)} (flagless ${f2(flagPeak)})`,
          `${f2(indexedRatio)} ${n < 1_000_000 ? 'info' : verdict(okSettled)}; after a first paint ${f2(settledRatio)} (flagless ${f2(flagSettled)})`,
          f1(lazy.indexBytes! / n),
          `${f1(lazy.ctxMs!)} / ${f1(lazy.ctxWindowMs!)} (${lazy.messages} msgs, depth ${lazy.depth}, ${f1(lazy.ctxBytesRead! / 1024)} KB read)`,
          f1(lazy.treeMs!),
          f1(lazy.firstPaintMs!),
        ]);
      }
      if (n >= 100_000) {
        const c = await measureCachedOpen(file);
        cachedLines.push(
          `Reopen from the index cache (${n} entries, ${f1(mb)} MB): open ${f1(c.openMs)} ms + top-level branch rows ${f1(c.segmentsMs)} ms = ` +
            `${f2((c.openMs + c.segmentsMs) / base.ms)}× the bare baseline (a full index pass: ${f2(lazy.ms / base.ms)}×); cache file ${f1(c.cacheBytes / 1048576)} MB = ${f2(c.cacheBytes / gen.bytes)}× the session.`,
        );
      }
      const loadRatio = core.ms / base.ms;
      const ctxRatio = core.ctxMs! / core.ms;
      const rssDelta = core.peakRssMB - core.idleRssMB;
      const rssRatio = core.peakRssMB / mb;
      const rssDeltaRatio = rssDelta / mb;
      const okLoad = loadRatio <= 2;
      const okCtx = ctxRatio < 1 / 20;
      // Peak memory target, judged on what loading costs: peak RSS − the same process's idle RSS
      // right before loading (node itself plus the loaded code is ~50 MB, already more than 4× a
      // 4.6 MB file). The absolute ratio is printed next to it with its own verdict, never hidden.
      const okRss = rssDeltaRatio < 4;
      const okRssAbs = rssRatio < 4;
      allOk &&= okLoad && okCtx && okRss;
      rows.push([
        String(n),
        f1(mb),
        f1(base.ms),
        f1(core.ms),
        `${f2(loadRatio)} ${verdict(okLoad)}`,
        `${f1(core.ctxMs!)} (${core.messages} msgs, depth ${core.depth})`,
        `${f2(ctxRatio * 100)}% ${verdict(okCtx)}`,
        `${f1(core.idleRssMB)} → ${f1(core.peakRssMB)} (base ${f1(base.idleRssMB)} → ${f1(base.peakRssMB)})`,
        `${f2(rssRatio)} ${okRssAbs ? 'pass' : 'fail'}`,
        `${f2(rssDeltaRatio)} [${f2(core.memSpreadMB[0] / mb)}–${f2(core.memSpreadMB[1] / mb)}] (base ${f2((base.peakRssMB - base.idleRssMB) / mb)}) ${verdict(okRss)}`,
      ]);
      if (n === SIZES[0]) {
        // Diagnostic only, never a verdict: the same memory runs with V8's optimising compiler on
        // the main thread. The difference is what its background threads cost, a fixed amount
        // that weighs most against the smallest file.
        const fl = ['--no-concurrent-recompilation'];
        const [c, b] = [medianMemory(fl, 'core', file), medianMemory(fl, 'baseline', file)];
        jitLine =
          `Diagnostic (${n} entries, not a verdict): with V8 compiling on the main thread (${fl[0]}), loading costs ` +
          `${f2((c.peakRssMB - c.idleRssMB) / mb)}× the file (baseline ${f2((b.peakRssMB - b.idleRssMB) / mb)}×) instead of ${f2(rssDeltaRatio)}×: ` +
          `the background compiler threads account for ${f1(rssDelta - (c.peakRssMB - c.idleRssMB))} MB of it.`;
      }
      if (n === LIVE_N) {
        const live = await measureLiveAppend(file);
        liveLine = `Live append (${n} entries, ${f1(mb)} MB): picking up 10 appended entries takes ${f2(live.tailMs)} ms as a tail read vs ${f1(live.fullMs)} ms as a full reload (${f1(live.fullMs / live.tailMs)}× faster).`;
      }
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const head = [
    'entries',
    'file MB',
    'baseline ms',
    'load+index ms',
    'load/base (≤2×)',
    'context@deepest ms',
    'ctx/load (<5%)',
    'RSS MB idle → peak',
    'peak/file (info)',
    '(peak − idle)/file (<4×)',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => '| ' + cells.map((c, i) => pad(c, widths[i]!)).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
  console.log(`\nbaseline = readFileSync + split('\\n') + JSON.parse per line; times are the best of 10 runs (10k) / 3 runs (100k) / 1 run (1M), in a process run with --expose-gc (a gc() before each run).`);
  console.log(
    `Memory: ${MEM_RUNS} runs per mode, each in a fresh \`node\` with no flags (no --expose-gc, no heap-size flags), running a bundled worker (no TypeScript loader);\n` +
      'the run with the median cost is shown, [lowest–highest] of the runs beside it. idle = that process\'s RSS right before loading;\n' +
      'peak = its maxRSS (load+index and one context build; baseline: read+split+parse).\n' +
      'The target "peak memory under 4× the file size" is judged on (peak − idle)/file, the memory loading costs; peak/file is the absolute ratio,\n' +
      'shown for information (its verdict is lower-case): node plus the loaded code already take ~50 MB, more than 4× a small file.',
  );
  const lazyHead = [
    'entries',
    'file MB',
    'baseline ms',
    'lazy index ms',
    'index/base (≤1×)',
    'event loop max / p99 ms',
    '(peak − idle)/file (≤0.5× at 1M, ≤1× below)',
    '(indexed − idle)/file (≤0.25× at 1M)',
    'index B/entry',
    'context@deepest ms / + first 50 msgs',
    'tree 100 rows ms',
    'first paint ms',
  ];
  const lw = lazyHead.map((h, i) => Math.max(h.length, ...lazyRows.map((r) => r[i]!.length)));
  const lline = (cells: string[]): string => '| ' + cells.map((c, i) => pad(c, lw[i]!)).join(' | ') + ' |';
  console.log('\nLazy model (issue 11: compact index, bodies on disk):');
  console.log(lline(lazyHead));
  console.log('|' + lw.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of lazyRows) console.log(lline(r));
  console.log(
    'lazy index = LazyXcshModel.open (one streaming pass, the tree built); the event loop figures are monitorEventLoopDelay during it (in-process: the worker thread the extension runs it in\n' +
      'is what keeps the host responsive). first paint = summary + 100 tree rows + the context at the deepest leaf + its last 50 messages, bodies read by byte range.\n' +
      'indexed = RSS once the index is built and a full GC ran; after a first paint = also its tree layout and context held. Memory: fresh processes indexing in a worker thread with the model worker\'s heap limits\n' +
      '(MODEL_WORKER_LIMITS, where the extension indexes), median of 3 [spread]; "flagless" = the same in a main thread with no flags, as above.',
  );
  console.log(lazyAllOk ? 'lazy: all targets met' : 'lazy: SOME TARGETS MISSED');
  if (liveLine) console.log(`\n${liveLine}`);
  for (const line of cachedLines) console.log(line);
  if (jitLine) console.log(jitLine);
  console.log(allOk ? 'all targets met' : 'SOME TARGETS MISSED');
}

// `npm run bench -- --search` / `--dsh` / `--layout` / `--cli` / `--agents`: the search index's, the
// dsh reader's, the editor's branch-tree layout's (bench/layout.ts, at --sizes, 100k and 1M by
// default), a cold CLI `context`'s (bench/cli.ts, 100k by default) or opening Claude Code and Codex
// sessions beside xcsh (bench/agents.ts, `--mb 50 --reps 3` by default) figures instead.
async function entry(): Promise<void> {
  if (process.argv.includes('--layout')) {
    rmSync(dir, { recursive: true, force: true });
    const { layoutBench } = (await import(join(__dirname, 'layout.ts'))) as { layoutBench: (sizes: number[]) => Promise<void> };
    await layoutBench(sizesArg !== -1 || process.env.BENCH_SIZES ? SIZES : [100_000, 1_000_000]);
    return;
  }
  if (process.argv.includes('--dsh')) {
    rmSync(dir, { recursive: true, force: true });
    await import(join(__dirname, 'dsh.ts'));
    return;
  }
  if (process.argv.includes('--agents')) {
    rmSync(dir, { recursive: true, force: true });
    const mbArg = process.argv.indexOf('--mb');
    const repsArg = process.argv.indexOf('--reps');
    const { agentsBench } = (await import(join(__dirname, 'agents.ts'))) as { agentsBench: (mb: number, reps: number) => Promise<void> };
    await agentsBench(mbArg !== -1 ? Number(process.argv[mbArg + 1]) : 50, Math.max(3, repsArg !== -1 ? Number(process.argv[repsArg + 1]) : 3));
    return;
  }
  if (process.argv.includes('--cli')) {
    rmSync(dir, { recursive: true, force: true });
    const { cliBench } = (await import(join(__dirname, 'cli.ts'))) as { cliBench: (sizes: number[]) => Promise<void> };
    await cliBench(sizesArg !== -1 || process.env.BENCH_SIZES ? SIZES : [100_000]);
    return;
  }
  if (!process.argv.includes('--search')) return main();
  rmSync(dir, { recursive: true, force: true });
  const { searchBench } = (await import(join(__dirname, 'search.ts'))) as { searchBench: () => Promise<void> };
  await searchBench();
}

entry().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
