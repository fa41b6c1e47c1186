// Issue 26's exactness test: for generated sessions (v1, v2 and v3, with planted words, accents,
// tool calls and results) and real fixtures, the index answers every query exactly as a full scan
// of the same rows answers it — single words, AND, prefixes, phrases and exclusions — at first, and
// again after appends, a rename, a delete and same-size rewrites. The scan is written here on its
// own (fold case and accents, split at what is not a letter or digit, as FTS5's unicode61 does):
// only the rows themselves (indexRead.ts, what the editor's reader makes of each entry) are shared.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROWS_PER_FILE } from '../../src/core/search/indexDb';
import { readWholeFile } from '../../src/core/search/indexRead';
import { sessionFilesUnder } from '../../src/core/search/indexUpdate';
import { SessionSearchIndex } from '../../src/core/search/searchIndex';
import { fixtureFiles } from '../helpers/fixtures';
import { rng } from '../../bench/generate';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

// Made-up words (none is a role, type or filter word of the meta column), some sharing prefixes,
// some with accents or capitals that fold to a plain word of the list.
const WORDS = ['borax', 'boralite', 'borscht', 'quill', 'quillon', 'zephyr', 'xenolith', 'marl', 'marlin', 'ochre', 'tufa', 'scree', 'gneiss', 'fennel', 'cobalt', 'cobaltite', 'lumen', 'vireo', 'yarrow', 'kestrel'];
const SPELLED: Record<string, string[]> = { zephyr: ['Zéphyr', 'ZEPHYR'], ochre: ['Ochré'], marl: ['MARL'] };

function sentence(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = WORDS[Math.floor(r() * WORDS.length)]!;
    const alt = SPELLED[w];
    out.push(alt && r() < 0.3 ? alt[Math.floor(r() * alt.length)]! : w);
    // Punctuation and separators between words: unicode61 splits on them, so must the scan.
    const sep = r();
    if (sep < 0.1) out.push('—');
    else if (sep < 0.15) out[out.length - 1] += ',';
    else if (sep < 0.18) out[out.length - 1] += '_x9';
  }
  return out.join(' ');
}

const line = (o: object): string => JSON.stringify(o) + '\n';

/** A generated session of `version` 1, 2 or 3: user and assistant messages, bash calls and their results. */
function generated(r: () => number, sid: string, version: 1 | 2 | 3, n: number): string {
  const ts = (i: number): string => new Date(Date.UTC(2026, 3, 1, 9, 0, i)).toISOString();
  let out = line({ type: 'session', ...(version > 1 ? { version } : {}), id: sid, timestamp: ts(0), cwd: `/work/${sid}` });
  let prev: string | null = null;
  for (let i = 0; i < n; i++) {
    const id = `${sid.slice(0, 4)}${String(i).padStart(4, '0')}`;
    const ids = version === 1 ? {} : { id, parentId: prev };
    const kind = i % 4;
    let message: object;
    if (kind === 0) message = { role: 'user', content: sentence(r, 3 + Math.floor(r() * 8)), timestamp: 0 };
    else if (kind === 1) message = { role: 'assistant', content: [{ type: 'text', text: sentence(r, 4 + Math.floor(r() * 10)) }, { type: 'toolCall', id: `call${i}`, name: 'bash', arguments: { command: `grep ${sentence(r, 2)}` } }], timestamp: 0 };
    else if (kind === 2) message = { role: 'toolResult', toolCallId: `call${i - 1}`, toolName: 'bash', content: [{ type: 'text', text: sentence(r, 5 + Math.floor(r() * 20)) }], isError: false, timestamp: 0 };
    else message = { role: 'assistant', content: [{ type: 'text', text: sentence(r, 2 + Math.floor(r() * 6)) }], timestamp: 0 };
    out += line({ type: 'message', ...ids, timestamp: ts(i + 1), message });
    prev = id;
  }
  return out;
}

const fold = (w: string): string => w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const tokens = (text: string): string[] => text.split(/[^\p{L}\p{N}]+/u).filter((t) => t !== '').map(fold);

interface Query {
  text: string;
  words: string[];
  prefixes: string[];
  phrases: string[][];
  not: string[];
}

/** Whether a row (its two columns) answers the query, as the scan sees it. */
function scanMatches(body: string, meta: string, q: Query): boolean {
  const b = tokens(body);
  const all = new Set([...b, ...tokens(meta)]);
  if (!q.words.every((w) => all.has(w))) return false;
  if (!q.prefixes.every((p) => [...all].some((t) => t.startsWith(p)))) return false;
  if (q.not.some((w) => all.has(w))) return false;
  return q.phrases.every((p) => b.some((_, i) => p.every((w, k) => b[i + k] === w)));
}

