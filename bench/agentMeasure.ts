// One in-process measurement of `npm run bench -- --agents` (bench/agents.ts), in a fresh process
// run with plain `node` (bench/out/agentMeasure.js, bundled: no TypeScript loader in it). Modes:
//  - `baseline`: read + split at newlines + JSON.parse each line, as bench/measure.ts does it;
//  - `open`: what a first paint costs — openSessionModel (the format told by content), the context
//    at the default leaf and its first 50 messages;
//  - `peek`: what the first paint costs while the file is read — its latest messages from its last
//    MB (openModel.ts peekSessionFile).
// Prints one JSON line: the wall time of that work (from before the read to the last message),
// and the process's peak RSS (startup included) with its RSS before the work.
import { readFileSync } from 'node:fs';
import { openSessionModel, peekSessionFile } from '../src/core/engine/openModel';

const [mode, file] = process.argv.slice(2);

async function main(): Promise<void> {
  const idleRssMB = process.memoryUsage().rss / 1048576;
  const out: Record<string, unknown> = { mode, idleRssMB };
  const t = performance.now();
  if (mode === 'baseline') {
    const buf = readFileSync(file!);
    const values: unknown[] = [];
    for (let s = 0; s < buf.length; ) {
      let e = buf.indexOf(10, s);
      if (e === -1) e = buf.length;
      if (e > s) values.push(JSON.parse(buf.toString('utf8', s, e)));
      s = e + 1;
    }
    out.ms = performance.now() - t;
    out.records = values.length;
  } else if (mode === 'open') {
    const model = await openSessionModel(file!);
    const opened = performance.now();
    const leaf = await model.defaultLeaf();
    const ctx = await model.context(leaf);
    const first = await model.messages(leaf, 0, 50);
    out.ms = performance.now() - t;
    out.openMs = opened - t;
    out.format = model.format;
    out.messages = ctx.messageCount;
    out.window = first.length;
    out.entries = (await model.summary()).entryCount;
  } else if (mode === 'peek') {
    // The first paint of a big file while it is read: its latest messages, from its last MB.
    const peek = await peekSessionFile(file!);
    out.ms = performance.now() - t;
    out.messages = peek?.messages.length ?? 0;
  } else throw new Error(`unknown mode ${mode}`);
  out.peakRssMB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(String((e as Error).stack ?? e) + '\n');
  process.exit(1);
});
