// `npm run bench -- --agents [--mb 50] [--reps 3]`: issue 24's cost target — opening a Claude
// Code transcript or a Codex rollout costs what an xcsh session of the same size costs, ≤ 1× a
// bare read + split + JSON.parse of the same file, cold. For a generated transcript, rollout
// (bench/agentGenerate.ts, repeated real fixtures) and xcsh session (bench/generate.ts) of about
// the same size, in one run, the formats alternating within every repetition:
//  - whole processes (bench/processRun.ts): the bare baseline, a cold `session-loom context`
//    (an empty CLI cache) and a warm one (the cache the cold one left: only xcsh keeps an index);
//  - in-process, each in a fresh process (bench/agentMeasure.ts): openSessionModel + the context
//    at the default leaf + its first 50 messages, against a bare parse of the same file.
// Medians and ranges; the ratios are against the baseline of the same file.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync, type BuildOptions } from 'esbuild';
import { generateClaudeTranscript, generateCodexRollout } from './agentGenerate';
import { generateSession } from './generate';
import { f0, f2, floorScript, measure, median, prepareWork, range, type Run } from './processRun';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');

interface InProcess {
  ms: number;
  peakRssMB: number;
  idleRssMB: number;
  messages?: number;
  format?: string;
}

interface Figures {
  base: Run[];
  floor: Run[];
  cold: Run[];
  warm: Run[];
  inBase: InProcess[];
  inOpen: InProcess[];
  inPeek: InProcess[];
}

/** An xcsh session of about `bytes`: entries per byte from a small one, then the size asked for. */
function generateXcshOfSize(path: string, bytes: number): { bytes: number } {
  const probe = generateSession(path, 5000);
  return generateSession(path, Math.max(100, Math.round((5000 * bytes) / probe.bytes)));
}