function randomQuery(r: () => number): Query {
  const pick = (): string => WORDS[Math.floor(r() * WORDS.length)]!;
  const k = r();
  if (k < 0.25) {
    const w = pick();
    return { text: w, words: [w], prefixes: [], phrases: [], not: [] };
  }
  if (k < 0.45) {
    const [a, b] = [pick(), pick()];
    return { text: `${a} ${b.toUpperCase()}`, words: [a, b], prefixes: [], phrases: [], not: [] };
  }
  if (k < 0.6) {
    const p = pick().slice(0, 3 + Math.floor(r() * 2));
    return { text: `${p}*`, words: [], prefixes: [p], phrases: [], not: [] };
  }
  if (k < 0.8) {
    const [a, b] = [pick(), pick()];
    return { text: `"${a} ${b}"`, words: [], prefixes: [], phrases: [[a, b]], not: [] };
  }
  const [a, b] = [pick(), pick()];
  if (a === b) return { text: a, words: [a], prefixes: [], phrases: [], not: [] };
  return { text: `${a} -${b}`, words: [a], prefixes: [], phrases: [], not: [b] };
}

/** The scan's answer: file → the entry ids of its matching rows. */
async function scan(root: string, q: Query): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const file of sessionFilesUnder([root]).keys()) {
    const { rows } = await readWholeFile(file, ROWS_PER_FILE);
    const ids = new Set(rows.filter((row) => scanMatches(row.body, row.meta, q)).map((row) => row.eid));
    if (ids.size > 0) out.set(file, ids);
  }
  return out;
}

/** The index's answer in the same shape (the sessions it lists with entry matches, and each one's matching ids). */
async function indexed(idx: SessionSearchIndex, q: Query): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const res = await idx.search(q.text);
  assert.equal(res.results.approximate, false, `${q.text}: counted exactly`);
  for (const s of res.results.sessions) {
    if (s.matches === 0) continue;
    const ids = new Set(idx.matchIds(q.text, s.file));
    out.set(s.file, ids);
  }
  return out;
}

const show = (m: Map<string, Set<string>>): Record<string, string[]> => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, ids]) => [f.split('/').slice(-2).join('/'), [...ids].sort()]));

async function checkAll(idx: SessionSearchIndex, root: string, queries: Query[], when: string): Promise<number> {
  let hits = 0;
  for (const q of queries) {
    const want = await scan(root, q);
    const got = await indexed(idx, q);
    assert.deepEqual(show(got), show(want), `${when}: ${q.text}`);
    hits += want.size;
  }
  return hits;
}

test('the index answers words, AND, prefixes, phrases and exclusions exactly as a full scan of the same rows — v1/v2/v3 and real sessions, after appends, a rename, a delete and same-size rewrites', async () => {
  const r = rng(26);
  const dir = mkdtempSync(join(tmpdir(), 'loom-exact-'));
  made.push(dir);
  const root = join(dir, 'sessions');
  const files: string[] = [];
  for (let s = 0; s < 12; s++) {
    const project = join(root, `--work-p${s % 4}--`);
    mkdirSync(project, { recursive: true });
    const file = join(project, `s${s}.jsonl`);
    writeFileSync(file, generated(r, `${String(s).padStart(2, '0')}ab-session`, ((s % 3) + 1) as 1 | 2 | 3, 20 + Math.floor(r() * 40)));
    files.push(file);
  }
  // Real sessions beside them (their own words; the planted ones may occur in them too).
  mkdirSync(join(root, '--real--'), { recursive: true });
  for (const f of [...fixtureFiles('upstream').slice(0, 2), ...fixtureFiles('real-v3').slice(0, 1)]) copyFileSync(f, join(root, '--real--', f.split('/').pop()!));

  const queries = Array.from({ length: 60 }, () => randomQuery(r));
  const idx = await SessionSearchIndex.open(join(dir, 'cache', 'index.db'));
  try {
    await idx.update([root]);
    const hits = await checkAll(idx, root, queries, 'first build');
    assert.ok(hits > 60, `the queries find something (${hits} session hits)`);

    // Appends (the tail is read), a rename (followed without reading), a delete.
    appendFileSync(files[0]!, line({ type: 'message', id: '00ab9999', parentId: '00ab0001', timestamp: '2026-04-02T00:00:00.000Z', message: { role: 'user', content: 'kestrel quillon — Zéphyr borax', timestamp: 0 } }));
    appendFileSync(files[2]!, line({ type: 'message', id: '02ab9998', parentId: '02ab0003', timestamp: '2026-04-02T00:00:00.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'gneiss fennel marlin' }], timestamp: 0 } }));
    renameSync(files[3]!, join(root, '--work-p0--', 'renamed.jsonl'));
    rmSync(files[4]!);
    // Same-size rewrites: one word swapped for another of its length (mtime moved, and kept).
    for (const [i, keepMtime] of [[5, false], [6, true]] as const) {
      const st = statSync(files[i]!);
      const text = readFileSync(files[i]!, 'utf8');
      const swapped = text.includes('quill ') ? text.replace('quill ', 'scree ') : text.replace('marl', 'tufa');
      assert.equal(Buffer.byteLength(swapped), st.size);
      writeFileSync(files[i]!, swapped);
      if (keepMtime) utimesSync(files[i]!, st.atime, new Date(st.mtimeMs + 2000));
    }
    const stats = await idx.update([root]);
    assert.ok(stats.appended >= 1 && stats.renamed === 1 && stats.removed === 1 && stats.reindexed >= 2, JSON.stringify(stats));
    await checkAll(idx, root, queries, 'after appends, a rename, a delete and rewrites');
  } finally {
    idx.close();
  }
});
