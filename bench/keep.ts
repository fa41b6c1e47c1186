// `npm run generate -- <dir> [options]`: the benchmark's synthetic sessions, kept for you to open.
// Writes a sessions root (project folders of `<timestamp>_<id>.jsonl` files, as the agents lay them out),
// so Session Loom can browse it: point `sessionLoom.sessionRoots` (or `session-loom ls <dir>`) at it.
//
//   --entries N[,N…]   one xcsh v3 session per size (default 10000), with branches, labels and compactions
//   --corpus S:MB      S sessions adding up to about MB megabytes, calibrated for search like real ones
//   --dsh N            one deepseek-harness log of N events (.jsonl.zstd; needs Debian's `zstd`)
//   --seed K           another deterministic variant (default: the bench's own seeds)
//
// Everything is deterministic: the same options write the same bytes. Nothing is written outside <dir>, and a
// file that already exists there is never overwritten.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateDshLog } from './dshGenerate';
import { generateSession } from './generate';
import { generateSearchCorpus } from './searchCorpus';

const USAGE = 'usage: npm run generate -- <dir> [--entries N[,N…]] [--corpus SESSIONS:MB] [--dsh EVENTS] [--seed K]';

function fail(message: string): never {
  process.stderr.write(`generate: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function positive(value: string | undefined, what: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) fail(`${what} must be a positive whole number, not "${value ?? ''}"`);
  return n;
}

const args = process.argv.slice(2);
let dir: string | undefined;
let entries: number[] = [];
let corpus: { sessions: number; mb: number } | undefined;
let dsh: number | undefined;
let seed: number | undefined;
for (let i = 0; i < args.length; i++) {
  const a = args[i]!;
  const value = (): string => args[++i] ?? fail(`${a} needs a value`);
  if (a === '--help' || a === '-h') {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  } else if (a === '--entries') entries = value().split(',').map((v) => positive(v, '--entries'));
  else if (a === '--corpus') {
    const [s, mb] = value().split(':');
    corpus = { sessions: positive(s, 'the corpus\'s session count'), mb: positive(mb, 'the corpus\'s megabytes') };
  } else if (a === '--dsh') dsh = positive(value(), '--dsh');
  else if (a === '--seed') seed = positive(value(), '--seed');
  else if (a.startsWith('-')) fail(`unknown option ${a}`);
  else if (dir === undefined) dir = resolve(a);
  else fail(`one folder only (got "${dir}" and "${a}")`);
}
if (dir === undefined) fail('name the folder to write into');
if (entries.length === 0 && !corpus && dsh === undefined) entries = [10_000];

const project = join(dir, '--home-dev-generated--');
const written: string[] = [];
const fresh = (path: string): string => {
  if (existsSync(path)) fail(`${path} already exists: choose an empty folder (nothing is overwritten)`);
  return path;
};
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

for (const n of entries) {
  mkdirSync(project, { recursive: true });
  const file = fresh(join(project, `2026-01-01T00-00-00-000Z_generated-${n}.jsonl`));
  const s = generateSession(file, n, seed);
  written.push(`${file}  (${s.entries} entries, ${mb(s.bytes)}, ${s.branches} branches, ${s.compactions} compactions)`);
}
if (corpus) {
  const root = join(dir, 'corpus');
  if (existsSync(root) && readdirSync(root).length > 0) fail(`${root} is not empty (nothing is overwritten)`);
  const c = generateSearchCorpus({ dir: root, sessions: corpus.sessions, bytes: corpus.mb * 1e6, seed });
  written.push(`${root}  (${c.files.length} sessions, ${c.entries} entries, ${mb(c.bytes)}; rare words: ${c.words.rare.slice(0, 3).join(', ')})`);
}
if (dsh !== undefined) {
  const logs = join(dir, 'dsh');
  mkdirSync(logs, { recursive: true });
  const file = fresh(join(logs, `generated-${dsh}.jsonl.zstd`));
  const d = generateDshLog(file, dsh, seed);
  written.push(`${file}  (${d.events} events in ${d.frames} zstd frames, ${mb(d.bytes)})`);
}
process.stdout.write(`${written.join('\n')}\n`);