export async function agentsBench(mb: number, reps: number): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`node esbuild.mjs\` first`);
  const { copySqliteWasm, nodeBundleOptions } = (await import(join(ROOT, 'scripts', 'esbuild-node.mjs'))) as {
    copySqliteWasm: (root: string, dir: string) => void;
    nodeBundleOptions: () => BuildOptions;
  };
  const outDir = join(__dirname, 'out');
  const worker = join(outDir, 'agentMeasure.js');
  buildSync({ ...nodeBundleOptions(), entryPoints: [join(__dirname, 'agentMeasure.ts')], outfile: worker, bundle: true, logLevel: 'warning' });
  copySqliteWasm(ROOT, outDir);

  const work = mkdtempSync(join(tmpdir(), 'session-loom-bench-agents-'));
  try {
    const baseline = prepareWork(work);
    const target = mb * 1048576;
    const files = {
      claude: join(work, 'claude.jsonl'),
      codex: join(work, 'codex.jsonl'),
      xcsh: join(work, 'xcsh.jsonl'),
    };
    const g0 = performance.now();
    const claude = generateClaudeTranscript(files.claude, target);
    const codex = generateCodexRollout(files.codex, target);
    generateXcshOfSize(files.xcsh, target);
    process.stderr.write(
      `generated in ${((performance.now() - g0) / 1000).toFixed(1)} s: Claude Code ${claude.copies} copies of the spotter transcript, Codex ${codex.copies} copies of the agentcmd rollout's turns, xcsh (bench/generate.ts); measuring ${reps} rounds…\n`,
    );
    const names = Object.keys(files) as (keyof typeof files)[];
    const empty = (): Figures => ({ base: [], floor: [], cold: [], warm: [], inBase: [], inOpen: [], inPeek: [] });
    const figs: Record<keyof typeof files, Figures> = { claude: empty(), codex: empty(), xcsh: empty() };
    const inProcess = (mode: string, file: string): InProcess => JSON.parse(measure([worker, mode, file], process.env, work, { stdout: true }).stdout!.trim().split('\n').pop()!) as InProcess;
    for (let i = 0; i < reps; i++) {
      for (const n of names) {
        const file = files[n];
        const f = figs[n];
        // a fresh, empty CLI cache per cold run; the warm run after it finds what the cold one kept
        const cache = join(work, `cache-${n}-${i}`);
        mkdirSync(cache);
        const env = { ...process.env, XDG_CACHE_HOME: cache };
        f.base.push(measure([baseline, file], env, work));
        f.floor.push(measure([floorScript(work), file], env, work));
        f.cold.push(measure([CLI, 'context', file], env, work));
        f.warm.push(measure([CLI, 'context', file], env, work));
        rmSync(cache, { recursive: true, force: true });
        f.inBase.push(inProcess('baseline', file));
        f.inOpen.push(inProcess('open', file));
        f.inPeek.push(inProcess('peek', file));
        process.stderr.write(`  round ${i + 1}: ${n} done\n`);
      }
    }

    console.log(`Opening a session of ~${mb} MB per format, ${reps} rounds with the formats alternating; medians [ranges]. Ratios are against the bare read + split + JSON.parse of the same file.`);
    console.log('');
    console.log('Whole process (node started, file read, answer written to /dev/null, process gone):');
    console.log('format  | MB   | baseline ms (RSS MB)  | floor ms | floor/base | cold context ms (RSS MB) | cold/base | warm context ms | warm/base | ≤ 1× cold');
    const verdicts: string[] = [];
    for (const n of names) {
      const f = figs[n];
      const size = statSync(files[n]).size / 1048576;
      const b = median(f.base.map((r) => r.ms));
      const fl = median(f.floor.map((r) => r.ms));
      const c = median(f.cold.map((r) => r.ms));
      const w = median(f.warm.map((r) => r.ms));
      // the ratio of each round's cold run to the same round's baseline, for its range
      const ratios = f.cold.map((r, k) => r.ms / f.base[k]!.ms);
      const ok = c / b <= 1;
      console.log(
        `${n.padEnd(7)} | ${f0(size).padStart(4)} | ${f0(b).padStart(5)} [${range(f.base.map((r) => r.ms))}] (${f0(median(f.base.map((r) => r.rssMB)))}) | ${f0(fl).padStart(4)} [${range(f.floor.map((r) => r.ms))}] | ${f2(fl / b)} | ${f0(c).padStart(5)} [${range(f.cold.map((r) => r.ms))}] (${f0(median(f.cold.map((r) => r.rssMB)))}) | ${f2(c / b)} [${range(ratios, f2)}] | ${f0(w).padStart(5)} [${range(f.warm.map((r) => r.ms))}] | ${f2(w / b)} | ${ok ? 'met' : 'MISSED'}`,
      );
      verdicts.push(`${n}: cold CLI ${f2(c / b)}× (${ok ? 'met' : 'MISSED'})`);
    }
    console.log('(floor: node started, the file read, every line JSON.parsed and nothing kept — what any open that must parse every line costs at least)');
    console.log('');
    console.log('In-process, a fresh process each (openSessionModel + context at the default leaf + its first 50 messages, against a bare parse of the same file in its own process):');
    console.log('format  | parse ms              | open+context+50 ms     | ratio            | peak RSS MB (parse → open) | context messages | first rows while read (peek) ms | peek/parse');
    for (const n of names) {
      const f = figs[n];
      const b = median(f.inBase.map((r) => r.ms));
      const o = median(f.inOpen.map((r) => r.ms));
      const ratios = f.inOpen.map((r, k) => r.ms / f.inBase[k]!.ms);
      const ok = o / b <= 1;
      const p = median(f.inPeek.map((r) => r.ms));
      console.log(
        `${n.padEnd(7)} | ${f0(b).padStart(5)} [${range(f.inBase.map((r) => r.ms))}] | ${f0(o).padStart(5)} [${range(f.inOpen.map((r) => r.ms))}] | ${f2(o / b)} [${range(ratios, f2)}] | ${f0(median(f.inBase.map((r) => r.peakRssMB)))} → ${f0(median(f.inOpen.map((r) => r.peakRssMB)))} | ${f.inOpen[0]!.messages} (${f.inOpen[0]!.format}) | ${f0(p).padStart(4)} [${range(f.inPeek.map((r) => r.ms))}] (${f.inPeek[0]!.messages} messages) | ${f2(p / b)}`,
      );
      verdicts.push(`${n}: in-process ${f2(o / b)}× (${ok ? 'met' : 'MISSED'})`);
    }
    console.log('');
    console.log(`Target ≤ 1× the bare parse, cold — ${verdicts.join('; ')}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
