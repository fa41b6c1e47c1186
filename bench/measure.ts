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
import { buildSessionContext } from '../test/reference/context';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LazyXcshModel } from '../src/core/engine/xcsh/lazy/lazyModel';
import { deepestLeaf } from '../test/reference/treeQueries';

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
  const idleHeapMB = process.memoryUsage().heapTotal / 1048576;
  const times: number[] = [];
  const out: Record<string, unknown> = { mode, idleRssMB: idleRss, idleHeapMB, gcExposed: gc !== undefined };
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
    } else if (mode === 'lazy') {
      keep = await measureLazy(out, times);
    } else {
      const t = performance.now();
      const loaded = await loadSessionFile(file!);
      const tree = buildTreeIndex(loaded.entries, loaded.entryLines);
      times.push(performance.now() - t);
      const leaf = deepestLeaf(tree);
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
/**
 * The lazy model (issue 11): index time and the event loop's worst stall while indexing, then a
 * first paint as the editor does it (summary, the first 100 tree rows, the context at the
 * deepest leaf and its first 50 messages) with the bytes of bodies it read, then the RSS once
 * settled (after a full GC, the index held).
 */
async function measureLazy(out: Record<string, unknown>, times: number[]): Promise<unknown> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const t = performance.now();
  const model = await LazyXcshModel.open(file!);
  times.push(performance.now() - t);
  loop.disable();
  if (!model) throw new Error('the bench session is not in the lazy scope');
  out.loopMaxMs = loop.max / 1e6;
  out.loopP99Ms = loop.percentile(99) / 1e6;
  // once indexed: the index held, the garbage of the pass collected, nothing asked of it yet
  setFlagsFromString('--expose-gc');
  const gcNow = runInNewContext('gc') as () => void;
  gcNow();
  gcNow();
  out.indexedRssMB = rssMB();
  const ix = model.index;
  const { n, shadowed, firstChild, depth } = ix.tree;
  let deepest = -1;
  for (let i = 0; i < n; i++) if (!shadowed[i] && firstChild[i] === -1 && (deepest === -1 || depth[i]! > depth[deepest]!)) deepest = i;
  const leaf = ix.ids.at(deepest);
  const p0 = performance.now();
  const summary = await model.summary();
  const tr0 = performance.now();
  const rows = await model.tree({ filter: 'default', search: '', leafId: leaf, focusEntryId: null, start: 0, count: 100 });
  const treeMs = performance.now() - tr0;
  const read0 = model.bytesRead;
  const c0 = performance.now();
  const ctx = await model.context(leaf);
  const ctxMs = performance.now() - c0;
  const msgs = await model.messages(leaf, Math.max(0, ctx.messageCount - 50), 50);
  const windowMs = performance.now() - c0;
  out.firstPaintMs = performance.now() - p0;
  out.ctxBytesRead = model.bytesRead - read0;
  out.ctxMs = ctxMs;
  out.ctxWindowMs = windowMs;
  out.treeMs = treeMs;
  out.rows = rows.total;
  out.records = summary.entryCount + 1;
  out.depth = depth[deepest];
  out.messages = ctx.messageCount;
  out.windowMessages = msgs.length;
  out.indexBytes = indexBytes(model);
  // settled: the index and what the first paint keeps (its tree layout, the context's arrays)
  gcNow();
  gcNow();
  out.settledRssMB = rssMB();
  const mu = process.memoryUsage();
  out.settledHeapMB = mu.heapTotal / 1048576;
  out.settledExternalMB = mu.external / 1048576;
  return model;
}

/** The bytes the index's arrays hold (typed arrays + packed strings), for bytes per entry. */
function indexBytes(model: LazyXcshModel): number {
  const ix = model.index;
  let b = 0;
  for (const v of Object.values(ix)) if (ArrayBuffer.isView(v)) b += v.byteLength;
  for (const v of Object.values(ix.tree)) if (ArrayBuffer.isView(v)) b += v.byteLength;
  b += ix.ids.approxBytes();
  b += ix.tree.n * 8; // the id table: 2 slots of 4 bytes per id
  return b;
}

main().catch((e: unknown) => {
  process.stderr.write(String((e as Error).stack ?? e) + '\n');
  process.exit(1);
});
