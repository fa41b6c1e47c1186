// Issue 26's two measurements of a cheaper first index build, each in a fresh process (bench/search.ts
// bundles this file and runs it with plain `node` for `npm run bench -- --search --dedup`):
//
//   baseline <roots json>              the bare read+parse of the same files (wall and CPU).
//   dup <roots json>                    how much of what the index is fed repeats: the share of rows,
//                                       text bytes and postings (distinct words per text) whose text
//                                       was seen before, per entry body and per content block.
//   build <variant> <dir> <roots json>  the first build of the files under the roots, by the product's
//                                       own code (SessionSearchIndex / updateIndex, read-ahead worker
//                                       included), as one of:
//     today       as built;
//     dedup-meta  a row whose body text (hash, then the text itself compared) was already inserted
//                 gets an FTS5 row with its meta words only (role, tool, agent: per entry, needed by
//                 the filters) — about what an index of distinct texts would write (its text table
//                 and entry → text map not counted);
//     dedup-skip  the upper bound: the repeated texts are found before the clock starts, and such a
//                 row gets no FTS5 row at all (no hashing, no meta words, no map);
//     shards      two worker threads, each building half the files (alternately, newest first) into
//                 its own database, each reading the files itself;
//     shards-ra   the same, each shard with its own read-ahead worker (four threads).
//   query <queries json> <db>…         each query (a first page: 10 sessions × 3 entries with
//                                       snippets) on every database one after the other, 5 runs; the
//                                       time per query is the sum over the databases (what one thread
//                                       asking two shards pays; merging the two lists is not counted).
//
// The dedup variants patch RowWriter.addText in this process only (the text map lives in memory,
// which a real index would keep in a table): everything else is the build as shipped. SQLite's
// WASM is compiled before the clock starts (the baseline has no such start-up either).
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import { openIndexDb } from '../src/core/search/indexDb';
import { defaultReadWorkerFile } from '../src/core/search/indexReadAhead';
import { readWholeFile, type IndexRow } from '../src/core/search/indexRead';
import { sessionFilesUnder, updateIndex } from '../src/core/search/indexUpdate';
import { textWords } from '../src/core/search/queryLanguage';
import { RowWriter } from '../src/core/search/rowWriter';
import { SessionSearchIndex } from '../src/core/search/searchIndex';
import { loadSqliteWasm } from '../src/core/store/sqliteWasm';
import { bareReadParse } from './sessionFiles';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Texts seen so far, by hash; a hash hit counts only when the texts are equal (a collision is a new text). */
class TextSet {
  private readonly byHash = new Map<string, string[]>();
  collisions = 0;

  /** Whether `text` was added before; adds it if not. */
  seen(text: string): boolean {
    const h = createHash('sha1').update(text).digest('base64');
    const same = this.byHash.get(h);
    if (!same) {
      this.byHash.set(h, [text]);
      return false;
    }
    if (same.includes(text)) return true;
    this.collisions++;
    same.push(text);
    return false;
  }
}

/** Rows, bytes and postings of a granularity, and the part of each already seen. */
export interface Share {
  texts: number;
  dupTexts: number;
  bytes: number;
  dupBytes: number;
  postings: number;
  dupPostings: number;
  /** Of the duplicates, those first seen in another file (the rest repeat within their own session). */
  dupBytesOtherFile: number;
}

const share = (): Share => ({ texts: 0, dupTexts: 0, bytes: 0, dupBytes: 0, postings: 0, dupPostings: 0, dupBytesOtherFile: 0 });

/** Counts one text into `s` (empty texts are not texts). */
function count(s: Share, set: TextSet, firstFile: Map<string, number>, file: number, text: string): void {
  if (text === '') return;
  const bytes = Buffer.byteLength(text);
  const postings = new Set(textWords(text)).size;
  s.texts++;
  s.bytes += bytes;
  s.postings += postings;
  if (set.seen(text)) {
    s.dupTexts++;
    s.dupBytes += bytes;
    s.dupPostings += postings;
    if (firstFile.get(text) !== file) s.dupBytesOtherFile += bytes;
  } else firstFile.set(text, file);
}

const SKIPPED_TYPES = new Set(['thinking', 'redacted_thinking', 'reasoning', 'image', 'input_image']);
const SKIPPED_KEYS = new Set(['signature', 'thinkingSignature', 'encrypted_content', 'data', 'usage', 'id', 'parentId', 'uuid', 'parentUuid', 'timestamp', 'details', 'cost']);
const TEXT_KEYS = new Set(['text', 'content', 'output', 'command', 'code', 'summary', 'arguments', 'input', 'stdout', 'stderr', 'result', 'message', 'task', 'label']);

