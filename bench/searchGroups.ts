// Where the search index's first build spends its writer thread (issue 12), measured apart from
// the parse: each file is read and its rows made before the timed part, then written as the
// build writes them (one transaction per 64 MB read, FTS5's bulk merge policy, one 'optimize').
//
//   node --import tsx bench/searchGroups.ts <sessions dir> <group> [maxChars]
//     FTS5 rows of up to <group> consecutive entries of a file (1 = one row per entry, as built),
//     a group closed early at [maxChars] of text. Prints the writer's CPU beside a bare
//     read+split+JSON.parse of the same files (the baseline).
//     Variants (environment): MEMORY=1 an in-memory database (no VFS, no journal);
//     DISTINCT=1 each row's distinct words only; TOKENIZE=ascii another tokenizer;
//     HASH_MB=n FTS5's pending-postings limit; SKIP_FTS=1 the `entries` rows only.
//   node --import tsx bench/searchGroups.ts --vocabulary
//     Synthetic rows of the same size into an in-memory FTS5 table with the index's schema, from
//     vocabularies of different sizes: FTS5's cost follows how many distinct terms it holds.
//
// Measured (search-groups branch, CPU of the writing thread, write + optimize): grouping does not
// pay. /work/sbench (2,525 MB, 1.92 M entries): 139.3 s one row per entry, 140.6 s in groups of 16.
// /work/sperf-small (255 MB): 13.6 s (1), 12.2 (8), 11.6 (16), 13.7 (32), 12.4 (64), 11.1 (16 or
// 16 KB). The postings fall only 1.36× (16) / 1.68× (64) on the generated sessions (1.9× / 3.0×
// on the real fixtures, whose writer gained 1.3–1.5×), and FTS5's cost follows the vocabulary
// more than the rows: --vocabulary writes the same ~20 M postings in 2.1–2.6 s from 1,000
// distinct words, 4.3–7.5 s from 20,000, 14–22 s from 200,000, and 12–14 s as 16× longer rows.
import { rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openIndexDb, setMergePolicy, type Db } from '../src/core/search/indexDb';
import { readWholeFile, type IndexRow } from '../src/core/search/indexRead';
import { textWords } from '../src/core/search/queryLanguage';
import { RowWriter } from '../src/core/search/rowWriter';
import { loadSqliteWasm } from '../src/core/store/sqliteWasm';
import { bareReadParse, sessionFiles as files } from './sessionFiles';

const env = process.env;
const FTS_SCHEMA = (contentlessDelete: number, tokenize: string): string =>
  `CREATE VIRTUAL TABLE fts USING fts5(body, meta, content='', contentless_delete=${contentlessDelete}, detail=none, tokenize='${tokenize}');`;
const ENTRIES_SCHEMA = 'CREATE TABLE entries(id INTEGER PRIMARY KEY, eid TEXT NOT NULL, ts INTEGER, off INTEGER NOT NULL, len INTEGER NOT NULL);';
const BATCH_BYTES = 64 * 1024 * 1024;


/** CPU of the process (one thread does all the work here: no read-ahead worker). */
const cpu = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** The baseline over `list`: its CPU time. */
function bareParseCpuMs(list: readonly string[]): number {
  const t = cpu();
  bareReadParse(list);
  return cpu() - t;
}

interface GroupRow {
  rowid: number;
  body: string;
  meta: string;
  entries: IndexRow[];
}

/** A file's entry rows in groups of up to `group` entries (and `maxChars` of text), as FTS5 rows. */
function groupRows(rows: readonly IndexRow[], base: number, group: number, maxChars: number): GroupRow[] {
  const out: GroupRow[] = [];
  let seq = 1;
  for (let i = 0; i < rows.length; ) {
    let j = i;
    let chars = 0;
    while (j < rows.length && j - i < group && (j === i || chars + rows[j]!.body.length <= maxChars)) chars += rows[j++]!.body.length;
    const g = rows.slice(i, j);
    const body = g.length === 1 ? g[0]!.body : g.map((r) => r.body).join('\n');
    out.push({ rowid: base + seq, body: env.DISTINCT ? [...new Set(textWords(body))].join(' ') : body, meta: g.map((r) => r.meta).join(' '), entries: g });
    seq += g.length;
    i = j;
  }
  return out;
}

