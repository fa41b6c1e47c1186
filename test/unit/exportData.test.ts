// The data of an HTML export (issue 13): what the exported page's static host answers from must be
// what the session model answers, and it must carry no markup that could run.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobStore } from '../../src/core/formats/xcsh/blobs';
import { test } from 'node:test';
import { buildExportData, parentsFromRows } from '../../src/core/export/exportData';
import { jsonScriptText } from '../../src/core/inlineHtml';
import { allMessages } from '../../src/core/export/contextMarkdown';
import { openSessionModel } from '../../src/core/engine/openModel';
import { openSessionDocument } from '../reference/document';
import { fixture, REPO_ROOT } from '../helpers/fixtures';
import { pathToRoot } from '../reference/treeQueries';

const DEMO = join(REPO_ROOT, 'samples', 'sessions', '--demo-project--', '2026-03-01T09-00-00-000Z_5d1e0c0ffee00001.jsonl');
const XSS = join(REPO_ROOT, 'samples', 'sessions', '--demo-xss--', '2026-03-02T10-00-00-000Z_5d1e0c0ffee0dead.jsonl');

test('the parents read from the flattened rows are the tree parents of every entry (a session with branches)', async () => {
  const doc = await openSessionDocument(DEMO);
  assert.ok(doc.tree.leaves().length > 1, 'the demo session has branches');
  const model = await openSessionModel(DEMO);
  const data = await buildExportData(model);
  for (const e of doc.loaded.entries) assert.equal(data.parents[e.id], doc.tree.parentOf(e.id), e.id);
  assert.deepEqual(Object.keys(parentsFromRows([])), []);
  model.dispose();
});

test('every exported context, resolved through the pool, is exactly what the model answers (messages and cut entries)', async () => {
  for (const f of [DEMO, fixture('upstream-full', 'pi-session.jsonl')]) {
    const model = await openSessionModel(f);
    const data = await buildExportData(model);
    const ids = Object.keys(data.contexts);
    assert.equal(ids.length, data.trees.all.length, 'a context for every entry');
    // every entry of the small demo, every 25th of the long one
    for (const id of ids.filter((_, i) => f === DEMO || i % 25 === 0)) {
      const c = data.contexts[id]!;
      const info = await model.context(id);
      assert.deepEqual(c.info, info);
      assert.deepEqual(c.messages.map((i) => data.pool[i]), await allMessages(model, id, info.messageCount), `messages at ${id}`);
      assert.deepEqual(c.cut.map((i) => data.pool[i]), await model.cutEntries(id, 0, Math.min(500, info.compaction?.cutCount ?? 0)), `cut at ${id}`);
    }
    // pooling is what keeps a page small: far fewer views than context positions
    const positions = Object.values(data.contexts).reduce((n, c) => n + c.messages.length, 0);
    if (f !== DEMO) assert.ok(data.pool.length * 5 < positions, `pool ${data.pool.length} for ${positions} positions`);
    model.dispose();
  }
});

test('the data block of the XSS sample holds no raw "<": no string in it can end the block or open markup', async () => {
  const model = await openSessionModel(XSS);
  const data = await buildExportData(model);
  const text = jsonScriptText(data);
  assert.doesNotMatch(text, /[<>]/);
  assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(data)), 'and it reads back unchanged');
  assert.ok(JSON.stringify(data).includes('<script>'), 'the sample does carry markup (as text)');
  model.dispose();
});

test('a branch export holds the path to the leaf only, flattened to one line', async () => {
  const model = await openSessionModel(DEMO);
  const doc = await openSessionDocument(DEMO);
  const leaf = doc.tree.leaves().find((l) => l !== doc.tree.defaultLeafId)!;
  const data = await buildExportData(model, { leafId: leaf, scope: 'branch' });
  assert.deepEqual(data.trees.all.map((r) => r.entryId), pathToRoot(doc.tree, leaf).map((e) => e.id));
  assert.ok(data.trees.all.every((r) => r.depth === 0));
  assert.equal(data.selectLeafId, leaf);
  model.dispose();
});

// Issue 22 §14: one picture referenced by many entries is embedded once, and a page's pictures are bounded.
test('a blob shown by 50 entries is embedded once and referenced by each; inline copies of one picture too; past the budget a picture is named, not embedded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-export-blobs-'));
  const store = new BlobStore(join(dir, 'blobs'));
  const picture = Buffer.alloc(300_000, 7);
  const hash = await store.put(picture);
  const inline = Buffer.alloc(1_000, 9).toString('base64');
  const t = '2026-06-01T10:00:00.000Z';
  const lines: object[] = [{ type: 'session', version: 3, id: 'blobs', timestamp: t, cwd: '/p' }];
  let parent: string | null = null;
  for (let i = 0; i < 50; i++) {
    const id = `e${String(i).padStart(3, '0')}`;
    const data = i < 40 ? `blob:sha256:${hash}` : inline;
    lines.push({ type: 'message', id, parentId: parent, timestamp: t, message: { role: 'user', content: [{ type: 'text', text: `look ${i}` }, { type: 'image', mimeType: 'image/png', data }], timestamp: 0 } });
    parent = id;
  }
  const file = join(dir, 's.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const model = await openSessionModel(file, { blobDir: store.dir });
  try {
    const data = await buildExportData(model);
    const refs = Object.values(data.images);
    assert.equal(refs.length, 50, 'every image block has its entry');
    assert.ok(refs.every((r) => r.kind === 'ref'), JSON.stringify(refs.filter((r) => r.kind !== 'ref')).slice(0, 200));
    assert.deepEqual(Object.keys(data.blobs).sort(), [hash, 'inline:0'].sort(), 'two distinct pictures, each once');
    const json = JSON.stringify(data);
    assert.ok(json.length < 2 * picture.length * (4 / 3), `the data holds the 300 KB picture once (${json.length} characters)`);

    const small = await buildExportData(model, { imageBudgetChars: 10_000 });
    assert.deepEqual(Object.keys(small.blobs), ['inline:0'], 'the big picture does not fit; the small one does');
    const named = Object.values(small.images).filter((r) => r.kind === 'error');
    assert.equal(named.length, 40);
    assert.match((named[0] as { message: string }).message, /^Not embedded: the page's pictures would pass/);
  } finally {
    model.dispose();
  }
});
