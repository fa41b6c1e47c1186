// `npm run bench -- --search --dedup [--reps N]`: issue 26's two ideas for a cheaper first index
// build, measured in the same run as the search bench's bare read+parse (bench/searchDedup.ts does
// each measurement in a fresh process): how much of the indexed text repeats (on the real fixtures
// and on the generated corpus), what skipping the repeated texts' FTS5 rows saves, and two index
// shards built in parallel, with the cost of asking two shards a query.
//
// Measured (dedup branch, 2-core machine shared with other work, `--corpus` of 300 generated
// sessions / 257 MB, `--reps 5`): neither pays. Repeated entry bodies are 3.6% of the indexed text
// and 4.2% of its postings on the real fixtures (content blocks: 6.1% / 7.1%), 0.5% / 1.3% on the
// generated corpus (1.4% / 3.7%): a build that indexes each text once saves at most that, and
// measured saves nothing beyond the runs' noise (CPU 6.6 s as built, 7.2 s with the repeats known
// beforehand, 7.8 s found by hash as the build goes). Two shards: wall 4.7 s against 5.5 s (ranges
// 4.0–7.3 and 4.2–6.8 s), 9% more CPU, and a query asked of both 13% slower (p95 23.0 / 20.3 ms).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { median, pct } from './processRun';
// Types only: searchDedup.ts is its own bundle, run in a process of its own.
import type { Share } from './searchDedup';

export type RunBundle = (file: string, args: string[], flags?: string[]) => Record<string, unknown>;

/** The fixture folders measured: every real session, less `upstream/` (byte-exact excerpts of `upstream-full/`, repeats by construction). */
const FIXTURE_FOLDERS = ['upstream-full', 'real-v3', 'dsh', 'claude-code', 'codex'];

const VARIANTS = ['today', 'dedup-meta', 'dedup-skip', 'shards', 'shards-ra'] as const;
const VARIANT_NAMES: Record<(typeof VARIANTS)[number], string> = {
  today: 'as built (read-ahead worker)',
  'dedup-meta': 'dedup: a repeated body gets its meta words only',
  'dedup-skip': 'dedup upper bound: repeats known beforehand, a repeated body gets no FTS5 row',
  shards: 'two shards in two threads',
  'shards-ra': 'two shards, each with a read-ahead worker (4 threads)',
};


const pc = (a: number, b: number): string => `${((100 * a) / b).toFixed(1)}%`;
const s1 = (ms: number): string => (ms / 1000).toFixed(1);

