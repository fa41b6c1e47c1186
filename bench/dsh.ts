// `npm run bench:dsh`: the dsh reader against a bare baseline measured in the same run, on a
// generated 100k-event log (packed rows, a checksummed zstd frame every ~20 events). Targets:
// - load / baseline (read + decompress with the same decoder + split + JSON.parse) ≤ 1.5×;
// - (peak − idle RSS) ≤ 3× the decompressed size;
// - context at the last event < 5% of load;
// plus the decoder's and XXH64's throughput. Every figure comes from a fresh process (bundled
// worker, plain `node`), memory from processes started with no flags at all, as bench/run.ts does.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync, type BuildOptions } from 'esbuild';
import { generateDshLog } from './dshGenerate';
import { lastLineInModelWorker } from './modelWorkerRun';

interface Measure {
  ms: number;
  idleRssMB: number;
  peakRssMB: number;
  ctxMs?: number;
  ctxMidMs?: number;
  events?: number;
  records?: number;
  messages?: number;
  state?: string;
  decodeMBps?: number;
  compressedMBps?: number;
  xxh64MBps?: number;
  retainedMB?: number;
}

const sizeArg = process.argv.indexOf('--events');
const N = sizeArg !== -1 ? Number(process.argv[sizeArg + 1]) : 100_000;
const REPS = 5;
const MEM_RUNS = 3;

async function main(): Promise<void> {
  const { copySqliteWasm, nodeBundleOptions } = (await import(join(__dirname, '..', 'scripts', 'esbuild-node.mjs'))) as {
    copySqliteWasm: (root: string, dir: string) => void;
    nodeBundleOptions: () => BuildOptions;
  };
  const outDir = join(__dirname, 'out');
  const worker = join(outDir, 'dshMeasure.js');
  buildSync({ ...nodeBundleOptions(), entryPoints: [join(__dirname, 'dshMeasure.ts')], outfile: worker, bundle: true, logLevel: 'warning' });
  copySqliteWasm(join(__dirname, '..'), outDir);

  const dir = mkdtempSync(join(tmpdir(), 'loom-dsh-bench-'));
  try {
    const file = join(dir, 'session.jsonl.zstd');
    const g0 = performance.now();
    const gen = generateDshLog(file, N);
    const mb = gen.decompressedBytes / 1048576;
    process.stderr.write(
      `generated ${gen.events} events in ${gen.records} records, ${gen.frames} frames, ${(gen.bytes / 1048576).toFixed(1)} MB zstd / ${mb.toFixed(1)} MB decompressed, ${gen.compactions} compactions, in ${((performance.now() - g0) / 1000).toFixed(1)} s; measuring…\n`,
    );
    const run = (flags: string[], mode: string, reps: number): Measure =>
      JSON.parse(execFileSync(process.execPath, [...flags, worker, mode, file, String(reps)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop()!) as Measure;
    const memory = (mode: string): { cost: number; idle: number; peak: number; spread: [number, number] } => {
      const runs = Array.from({ length: MEM_RUNS }, () => run([], mode, 1)).sort((a, b) => a.peakRssMB - a.idleRssMB - (b.peakRssMB - b.idleRssMB));
      const mid = runs[MEM_RUNS >> 1]!;
      return { cost: mid.peakRssMB - mid.idleRssMB, idle: mid.idleRssMB, peak: mid.peakRssMB, spread: [runs[0]!.peakRssMB - runs[0]!.idleRssMB, runs[MEM_RUNS - 1]!.peakRssMB - runs[MEM_RUNS - 1]!.idleRssMB] };
    };

    const base = run(['--expose-gc'], 'baseline', REPS);
    const core = run(['--expose-gc'], 'core', REPS);
    const dec = run(['--expose-gc'], 'decoder', REPS);
    const memCore = memory('core');
    const memBase = memory('baseline');
    // Where the extension loads it: in the model worker, with its heap limits (modelHost.ts).
    const inWorker = (): number => {
      const m = JSON.parse(lastLineInModelWorker(worker, ['core', file, '1'])) as Measure;
      return m.peakRssMB - m.idleRssMB;
    };
    const workerRuns = Array.from({ length: MEM_RUNS }, inWorker).sort((a, b) => a - b);
    const memWorker = { cost: workerRuns[MEM_RUNS >> 1]!, spread: [workerRuns[0]!, workerRuns[MEM_RUNS - 1]!] as [number, number] };

    const loadRatio = core.ms / base.ms;
    const ctxRatio = core.ctxMs! / core.ms;
    const memRatio = memWorker.cost / mb;
    const memProcessRatio = memCore.cost / mb;
    const verdict = (ok: boolean): string => (ok ? 'pass' : 'FAIL');
    const rows: Array<[string, string, string]> = [
      ['events / records / frames', `${core.events} / ${gen.records} / ${gen.frames}`, ''],
      ['baseline (read + fzstd + split + JSON.parse)', `${base.ms.toFixed(1)} ms`, ''],
      ['load (loadDshFile)', `${core.ms.toFixed(1)} ms`, ''],
      ['load / baseline', `${loadRatio.toFixed(2)}×`, `≤ 1.5× ${verdict(loadRatio <= 1.5)}`],
      ['context at the last event (first call: index + fold)', `${core.ctxMs!.toFixed(2)} ms (${core.messages} messages)`, ''],
      ['context at the middle (index cached)', `${core.ctxMidMs!.toFixed(2)} ms`, ''],
      ['context / load', `${(ctxRatio * 100).toFixed(2)}%`, `< 5% ${verdict(ctxRatio < 0.05)}`],
      ['RSS idle → peak (core)', `${memCore.idle.toFixed(1)} → ${memCore.peak.toFixed(1)} MB`, ''],
      ['(peak − idle) / decompressed, in the model worker', `${memRatio.toFixed(2)}× [${(memWorker.spread[0] / mb).toFixed(2)}–${(memWorker.spread[1] / mb).toFixed(2)}]`, `≤ 3× ${verdict(memRatio <= 3)}`],
      ['(peak − idle) / decompressed, flagless process', `${memProcessRatio.toFixed(2)}× [${(memCore.spread[0] / mb).toFixed(2)}–${(memCore.spread[1] / mb).toFixed(2)}] (baseline ${(memBase.cost / mb).toFixed(2)}×)`, 'info'],
      ['retained after load + gc / decompressed', `${(core.retainedMB! / mb).toFixed(2)}× (baseline ${(base.retainedMB! / mb).toFixed(2)}×)`, 'info'],
      ['fzstd decode', `${dec.decodeMBps!.toFixed(0)} MB/s decompressed (${dec.compressedMBps!.toFixed(0)} MB/s compressed)`, ''],
      ['xxh64 (xxhash-wasm)', `${dec.xxh64MBps!.toFixed(0)} MB/s`, ''],
    ];
    const w0 = Math.max(...rows.map((r) => r[0].length));
    const w1 = Math.max(...rows.map((r) => r[1].length));
    for (const [a, b, c] of rows) console.log(`${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`);
    console.log(`\nTimes: best of ${REPS} in one process per mode (--expose-gc, gc before each). Memory: median of ${MEM_RUNS} fresh processes, loading in the model worker's configuration (a worker thread with MODEL_WORKER_LIMITS, where the extension loads sessions) and, for comparison, in a flagless main thread; idle = RSS before loading (WASM initialised).`);
    console.log(loadRatio <= 1.5 && ctxRatio < 0.05 && memRatio <= 3 ? 'all targets met' : 'SOME TARGETS MISSED');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
