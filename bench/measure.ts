// One measurement in a fresh process (so peak RSS is honest): `baseline` (read + split lines +
// JSON.parse each) or `core` (loadSessionFile + buildTreeIndex, then buildSessionContext at the
// deepest leaf). Prints one JSON line on stdout.
//
// bench/run.ts bundles this file with esbuild (bench/out/measure.js) and runs it with plain
// `node`, so no TypeScript loader sits in the measured process. Two kinds of runs:
//  - timing runs (`reps` > 1 allowed) may be started with --expose-gc so each repetition starts
//    from a collected heap;
//  - the memory run is one repetition in a process started with NO node flags at all (no
//    --expose-gc, no heap-size flags): the process a user's CLI would be. Its `idleRssMB` is the
//    RSS of that same process right before loading starts, `peakRssMB` the kernel's maxRSS of
//    the whole process (startup, load+index and the context build included).
import { readFileSync } from 'node:fs';
import { loadSessionFile } from '../src/core/formats/xcsh/load';
import { buildTreeIndex } from '../src/core/tree/tree';
import { buildSessionContext } from '../src/core/formats/xcsh/context';

const [mode, file, repsArg] = process.argv.slice(2);
const reps = Number(repsArg ?? '1');
// The memory run (`reps` = 1) builds the context once, as a user opening a session does; timing
// runs build it 4 times (one cold call, then the best of 3 warm ones).
const ctxCalls = reps === 1 ? 1 : 4;
const gc = (globalThis as { gc?: () => void }).gc;
const rssMB = (): number => process.memoryUsage().rss / 1048576;

async function main(): Promise<void> {
  gc?.();
  const idleRss = rssMB();
  const times: number[] = [];
  const out: Record<string, unknown> = { mode, idleRssMB: idleRss, gcExposed: gc !== undefined };
  let keep: unknown = null;
  for (let r = 0; r < reps; r++) {
    keep = null;
    gc?.();
    if (mode === 'baseline') {
      const t = performance.now();
      // Byte-wise split: a 500 MB file is longer than V8's maximum string, so "read + split +
      // JSON.parse each" is done on the Buffer (the cheapest honest form of it).
      const buf = readFileSync(file!);
      const values: unknown[] = [];
      let k = 0;
      for (let s = 0; s < buf.length; ) {
        let e = buf.indexOf(10, s);
        if (e === -1) e = buf.length;
        if (e > s) values[k++] = JSON.parse(buf.toString('utf8', s, e));
        s = e + 1;
      }
      times.push(performance.now() - t);
      keep = values;
      out.records = k;
    } else {
      const t = performance.now();
      const loaded = await loadSessionFile(file!);
      const tree = buildTreeIndex(loaded.entries, loaded.entryLines);
      times.push(performance.now() - t);
      const leaf = tree.deepestLeaf();
      const ctxTimes: number[] = [];
      const c0 = performance.now();
      let ctx = buildSessionContext(loaded.entries, leaf, tree);
      if (ctxCalls === 1) ctxTimes.push(performance.now() - c0);
      for (let i = 1; i < ctxCalls; i++) {
        const c1 = performance.now();
        ctx = buildSessionContext(loaded.entries, leaf, tree);
        ctxTimes.push(performance.now() - c1);
      }
      out.records = loaded.entries.length + 1;
      out.depth = tree.depth(leaf!);
      out.messages = ctx.messages.length;
      out.ctxMs = Math.min(...ctxTimes);
      out.ctxMaxMs = Math.max(...ctxTimes);
      out.diagnostics = loaded.diagnostics.length + tree.diagnostics.length;
      keep = [loaded, tree];
    }
  }
  out.ms = Math.min(...times);
  out.allMs = times;
  out.peakRssMB = process.resourceUsage().maxRSS / 1024;
  out.kept = keep !== null;
  process.stdout.write(JSON.stringify(out) + '\n');
}
main().catch((e: unknown) => {
  process.stderr.write(String((e as Error).stack ?? e) + '\n');
  process.exit(1);
});
