// One measurement in a fresh process (so peak RSS is honest): `baseline` (read + split lines +
// JSON.parse each) or `core` (loadSessionFile + buildTreeIndex, then buildSessionContext at the
// deepest leaf). Prints one JSON line on stdout.
import { readFileSync } from 'node:fs';
import { loadSessionFile } from '../src/core/load';
import { buildTreeIndex } from '../src/core/tree';
import { buildSessionContext } from '../src/core/context';

const [mode, file, repsArg] = process.argv.slice(2);
const reps = Number(repsArg ?? '1');
const gc = (globalThis as { gc?: () => void }).gc;
const rssMB = (): number => process.memoryUsage().rss / 1048576;

async function main(): Promise<void> {
  gc?.();
  const idleRss = rssMB();
  const times: number[] = [];
  const out: Record<string, unknown> = { mode, idleRssMB: idleRss };
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
      let ctx = buildSessionContext(loaded.entries, leaf, tree);
      for (let i = 0; i < 3; i++) {
        const c0 = performance.now();
        ctx = buildSessionContext(loaded.entries, leaf, tree);
        ctxTimes.push(performance.now() - c0);
      }
      // Also the cold first call's cost is included via min over warm calls being reported separately.
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
