// `npm run bench -- --cli`: a cold `session-loom context` on a generated session (issue 23's
// target: ≤ 0.5× a bare read + split + JSON.parse of the same file, peak RSS ≤ 1× the file), beside
// that baseline measured in the same run. Every figure is a whole process as a user runs it: node
// started, the file read, the answer written (to /dev/null), the process gone — wall time from
// spawn to exit, and the kernel's peak RSS of the process (a preload reports
// process.resourceUsage().maxRSS at exit, the same for both). `cold`: an empty CLI cache (the
// index is built, and kept for the next command); `warm`: the index kept by the run before.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSession } from './generate';
import { f0, f2, floorScript, measure, median, prepareWork, type Run } from './processRun';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');

export async function cliBench(sizes: number[], reps = 5): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`node esbuild.mjs\` first`);
  const work = mkdtempSync(join(tmpdir(), 'session-loom-bench-cli-'));
  try {
    const baseline = prepareWork(work);
    console.log(`Cold \`session-loom context <file>\` (default leaf, output to /dev/null) against a bare read + split + JSON.parse of the same file, each a whole node process; median of ${reps} runs, interleaved.`);
    console.log('entries | MB    | baseline ms (RSS MB) | floor ms (RSS MB) | floor/base | cold ms (RSS MB) | cold/base time | cold RSS/file | warm ms (RSS MB) | warm/base time | target');
    let allOk = true;
    for (const n of sizes) {
      const file = join(work, `bench-${n}.jsonl`);
      generateSession(file, n);
      const mb = statSync(file).size / 1048576;
      const base: Run[] = [];
      const floor: Run[] = [];
      const cold: Run[] = [];
      const warm: Run[] = [];
      for (let i = 0; i < reps; i++) {
        // A fresh, empty cache per cold run; the warm run after it reads the index the cold one kept.
        const cache = join(work, `cache-${n}-${i}`);
        mkdirSync(cache);
        const env = { ...process.env, XDG_CACHE_HOME: cache };
        base.push(measure([baseline, file], env, work));
        floor.push(measure([floorScript(work), file], env, work));
        cold.push(measure([CLI, 'context', file], env, work));
        warm.push(measure([CLI, 'context', file], env, work));
        rmSync(cache, { recursive: true, force: true });
      }
      const b = median(base.map((r) => r.ms));
      const fl = median(floor.map((r) => r.ms));
      const c = median(cold.map((r) => r.ms));
      const w = median(warm.map((r) => r.ms));
      const cRss = median(cold.map((r) => r.rssMB));
      const ok = c / b <= 0.5 && cRss / mb <= 1;
      allOk &&= ok;
      console.log(
        `${String(n).padStart(7)} | ${f0(mb).padStart(5)} | ${f0(b).padStart(11)} (${f0(median(base.map((r) => r.rssMB)))}) | ${f0(fl).padStart(8)} (${f0(median(floor.map((r) => r.rssMB)))}) | ${f2(fl / b).padStart(10)} | ${f0(c).padStart(7)} (${f0(cRss)}) | ${f2(c / b).padStart(14)} | ${f2(cRss / mb).padStart(13)} | ${f0(w).padStart(7)} (${f0(median(warm.map((r) => r.rssMB)))}) | ${f2(w / b).padStart(14)} | ${ok ? 'met' : 'MISSED'} (cold ≤ 0.5× baseline, RSS ≤ 1× file)`,
      );
      console.log(`        spread: baseline ${f0(Math.min(...base.map((r) => r.ms)))}–${f0(Math.max(...base.map((r) => r.ms)))} ms, floor ${f0(Math.min(...floor.map((r) => r.ms)))}–${f0(Math.max(...floor.map((r) => r.ms)))} ms, cold ${f0(Math.min(...cold.map((r) => r.ms)))}–${f0(Math.max(...cold.map((r) => r.ms)))} ms, warm ${f0(Math.min(...warm.map((r) => r.ms)))}–${f0(Math.max(...warm.map((r) => r.ms)))} ms`);
      rmSync(file, { force: true });
    }
    console.log('(floor: node started, the file read, every line JSON.parsed and nothing kept — what any command that must parse every line costs at least; the baseline also keeps every value)');
    console.log(allOk ? 'all targets met' : 'SOME TARGETS MISSED');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const arg = process.argv.indexOf('--sizes');
  void cliBench(arg !== -1 ? process.argv[arg + 1]!.split(',').map(Number) : [100_000]);
}
