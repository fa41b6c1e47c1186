// `npm run bench -- --search --libraries`: the issue lets the search index be "a well-kept JS
// full-text library if you measure it better". Measured here, in a fresh process each, on the same
// corpus and the same rows the FTS5 index gets (readWholeFile: each entry's searchable text and
// filter words): FlexSearch and MiniSearch building their index in memory (nothing written to disk,
// which they would still have to do), and the floor of any JS index — split into words, keep
// each entry's distinct words, append the entry to each word's posting list in a Map.
//   node bench/out/searchLibraries.js <flexsearch|minisearch|floor> <root>
import { Index } from 'flexsearch';
import MiniSearch from 'minisearch';
import { readWholeFile } from '../src/core/search/indexRead';
import { sessionFiles } from './sessionFiles';

const [which, root] = process.argv.slice(2);
const WORD = /[^\p{L}\p{N}]+/u;

async function main(): Promise<void> {
  let add: (id: number, body: string, meta: string) => void;
  if (which === 'flexsearch') {
    // The leanest setup: whole words only, one resolution, no cache, a plain lower-case split.
    const index = new Index({ tokenize: 'strict', resolution: 1, cache: false, encode: (s: string) => s.toLowerCase().split(WORD) });
    add = (id, body, meta) => void index.add(id, `${body} ${meta}`);
  } else if (which === 'minisearch') {
    const index = new MiniSearch<{ id: number; body: string; meta: string }>({ fields: ['body', 'meta'], storeFields: [] });
    add = (id, body, meta) => index.add({ id, body, meta });
  } else if (which === 'floor') {
    const postings = new Map<string, number[]>();
    add = (id, body, meta) => {
      const seen = new Set<string>();
      for (const w of `${body} ${meta}`.toLowerCase().split(WORD)) {
        if (w === '' || seen.has(w)) continue;
        seen.add(w);
        const list = postings.get(w);
        if (list) list.push(id);
        else postings.set(w, [id]);
      }
    };
  } else throw new Error(`unknown library ${which}`);
  const t0 = performance.now();
  let readMs = 0;
  let rows = 0;
  for (const f of sessionFiles(root!)) {
    const r0 = performance.now();
    const file = await readWholeFile(f, 1 << 24);
    readMs += performance.now() - r0;
    for (const row of file.rows) add(rows++, row.body, row.meta);
  }
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ which, rows, ms, readMs, heapMB: process.memoryUsage().heapUsed / 1048576 }));
}

void main();