/**
 * The content blocks of a record as the index reads them, told apart: each text block, tool call's
 * arguments, tool output (thinking, signatures and images left out, as the index leaves them out).
 * Format-neutral: a walk over the record's JSON, not each reader's rules, so an approximation.
 */
function recordBlocks(v: unknown, key: string, out: string[]): void {
  if (typeof v === 'string') {
    if (TEXT_KEYS.has(key) && v !== '') out.push(v);
  } else if (Array.isArray(v)) for (const x of v) recordBlocks(x, key, out);
  else if (isObj(v)) {
    if (typeof v.type === 'string' && SKIPPED_TYPES.has(v.type)) return;
    for (const [k, x] of Object.entries(v)) {
      if (SKIPPED_KEYS.has(k)) continue;
      // A tool call's arguments as one block (the index puts them in as their JSON).
      if ((k === 'arguments' || k === 'input') && isObj(x)) out.push(JSON.stringify(x));
      else recordBlocks(x, k, out);
    }
  }
}

/** The blocks of the record(s) at a row's bytes (a line of JSON each). */
function rowBlocks(file: Buffer, r: IndexRow): string[] {
  const out: string[] = [];
  for (const line of file.toString('utf8', r.off, r.off + r.len).split('\n')) {
    try {
      if (line.trim() !== '') recordBlocks(JSON.parse(line), '', out);
    } catch {
      // not a JSON line (a dsh packed chunk read another way): no blocks
    }
  }
  return out;
}

async function duplicates(roots: string[]): Promise<Record<string, unknown>> {
  const files = [...(await sessionFilesUnder(roots)).keys()].sort();
  const entry = share();
  const block = share();
  const entrySet = new TextSet();
  const blockSet = new TextSet();
  const entryFirst = new Map<string, number>();
  const blockFirst = new Map<string, number>();
  let allPostings = 0;
  let bytes = 0;
  for (const [i, f] of files.entries()) {
    const buf = readFileSync(f);
    bytes += buf.length;
    const read = await readWholeFile(f, 2 ** 24);
    for (const r of read.title ? [read.title, ...read.rows] : read.rows) {
      allPostings += new Set(textWords(`${r.body} ${r.meta}`)).size;
      count(entry, entrySet, entryFirst, i, r.body);
      if (!f.endsWith('.zstd')) for (const b of rowBlocks(buf, r)) count(block, blockSet, blockFirst, i, b);
    }
  }
  return { files: files.length, bytes, allPostings, entry, block, collisions: entrySet.collisions + blockSet.collisions };
}

/** The entry bodies of `files` that occur more than once. */
async function repeatedBodies(files: Iterable<string>): Promise<Set<string>> {
  const times = new Map<string, number>();
  for (const f of files) for (const r of (await readWholeFile(f, 2 ** 24)).rows) if (r.body !== '') times.set(r.body, (times.get(r.body) ?? 0) + 1);
  return new Set([...times].filter(([, n]) => n > 1).map(([t]) => t));
}

/**
 * Makes this process's builds strip to its meta words (dedup-meta: repeats found by hash and
 * compare as the build goes) or skip (dedup-skip: `repeated` known beforehand) an FTS5 row whose
 * body was inserted before.
 */
function patchDedup(variant: 'dedup-meta' | 'dedup-skip', repeated: Set<string>): { skipped: () => number } {
  const set = new TextSet();
  const inserted = new Set<string>();
  let skipped = 0;
  const addText = RowWriter.prototype.addText;
  const again =
    variant === 'dedup-meta'
      ? (body: string): boolean => set.seen(body)
      : (body: string): boolean => {
          if (!repeated.has(body)) return false;
          if (inserted.has(body)) return true;
          inserted.add(body);
          return false;
        };
  RowWriter.prototype.addText = function (this: RowWriter, rowid: number, body: string, meta: string): void {
    if (body === '' || !again(body)) return addText.call(this, rowid, body, meta);
    skipped++;
    if (variant === 'dedup-meta') addText.call(this, rowid, '', meta);
  };
  return { skipped: () => skipped };
}