async function corpus(root: string, group: number, maxChars: number): Promise<void> {
  const path = join(tmpdir(), `session-loom-groups-${process.pid}`, 'index.db');
  const idx = await openIndexDb(path);
  const { sqlite3 } = idx;
  const db: Db = env.MEMORY ? new sqlite3.oo1.DB(':memory:') : idx.db;
  if (env.MEMORY) db.exec(ENTRIES_SCHEMA);
  if (env.MEMORY || env.TOKENIZE) db.exec(`DROP TABLE IF EXISTS fts; ${FTS_SCHEMA(1, env.TOKENIZE ?? 'unicode61 remove_diacritics 2')}`);
  setMergePolicy(db, { hashBytes: Number(env.HASH_MB ?? 64) * 1024 * 1024, automerge: 0 });
  const w = new RowWriter(db, sqlite3);
  const list = files(root).sort();
  const bareMs = bareParseCpuMs(list);
  let writeMs = 0;
  let readMs = 0;
  let ftsRows = 0;
  let bytes = 0;
  let batch = 0;
  let inTx = false;
  let fid = 2 ** 28;
  for (const f of list) {
    let t = cpu();
    const groups = groupRows((await readWholeFile(f, 2 ** 24)).rows, fid * 2 ** 24, group, maxChars);
    readMs += cpu() - t;
    t = cpu();
    if (!inTx) db.exec('BEGIN');
    inTx = true;
    for (const g of groups) {
      if (!env.SKIP_FTS) w.addText(g.rowid, g.body, g.meta);
      ftsRows++;
      g.entries.forEach((r, k) => w.addEntry(g.rowid + k, r.eid, r.ts, r.off, r.len));
    }
    const size = statSync(f).size;
    bytes += size;
    batch += size;
    // FTS5 flushes its pending postings at each commit: as often as the build commits.
    if (batch >= BATCH_BYTES) {
      db.exec('COMMIT');
      inTx = false;
      batch = 0;
    }
    writeMs += cpu() - t;
    fid--;
  }
  let t = cpu();
  if (inTx) db.exec('COMMIT');
  writeMs += cpu() - t;
  t = cpu();
  if (!env.SKIP_FTS) db.exec("INSERT INTO fts(fts) VALUES('optimize')");
  const optimizeMs = cpu() - t;
  w.close();
  const dbMB = env.MEMORY ? null : +(statSync(path).size / 1048576).toFixed(1);
  if (env.MEMORY) db.close();
  idx.close();
  rmSync(dirname(path), { recursive: true, force: true });
  const variant = ['MEMORY', 'DISTINCT', 'TOKENIZE', 'HASH_MB', 'SKIP_FTS'].filter((k) => env[k]).map((k) => `${k}=${env[k]}`).join(' ') || 'as built';
  console.log(
    JSON.stringify({
      variant,
      group,
      maxChars: Number.isFinite(maxChars) ? maxChars : null,
      files: list.length,
      corpusMB: +(bytes / 1048576).toFixed(1),
      entries: w.rows,
      ftsRows,
      bareParseCpuMs: Math.round(bareMs),
      readCpuMs: Math.round(readMs),
      writeCpuMs: Math.round(writeMs),
      optimizeCpuMs: Math.round(optimizeMs),
      writeVsBareParse: +((writeMs + optimizeMs) / bareMs).toFixed(2),
      dbMB,
    }),
  );
}

/** FTS5's cost by vocabulary: ~150 MB of text in 200,000 rows, its words drawn from vocabularies of different sizes. */
async function vocabulary(): Promise<void> {
  const sqlite3 = await loadSqliteWasm();
  let seed = 1;
  const rand = (): number => ((seed = Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
  const word = (): string => Array.from({ length: 3 + Math.floor(rand() * 8) }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('');
  const vocab = Array.from({ length: 200_000 }, word);
  const rowOf = (words: number, distinct: number): string => Array.from({ length: words }, () => vocab[Math.floor(rand() * distinct)]!).join(' ');
  const cases: [string, number, () => string][] = [
    ['100 words of 200,000', 200_000, () => rowOf(100, 200_000)],
    ['100 words of 20,000', 200_000, () => rowOf(100, 20_000)],
    ['100 words of 1,000', 200_000, () => rowOf(100, 1_000)],
    ['1,600 words of 200,000 (16 rows as one)', 12_500, () => rowOf(1_600, 200_000)],
  ];
  for (const [name, n, make] of cases) {
    const rows = Array.from({ length: n }, make);
    const db = new sqlite3.oo1.DB(':memory:');
    db.exec(ENTRIES_SCHEMA + FTS_SCHEMA(1, 'unicode61 remove_diacritics 2'));
    setMergePolicy(db, { hashBytes: Number(env.HASH_MB ?? 64) * 1024 * 1024, automerge: 0 });
    const w = new RowWriter(db, sqlite3);
    const t = cpu();
    db.exec('BEGIN');
    rows.forEach((body, i) => w.addText(i + 1, body, 'message assistant'));
    db.exec('COMMIT');
    db.exec("INSERT INTO fts(fts) VALUES('optimize')");
    const ms = cpu() - t;
    const chars = rows.reduce((a, r) => a + r.length, 0);
    console.log(JSON.stringify({ rows: name, hashMB: Number(env.HASH_MB ?? 64), n, textMB: +(chars / 1e6).toFixed(1), cpuMs: Math.round(ms), nsPerChar: +((ms * 1e6) / chars).toFixed(1) }));
    w.close();
    db.close();
  }
}

const args = process.argv.slice(2);
(args[0] === '--vocabulary' ? vocabulary() : corpus(args[0]!, Number(args[1] ?? 1), Number(args[2] ?? Infinity))).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
