// A bulk index update reads the next session files in a worker thread while the index's thread
// writes (indexReadAhead.ts): the index it builds is exactly the one a build reading every file in
// its own thread makes — same rows, same entry ids and byte ranges, same words — on every real
// fixture and on generated sessions with damaged lines and a torn tail; and a worker that cannot
// start or dies half-way changes nothing but the speed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSync } from 'esbuild';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { openIndexDb } from '../../src/core/search/indexDb';
import { sessionFilesUnder, updateIndex } from '../../src/core/search/indexUpdate';
import { fixtureFiles, REPO_ROOT } from '../helpers/fixtures';

let dir = '';
let workerFile = '';
let root = '';

const line = (o: object): string => JSON.stringify(o) + '\n';

/** A generated v3 session: `n` user/assistant/tool entries, words shared across sessions. */
function generated(id: string, n: number): string {
  let out = line({ type: 'session', version: 3, id, timestamp: '2026-06-01T10:00:00.000Z', cwd: `/work/${id}`, title: `session ${id}` });
  let parent: string | null = null;
  for (let i = 0; i < n; i++) {
    const eid = `${id.slice(0, 4)}${String(i).padStart(4, '0')}`;
    const message =
      i % 3 === 0
        ? { role: 'user', content: [{ type: 'text', text: `Café word${i % 7} naïve_${i} 日本語 ${id}` }], timestamp: 1780000000000 + i }
        : i % 3 === 1
          ? { role: 'assistant', content: [{ type: 'toolCall', id: `c${i}`, name: 'bash', arguments: { command: `grep -r word${i % 5} .` } }], timestamp: 1780000000000 + i }
          : { role: 'toolResult', toolCallId: `c${i - 1}`, toolName: 'bash', content: [{ type: 'text', text: `out ${i} ✓ done` }], timestamp: 1780000000000 + i };
    out += line({ type: 'message', id: eid, parentId: parent, timestamp: new Date(Date.UTC(2026, 5, 1, 10, 0, i)).toISOString(), message });
    parent = eid;
  }
  return out;
}

before(async () => {
  const { copySqliteWasm, nodeBundleOptions } = (await import(join(REPO_ROOT, 'scripts', 'esbuild-node.mjs'))) as {
    copySqliteWasm: (root: string, dir: string) => void;
    nodeBundleOptions: () => Record<string, unknown>;
  };
  dir = mkdtempSync(join(tmpdir(), 'loom-read-ahead-'));
  // The worker bundled as the build bundles it (a worker thread cannot run TypeScript through tsx on Node 20).
  workerFile = join(dir, 'bundle', 'searchReadWorker.js');
  buildSync({ ...nodeBundleOptions(), entryPoints: [resolve(REPO_ROOT, 'src/core/search/indexReadWorker.ts')], outfile: workerFile, bundle: true, logLevel: 'error' });
  copySqliteWasm(REPO_ROOT, join(dir, 'bundle'));
  root = join(dir, 'sessions');
  for (const folder of ['upstream', 'upstream-full', 'real-v3']) {
    mkdirSync(join(root, folder), { recursive: true });
    for (const f of fixtureFiles(folder)) copyFileSync(f, join(root, folder, basename(f)));
  }
  mkdirSync(join(root, 'generated'));
  for (let s = 0; s < 12; s++) writeFileSync(join(root, 'generated', `g${s}.jsonl`), generated(`gen${String(s).padStart(5, '0')}abcdef`, 40 + s * 13));
  // A damaged line in the middle, glued records, and a torn last line.
  const damaged = generated('dmg00000abcdefgh', 30).split('\n');
  damaged[10] = damaged[10]!.slice(0, 25);
  damaged[14] = damaged[14]! + damaged[15]!;
  damaged.splice(15, 1);
  writeFileSync(join(root, 'generated', 'damaged.jsonl'), damaged.join('\n').slice(0, -40));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Builds an index of `root` and reads back everything it holds. */
async function buildAndDump(name: string, readWorkerFile: string | null): Promise<{ stats: unknown; files: unknown[]; entries: unknown[]; terms: unknown[] }> {
  const opened = await openIndexDb(join(dir, name, 'index.db'));
  try {
    const files = sessionFilesUnder([root]);
    const stats = await updateIndex(opened, files, { complete: true, readWorkerFile, readAheadFrom: 0 });
    const db = opened.db;
    db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'fts', 'row')");
    return {
      stats: { ...stats, ms: 0 },
      files: db.selectObjects('SELECT id, path, bytes, resume_from, resume_line, head, seam, tail_ok, next_seq, cwd, title, created, rows FROM files ORDER BY id'),
      entries: db.selectObjects('SELECT id, eid, ts, off, len FROM entries ORDER BY id'),
      terms: db.selectObjects('SELECT term, doc FROM temp.vocab ORDER BY term'),
    };
  } finally {
    opened.close();
  }
}

test('a build reading ahead in a worker gives the index a build reading in its own thread gives (every fixture, generated and damaged files)', async () => {
  const plain = await buildAndDump('plain', null);
  const ahead = await buildAndDump('ahead', workerFile);
  assert.ok((plain.entries as unknown[]).length > 500, 'the corpus has rows');
  assert.ok((plain.files as { path: string }[]).some((f) => f.path.endsWith('damaged.jsonl')));
  assert.deepEqual(ahead, plain);
});

test('a read-ahead worker that cannot start, or dies half-way, changes nothing but the speed', async () => {
  const plain = await buildAndDump('plain2', null);
  const broken = join(dir, 'bundle', 'broken.js');
  writeFileSync(broken, "throw new Error('no worker today');\n");
  assert.deepEqual(await buildAndDump('broken', broken), plain);
  const dies = join(dir, 'bundle', 'dies.js');
  writeFileSync(dies, "const { parentPort } = require('node:worker_threads'); let n = 0; parentPort.on('message', () => { if (++n === 3) process.exit(3); });\n");
  assert.deepEqual(await buildAndDump('dies', dies), plain);
  assert.deepEqual(await buildAndDump('missing', join(dir, 'bundle', 'no-such-worker.js')), plain);
});