/** The product's build of `files` into the database at `path`. */
async function buildInto(path: string, files: Map<string, Stats>, readAhead: boolean): Promise<{ rows: number; bytes: number }> {
  const opened = await openIndexDb(path);
  try {
    const st = await updateIndex(opened, files, { complete: true, readWorkerFile: readAhead ? defaultReadWorkerFile() : null });
    return { rows: st.rows, bytes: statSync(path).size };
  } finally {
    opened.close();
  }
}

/** CPU time of the whole process (every thread), ms. */
function cpuMs(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

async function build(variant: string, dir: string, roots: string[]): Promise<Record<string, unknown>> {
  mkdirSync(dir, { recursive: true });
  const files = await sessionFilesUnder(roots);
  await loadSqliteWasm();
  const repeated = variant === 'dedup-skip' ? await repeatedBodies(files.keys()) : new Set<string>();
  const t = performance.now();
  const c = cpuMs();
  const out: Record<string, unknown> = { variant };
  if (variant === 'shards' || variant === 'shards-ra') {
    // Newest first, dealt alternately: each shard gets half the files and half of each age.
    const byAge = [...files].sort((a, b) => b[1].mtimeMs - a[1].mtimeMs);
    const halves = [0, 1].map((k) => byAge.filter((_, i) => i % 2 === k).map(([p]) => p));
    const done = await Promise.all(
      halves.map(
        (paths, k) =>
          new Promise<{ rows: number; bytes: number }>((resolve, reject) => {
            const w = new Worker(__filename, { workerData: { path: join(dir, `shard${k}`, 'index.db'), paths, readAhead: variant === 'shards-ra' } });
            w.once('message', resolve);
            w.once('error', reject);
          }),
      ),
    );
    out.rows = done.reduce((n, d) => n + d.rows, 0);
    out.indexBytes = done.reduce((n, d) => n + d.bytes, 0);
    out.dbs = [0, 1].map((k) => join(dir, `shard${k}`, 'index.db'));
  } else {
    const dedup = variant === 'dedup-meta' || variant === 'dedup-skip' ? patchDedup(variant, repeated) : null;
    const r = await buildInto(join(dir, 'index.db'), files, true);
    out.rows = r.rows;
    out.indexBytes = r.bytes;
    out.skippedRows = dedup?.skipped() ?? 0;
    out.dbs = [join(dir, 'index.db')];
  }
  out.ms = performance.now() - t;
  out.cpuMs = cpuMs() - c;
  return out;
}

async function query(queries: string[], dbs: string[]): Promise<Record<string, unknown>> {
  const idxs = await Promise.all(dbs.map((p) => SessionSearchIndex.open(p)));
  try {
    for (const idx of idxs) await idx.search('warmup');
    const times: { q: string; ms: number[] }[] = [];
    for (const q of queries) {
      const ms: number[] = [];
      for (let r = 0; r < 5; r++) {
        let sum = 0;
        for (const idx of idxs) sum += (await idx.search(q, { entriesPerSession: 3, detailedSessions: 10 })).ms;
        ms.push(sum);
      }
      times.push({ q, ms });
    }
    return { times };
  } finally {
    for (const idx of idxs) idx.close();
  }
}

async function main(): Promise<void> {
  if (!isMainThread) {
    // A shard of `build shards`: half the files into its own database.
    const { path, paths, readAhead } = workerData as { path: string; paths: string[]; readAhead: boolean };
    const files = new Map<string, Stats>(paths.map((p) => [p, statSync(p)]));
    mkdirSync(join(path, '..'), { recursive: true });
    const { parentPort } = await import('node:worker_threads');
    parentPort!.postMessage(await buildInto(path, files, readAhead));
    return;
  }
  const [mode, a, b, c] = process.argv.slice(2);
  let out: Record<string, unknown>;
  if (mode === 'baseline') {
    const files = [...(await sessionFilesUnder(JSON.parse(a!) as string[])).keys()];
    const t = performance.now();
    const c0 = cpuMs();
    out = { records: bareReadParse(files) };
    out.ms = performance.now() - t;
    out.cpuMs = cpuMs() - c0;
  } else if (mode === 'dup') out = await duplicates(JSON.parse(a!) as string[]);
  else if (mode === 'build') out = await build(a!, b!, JSON.parse(c!) as string[]);
  else if (mode === 'query') out = await query(JSON.parse(a!) as string[], process.argv.slice(4));
  else throw new Error(`searchDedup: unknown mode ${mode}`);
  out.peakRssMB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(String((e as Error).stack ?? e) + '\n');
  process.exit(1);
});
