// The Sessions-view queries on the model (segments, runEntries, revealPath, searchHit) give what
// the view computes today from computeVisibleTree + segmentsUnder + runTitle + nearestVisible and
// its visibleEntryNode walk (src/extension/sessions): checked against those functions themselves,
// on real fixtures and bench sessions — the engine (its queries laid over the editor's rows) and
// the reference model (test/reference/branchQueries.ts) alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XcshModel } from '../reference/xcshModel';
import { LazyXcshModel } from '../../src/core/engine/xcsh/lazy/lazyModel';
import { computeVisibleTree, segmentsUnder, treeSourceFromIndex } from '../reference/treeView';
import { generateSession } from '../../bench/generate';
import { fixtureFiles } from '../helpers/fixtures';
import { allSegments, checkAgainstView, FILTERS } from '../helpers/modelParity';

test('segments, runEntries, revealPath and searchHit match the Sessions view computeVisibleTree/segmentsUnder/runTitle/nearestVisible on the real v3 fixtures', async () => {
  for (const file of fixtureFiles('real-v3')) {
    const reference = await XcshModel.open(file);
    await checkAgainstView(reference, ['site', 'tool error']);
    await checkAgainstView(reference, ['site', 'tool error'], await LazyXcshModel.open(file));
  }
});

test('segments, runEntries, revealPath and searchHit match the Sessions view on a bench session with side branches and labels', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'sl-branches-')), 'gen.jsonl');
  generateSession(path, 1200, 11);
  const reference = await XcshModel.open(path);
  await checkAgainstView(reference, ['tests']);
  await checkAgainstView(reference, ['tests'], await LazyXcshModel.open(path));
});

test('a query with the search index ids shows exactly those entries (and their paths), as computeVisibleTree with matchIds; the tokens are then not used', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'sl-branches-')), 'gen.jsonl');
  generateSession(path, 1200, 11);
  const reference = await XcshModel.open(path);
  const index = reference.snapshot.index;
  const src = treeSourceFromIndex(index);
  const ids = index.entries.filter((_, i) => i % 41 === 3).map((e) => e.id);
  for (const [model, filter] of [reference, await LazyXcshModel.open(path)].flatMap((m) => FILTERS.map((f) => [m, f] as const))) {
    const vt = computeVisibleTree(src, { filter, tokens: [], matchIds: new Set(ids) });
    // A search text that matches nothing: with ids it must not narrow anything further.
    const q = { filter, search: 'zzz-no-such-word', ids };
    assert.deepEqual(await model.searchHit(q), { entryMatches: vt.parent.size }, filter);
    for (const { under, segs } of await allSegments(model, q)) {
      assert.deepEqual(
        segs.map((s) => (s.kind === 'entry' ? s.id : s.firstId)),
        segmentsUnder(vt, under).map((s) => (s.kind === 'entry' ? s.id : s.ids[0])),
        `segments under ${under} (${filter})`,
      );
    }
    // The memo follows the ids: the same filter without them is the whole filtered tree again.
    const whole = computeVisibleTree(src, { filter, tokens: [] });
    assert.deepEqual(await model.searchHit({ filter, search: '' }), { entryMatches: whole.parent.size });
    assert.deepEqual(await model.searchHit({ filter, search: '', ids: ids.slice(0, 5) }), { entryMatches: computeVisibleTree(src, { filter, tokens: [], matchIds: new Set(ids.slice(0, 5)) }).parent.size });
  }
});
