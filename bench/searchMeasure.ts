// One measurement of the search benchmark in a fresh process (bench/search.ts bundles and runs
// it with plain `node`): `baseline` (read + split + JSON.parse every line of every session),
// `build` (the first full index build), `query` (open the built index, run each query
// `reps` times) or `append` (a session grows by 100 entries; the index picks it up).
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { SessionSearchIndex } from '../src/core/search/searchIndex';
import { bareReadParse, sessionFiles as files } from './sessionFiles';

const [mode, root, indexPath, arg] = process.argv.slice(2);


/**
 * CPU time of the main thread alone (Linux: /proc/self/task/<pid>/stat, utime + stime in clock
 * ticks of 10 ms): with the read-ahead worker, the build's critical path on a machine busy with
 * other work. Null elsewhere.
 */
function mainThreadCpuMs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const out: Record<string, unknown> = { mode };
  if (mode === 'baseline') {
    const t = performance.now();
    const records = bareReadParse(files(root!));
    out.ms = performance.now() - t;
    out.records = records;
  } else if (mode === 'build') {
    const t = performance.now();
    const idx = await SessionSearchIndex.open(indexPath!);
    const st = await idx.update([root!]);
    out.ms = performance.now() - t;
    out.stats = st;
    out.info = idx.info();
    idx.close();
    out.fileBytes = statSync(indexPath!).size;
  } else if (mode === 'query') {
    const queries = JSON.parse(arg!) as string[];
    const idx = await SessionSearchIndex.open(indexPath!);
    await idx.search('warmup');
    const times: { q: string; ms: number[]; sessions: number; rows: number }[] = [];
    for (const q of queries) {
      const ms: number[] = [];
      let sessions = 0;
      let rows = 0;
      for (let r = 0; r < 5; r++) {
        // A first page of results: the ranked sessions, and the best 3 entries (with snippets) of the first 10.
        const o = await idx.search(q, { entriesPerSession: 3, detailedSessions: 10 });
        ms.push(o.ms);
        sessions = o.results.sessions.length;
        rows = o.results.rows;
      }
      times.push({ q, ms, sessions, rows });
    }
    idx.close();
    out.times = times;
  } else if (mode === 'append') {
    // `arg`: the session file that grows; its last 100 lines are appended again with new ids.
    const file = arg!;
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const idx = await SessionSearchIndex.open(indexPath!);
    await idx.update([root!]);
    const ms: number[] = [];
    let parent = (JSON.parse(lines[lines.length - 1]!) as { id: string }).id;
    for (let rep = 0; rep < 5; rep++) {
      const chunk: string[] = [];
      for (const l of lines.slice(-100)) {
        const v = JSON.parse(l) as Record<string, unknown>;
        const id = `${rep}${Math.random().toString(16).slice(2, 9)}`;
        chunk.push(JSON.stringify({ ...v, id, parentId: parent }));
        parent = id;
      }
      appendFileSync(file, chunk.join('\n') + '\n');
      const t = performance.now();
      const st = await idx.updateFiles([file]);
      ms.push(performance.now() - t);
      if (st.appended !== 1 || st.rows !== 100) throw new Error(`expected a tail of 100 entries, got ${JSON.stringify(st)}`);
    }
    idx.close();
    out.ms = ms;
  }
  out.peakRssMB = process.resourceUsage().maxRSS / 1024;
  // CPU time of the whole process (all its threads): on a shared machine, wall time alone says
  // little of what a change did.
  const cpu = process.cpuUsage();
  out.cpuMs = (cpu.user + cpu.system) / 1000;
  out.mainThreadCpuMs = mainThreadCpuMs();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(String((e as Error).stack ?? e) + '\n');
  process.exit(1);
});