export function dedupBench(o: { run: RunBundle; outDir: string; workDir: string; repoRoot: string; corpusRoot: string; queries: string[]; reps: number }): void {
  const dedupJs = join(o.outDir, 'searchDedup.js');
  const fixtureRoots = FIXTURE_FOLDERS.map((f) => join(o.repoRoot, 'test', 'fixtures', f));
  const corpora = [
    { name: 'real fixtures (xcsh/pi, dsh, Claude Code, Codex)', roots: fixtureRoots, reps: Math.max(5, o.reps) },
    { name: 'generated corpus', roots: [o.corpusRoot], reps: o.reps },
  ];
  // The text maps of a 250 MB corpus hold its distinct texts.
  const heap = ['--max-old-space-size=6144'];

  console.log('\nDuplicate texts (issue 26): the share of what the index is fed whose text was seen before (hash, then the text compared)');
  console.log('| corpus | files | MB | entry bodies: repeated rows | bytes | postings (of all postings) | of the repeated bytes, first seen in another session | content blocks: repeated blocks | bytes | postings |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const c of corpora) {
    const d = o.run(dedupJs, ['dup', JSON.stringify(c.roots)], heap) as { files: number; bytes: number; allPostings: number; entry: Share; block: Share; collisions: number };
    const e = d.entry;
    const b = d.block;
    console.log(
      `| ${c.name} | ${d.files} | ${(d.bytes / 1048576).toFixed(1)} | ${pc(e.dupTexts, e.texts)} of ${e.texts} | ${pc(e.dupBytes, e.bytes)} | ${pc(e.dupPostings, e.postings)} (${pc(e.dupPostings, d.allPostings)}) | ${pc(e.dupBytesOtherFile, e.dupBytes)} | ${pc(b.dupTexts, b.texts)} of ${b.texts} | ${pc(b.dupBytes, b.bytes)} | ${pc(b.dupPostings, b.postings)} |`,
    );
  }

  console.log('\nFirst build, each variant in a fresh process, against the same run\'s bare read+parse (wall and CPU of all threads; median of the runs, range in brackets):');
  console.log('| corpus | build | wall | × baseline | CPU | CPU × baseline CPU | rows without a body in FTS5 | index |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  let shardDbs: string[] = [];
  let singleDbs: string[] = [];
  for (const c of corpora) {
    const runs = new Map<string, Record<string, unknown>[]>(VARIANTS.map((v) => [v, []]));
    const bases: { ms: number; cpuMs: number }[] = [];
    for (let r = 0; r < c.reps; r++) {
      // The baseline over the same files (CPU: of the read+parse alone, as the builds' CPU is of the build alone).
      bases.push(o.run(dedupJs, ['baseline', JSON.stringify(c.roots)]) as { ms: number; cpuMs: number });
      for (const v of VARIANTS) {
        const dir = join(o.workDir, `${c.roots.length}-${v}`);
        rmSync(dir, { recursive: true, force: true });
        const out = o.run(dedupJs, ['build', v, dir, JSON.stringify(c.roots)], heap);
        runs.get(v)!.push(out);
        if (c.roots[0] === o.corpusRoot && v === 'today') singleDbs = out.dbs as string[];
        if (c.roots[0] === o.corpusRoot && v === 'shards') shardDbs = out.dbs as string[];
      }
    }
    const baseMs = median(bases.map((b) => b.ms));
    const baseCpu = median(bases.map((b) => b.cpuMs));
    const range = (xs: number[]): string => (xs.length > 1 ? ` [${s1(Math.min(...xs))}–${s1(Math.max(...xs))}]` : '');
    console.log(`| ${c.name} | bare read+parse (baseline) | ${s1(baseMs)} s${range(bases.map((b) => b.ms))} | 1 | ${s1(baseCpu)} s | 1 | | |`);
    for (const v of VARIANTS) {
      const rs = runs.get(v)!;
      const ms = rs.map((x) => x.ms as number);
      const cpu = rs.map((x) => x.cpuMs as number);
      const last = rs[rs.length - 1]!;
      const skipped = v.startsWith('dedup') ? `${last.skippedRows as number} of ${last.rows as number}` : '';
      console.log(
        `| ${c.name} | ${VARIANT_NAMES[v]} | ${s1(median(ms))} s${range(ms)} | ${(median(ms) / baseMs).toFixed(2)}× | ${s1(median(cpu))} s | ${(median(cpu) / baseCpu).toFixed(2)}× | ${skipped} | ${((last.indexBytes as number) / 1048576).toFixed(1)} MB |`,
      );
    }
  }

  if (singleDbs.length > 0 && shardDbs.length > 0) {
    console.log(`\nQuery cost on the generated corpus (${o.queries.length} queries × 4 warm runs, a first page each; two shards asked one after the other, the merge not counted):`);
    console.log('| index | p50 | p95 | max |');
    console.log('|---|---:|---:|---:|');
    for (const [name, dbs] of [
      ['one index (as built)', singleDbs],
      ['two shards', shardDbs],
    ] as const) {
      const q = o.run(dedupJs, ['query', JSON.stringify(o.queries), ...dbs]) as { times: { ms: number[] }[] };
      const all = q.times.flatMap((t) => t.ms.slice(1));
      console.log(`| ${name} | ${pct(all, 50).toFixed(1)} ms | ${pct(all, 95).toFixed(1)} ms | ${Math.max(...all).toFixed(1)} ms |`);
    }
  }
}
