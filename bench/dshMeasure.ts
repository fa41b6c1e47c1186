// One dsh measurement in a fresh process (bundled by bench/dsh.ts, run by plain `node`):
// - `baseline`: the bare minimum any reader does: read the file, decompress it with the same
//   decoder (fzstd, every frame in one call), split lines, JSON.parse each;
// - `core`: loadDshFile (frame walk, per-frame decode + XXH64 check, packed-row expansion, the
//   corruption rule, legacy pass, state) then the context at the last event, as a viewer does;
// - `decoder`: fzstd and XXH64 throughput on this file.
// Prints one JSON line.
import { readFileSync } from 'node:fs';
import { decompress } from 'fzstd';
import { dshContextAt, loadDshFile } from '../src/core/formats/dsh/index';
import { loadXxh64 } from '../src/core/formats/dsh/zstdDecode';

const [mode, file, repsArg] = process.argv.slice(2);
const reps = Number(repsArg ?? '1');
const gc = (globalThis as { gc?: () => void }).gc;
const rssMB = (): number => process.memoryUsage().rss / 1048576;

function baseline(): unknown[] {
  const buf = Buffer.from(decompress(readFileSync(file!)));
  let k = 0;
  const values: unknown[] = [];
  for (let s = 0; s < buf.length; ) {
    let e = buf.indexOf(10, s);
    if (e === -1) e = buf.length;
    if (e > s) values[k++] = JSON.parse(buf.toString('utf8', s, e));
    s = e + 1;
  }
  return values;
}

async function main(): Promise<void> {
  // Initialise the WASM hasher before the idle figure: it is part of the loaded code, not of loading.
  await loadXxh64();
  gc?.();
  const idleHeap = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const out: Record<string, unknown> = { mode, idleRssMB: rssMB() };
  const times: number[] = [];
  const ctxTimes: number[] = [];
  let keep: unknown = null;
  if (mode === 'decoder') {
    const compressed = readFileSync(file!);
    const h64 = await loadXxh64();
    let best = Infinity;
    let plain: Uint8Array = new Uint8Array(0);
    for (let r = 0; r < reps; r++) {
      const t = performance.now();
      plain = decompress(compressed);
      best = Math.min(best, performance.now() - t);
    }
    let bestHash = Infinity;
    for (let r = 0; r < reps; r++) {
      const t = performance.now();
      h64(plain);
      bestHash = Math.min(bestHash, performance.now() - t);
    }
    out.decodeMBps = plain.length / 1048576 / (best / 1000);
    out.compressedMBps = compressed.length / 1048576 / (best / 1000);
    out.xxh64MBps = plain.length / 1048576 / (bestHash / 1000);
  } else {
    for (let r = 0; r < reps; r++) {
      keep = null;
      gc?.();
      const t = performance.now();
      if (mode === 'baseline') {
        const values = baseline();
        times.push(performance.now() - t);
        out.records = values.length;
        keep = values;
      } else {
        const log = await loadDshFile(file!);
        times.push(performance.now() - t);
        const c = performance.now();
        const ctx = dshContextAt(log);
        ctxTimes.push(performance.now() - c);
        // a second query at another seq: the index is built once, each query is one filter pass
        const c2 = performance.now();
        dshContextAt(log, Math.floor(log.events.length / 2));
        out.ctxMidMs = performance.now() - c2;
        out.events = log.events.length;
        out.state = log.state;
        out.messages = ctx.messages.length;
        out.diagnostics = log.diagnostics.length;
        keep = [log, ctx];
      }
    }
    if (gc) {
      // What loading keeps (the result, after a full collection), apart from transient garbage.
      // Dead ArrayBuffers are freed by a background sweep after the collection: let it finish.
      gc();
      await new Promise((resolve) => setTimeout(resolve, 100));
      gc();
      const m = process.memoryUsage();
      out.retainedMB = (m.heapUsed + m.arrayBuffers - idleHeap) / 1048576;
    }
    out.ms = Math.min(...times);
    out.allMs = times;
    if (ctxTimes.length) out.ctxMs = Math.min(...ctxTimes);
  }
  out.peakRssMB = process.resourceUsage().maxRSS / 1024;
  out.kept = keep !== null || mode === 'decoder';
  process.stdout.write(JSON.stringify(out) + '\n');
}
main().catch((e: unknown) => {
  process.stderr.write(String((e as Error).stack ?? e) + '\n');
  process.exit(1);
});
