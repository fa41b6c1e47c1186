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
import { shortenPreview } from '../../src/core/engine/xcsh/branchQueries';
import type { BranchSegment, RevealStep } from '../../src/core/engine/model';
import { entryPreview, tokenizeSearch, roleOf, type TreeFilterMode, type ViewEntry } from '../../src/core/tree/treeView';
import { computeVisibleTree, nearestVisible, runTitle, segmentsUnder, treeSourceFromIndex, type VisibleTree } from '../reference/treeView';
import { generateSession } from '../../bench/generate';
import { fixtureFiles } from '../helpers/fixtures';
import { allSegments } from '../helpers/modelParity';

const FILTERS: TreeFilterMode[] = ['default', 'no-tools', 'user-only', 'labelled-only', 'all'];

/** The view's own walk up to a segment start (branchNodes.visibleEntryNode), as steps from the top. */
function referenceChain(vt: VisibleTree, id: string): RevealStep[] {
  const chain: RevealStep[] = [];
  for (let cur: string | null = id; cur !== null; ) {
    let start: string = cur;
    let above: string | null = vt.parent.get(start) ?? null;
    while (above !== null && (vt.children.get(above)?.length ?? 0) === 1) {
      start = above;
      above = vt.parent.get(start) ?? null;
    }
    const seg = segmentsUnder(vt, above).find((s) => (s.kind === 'entry' ? s.id : s.ids[0]) === start)!;
    chain.push({ under: above, kind: seg.kind, firstId: start, at: seg.kind === 'entry' ? 0 : seg.ids.indexOf(cur) });
    cur = above;
  }
  return chain.reverse();
}

/** The view's own test for the tools icon (items.ts entryIconId). */
function callsToolsRef(e: ViewEntry): boolean {
  const m = e.message as { role?: unknown; content?: unknown } | undefined;
  return e.type === 'message' && m?.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => (b as { type?: unknown })?.type === 'toolCall');
}

/** `model`'s Sessions-view answers against the view's own functions over `reference`'s tree index (the same file). */
async function checkAgainstView(reference: XcshModel, searches: string[], model: XcshModel | LazyXcshModel = reference): Promise<void> {
  const index = reference.snapshot.index;
  const src = treeSourceFromIndex(index);
  const probe = [...index.leaves().slice(0, 4), ...index.entries.filter((_, i) => i % 97 === 0).map((e) => e.id)];
  for (const search of ['', ...searches]) {
    for (const filter of FILTERS) {
      const q = { filter, search };
      const vt = computeVisibleTree(src, { filter, tokens: tokenizeSearch(search) });
      for (const { under, segs } of await allSegments(model, q)) {
        const want = segmentsUnder(vt, under);
        assert.equal(segs.length, want.length, `segments under ${under}`);
        segs.forEach((s: BranchSegment, k) => {
          const w = want[k]!;
          if (w.kind === 'entry') {
            assert.ok(s.kind === 'entry' && s.id === w.id && s.row.entryId === w.id);
            assert.equal(s.hasBranches, (vt.children.get(w.id)?.length ?? 0) > 0);
            assert.equal(s.branches, vt.children.get(w.id)?.length ?? 0, `branches of ${w.id}`);
            assert.equal(s.callsTools, callsToolsRef(src.entry(w.id)!), `tool icon of ${w.id}`);
            assert.equal(s.role, roleOf(src.entry(w.id)!) ?? null, `role of ${w.id}`);
            // The Sessions view's row text: 100 characters cut from the row's preview, as it cut the entry.
            assert.equal(shortenPreview(s.row.text, 100), entryPreview(src.entry(w.id)!, 100), `row text of ${w.id}`);
          } else {
            assert.deepEqual(s, { kind: 'run', firstId: w.ids[0], lastId: w.ids[w.ids.length - 1], count: w.ids.length, title: runTitle(src, w.ids, 80), onActivePath: vt.activePath.has(w.ids[0]!) });
          }
        });
        for (const w of want) {
          if (w.kind !== 'run') continue;
          const page = await model.runEntries(q, w.ids[0]!, 1, 4);
          assert.deepEqual(
            page.map((e) => [e.id, e.hasBranches, e.branches, e.callsTools]),
            w.ids.slice(1, 5).map((id) => [id, id === w.ids[w.ids.length - 1] && (vt.children.get(id)?.length ?? 0) > 0, vt.children.get(id)?.length ?? 0, callsToolsRef(src.entry(id)!)]),
          );
        }
      }
      for (const id of probe) {
        const target = nearestVisible(vt, src, id);
        const got = await model.revealPath(q, id);
        if (target === undefined) assert.equal(got, null);
        else assert.deepEqual(got, { target, chain: referenceChain(vt, target) }, `reveal ${id}`);
      }
      assert.deepEqual(await model.searchHit(q), { entryMatches: vt.parent.size });
    }
  }
}

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
