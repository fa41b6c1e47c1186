// The data of an HTML export (issue 13): what the exported page's static host answers from must be
// what the session model answers, and it must carry no markup that could run.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildExportData, parentsFromRows } from '../../src/core/export/exportData';
import { jsonScriptText } from '../../src/core/inlineHtml';
import { allMessages } from '../../src/core/export/contextMarkdown';
import { openSessionModel } from '../../src/core/engine/openModel';
import { openSessionDocument } from '../../src/core/formats/xcsh/document';
import { fixture, REPO_ROOT } from '../helpers/fixtures';

const DEMO = join(REPO_ROOT, 'samples', 'sessions', '--demo-project--', '2026-03-01T09-00-00-000Z_5d1e0c0ffee00001.jsonl');
const XSS = join(REPO_ROOT, 'samples', 'sessions', '--demo-xss--', '2026-03-02T10-00-00-000Z_5d1e0c0ffee0dead.jsonl');

test('the parents read from the flattened rows are the tree parents of every entry (a session with branches)', async () => {
  const doc = await openSessionDocument(DEMO);
  assert.ok(doc.tree.leaves().length > 1, 'the demo session has branches');
  const model = await openSessionModel(DEMO);
  const data = await buildExportData(model);
  for (const e of doc.loaded.entries) assert.equal(data.parents[e.id], doc.tree.parentOf(e.id), e.id);
  assert.deepEqual(parentsFromRows([]), {});
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
  assert.deepEqual(data.trees.all.map((r) => r.entryId), doc.tree.pathToRoot(leaf).map((e) => e.id));
  assert.ok(data.trees.all.every((r) => r.depth === 0));
  assert.equal(data.selectLeafId, leaf);
  model.dispose();
});
