// Compares two session models answer by answer (issue 11: the lazy model must give exactly what
// the eager one gives): summary, tree rows under every filter and a search at several leaves,
// contexts, every message and cut window, locate, images.
import assert from 'node:assert/strict';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XcshModel as EagerModel } from '../reference/xcshModel';
import { LazyXcshModel } from '../../src/core/engine/xcsh/lazy/lazyModel';
import type { BranchQuery, BranchSegment, SessionModel, TreeParams } from '../../src/core/engine/model';
import type { TreeFilter } from '../../src/protocol/messages';
import type { XcshModel } from '../reference/xcshModel';
import { deepestLeaf } from '../reference/treeQueries';
import type { RevealStep } from '../../src/core/engine/model';
import { shortenPreview } from '../../src/core/engine/xcsh/branchQueries';
import { entryPreview, roleOf, tokenizeSearch, type ViewEntry } from '../../src/core/tree/treeView';
import { computeVisibleTree, nearestVisible, runTitle, segmentsUnder, treeSourceFromIndex, type VisibleTree } from '../reference/treeView';

export const FILTERS: TreeFilter[] = ['default', 'no-tools', 'user-only', 'labelled-only', 'all'];

export interface ParityOptions {
  /** Leaves (and other entries) to ask contexts at; the default leaf is always asked. */
  leaves: (string | null)[];
  /** Searches to lay over the tree (besides none). */
  searches?: string[];
  /** Window size for messages and cut entries. */
  window?: number;
  /** Entries whose images are asked for (block indices 0..3). */
  imageEntries?: string[];
  /** Cap on the rows compared per tree (large sessions). */
  rowCap?: number;
}

export async function assertSameAnswers(eager: SessionModel, lazy: SessionModel, opts: ParityOptions): Promise<void> {
  assert.deepEqual(await lazy.summary(), await eager.summary(), 'summary');
  assert.equal(await lazy.defaultLeaf(), await eager.defaultLeaf(), 'defaultLeaf');
  const rowCap = opts.rowCap ?? 100_000;
  const leaves = [null, ...opts.leaves];
  for (const id of opts.leaves) if (id !== null) assert.equal(await lazy.has(id), await eager.has(id), `has ${id}`);
  assert.equal(await lazy.has('no-such-id'), false);
  for (const search of ['', ...(opts.searches ?? [])]) {
    for (const filter of FILTERS) {
      for (const leafId of leaves.slice(0, search === '' ? leaves.length : 2)) {
        const p: TreeParams = { filter, search, leafId, focusEntryId: opts.leaves[opts.leaves.length - 1] ?? null, start: 0, count: rowCap };
        assert.deepEqual(await lazy.tree(p), await eager.tree(p), `tree ${filter} "${search}" at ${leafId}`);
      }
    }
  }
  // a window in the middle of the rows
  const mid: TreeParams = { filter: 'all', search: '', leafId: null, focusEntryId: null, start: 3, count: 5 };
  assert.deepEqual(await lazy.tree(mid), await eager.tree(mid), 'tree window');
  const w = opts.window ?? 7;
  for (const leafId of leaves) {
    const ctx = await eager.context(leafId);
    assert.deepEqual(await lazy.context(leafId), ctx, `context at ${leafId}`);
    for (let s = 0; s < ctx.messageCount; s += w) assert.deepEqual(await lazy.messages(leafId, s, w), await eager.messages(leafId, s, w), `messages ${s} at ${leafId}`);
    const cut = ctx.compaction?.cutCount ?? 0;
    for (let s = 0; s < cut; s += w) assert.deepEqual(await lazy.cutEntries(leafId, s, w), await eager.cutEntries(leafId, s, w), `cut ${s} at ${leafId}`);
    assert.deepEqual(await lazy.messages(leafId, ctx.messageCount, w), await eager.messages(leafId, ctx.messageCount, w), 'past the end');
    // The chart: the lazy model reads only the assistant messages for it, and draws the same one.
    assert.deepEqual(await lazy.chart(leafId), await eager.chart(leafId), `chart at ${leafId}`);
    for (const id of opts.leaves) if (id !== null) assert.deepEqual(await lazy.locate(leafId, id), await eager.locate(leafId, id), `locate ${id} at ${leafId}`);
    // The entry as stored (Open Output, a result's details.diff): the same object from disk as in memory.
    if (leafId !== null) assert.deepEqual(await lazy.rawEntry!(leafId), await eager.rawEntry!(leafId), `rawEntry ${leafId}`);
  }
  assert.equal(await lazy.rawEntry!('no-such-entry-id'), null);
  for (const id of opts.imageEntries ?? []) {
    for (let b = 0; b < 4; b++) assert.deepEqual(await lazy.image(id, b), await eager.image(id, b), `image ${id} ${b}`);
  }
}

/** Every segment of the Sessions view's branch tree, walked from the top (entries with branches and run ends open). */
export async function allSegments(m: SessionModel, q: BranchQuery): Promise<{ under: string | null; segs: BranchSegment[] }[]> {
  const out: { under: string | null; segs: BranchSegment[] }[] = [];
  const queue: (string | null)[] = [null];
  while (queue.length > 0 && out.length < 400) {
    const under = queue.shift()!;
    const segs = await m.segments!(q, under);
    out.push({ under, segs });
    for (const s of segs) {
      if (s.kind === 'entry' && s.hasBranches) queue.push(s.id);
      if (s.kind === 'run') queue.push(s.lastId);
    }
  }
  return out;
}

/** The Sessions-view queries answer alike: every segment, every run's pages, reveal paths, search counts. */
export async function assertSameBranches(eager: SessionModel, lazy: SessionModel, ids: string[], searches: string[]): Promise<void> {
  for (const search of ['', ...searches]) {
    for (const filter of FILTERS) {
      const q = { filter, search };
      const segs = await allSegments(eager, q);
      assert.deepEqual(await allSegments(lazy, q), segs, `segments ${filter} "${search}"`);
      for (const { segs: list } of segs) {
        for (const s of list) {
          if (s.kind !== 'run') continue;
          for (const [start, count] of [
            [0, 3],
            [2, 50],
            [s.count - 1, 5],
          ] as const) {
            assert.deepEqual(await lazy.runEntries!(q, s.firstId, start, count), await eager.runEntries!(q, s.firstId, start, count), `run ${s.firstId} ${start}`);
          }
        }
      }
      for (const id of ids) assert.deepEqual(await lazy.revealPath!(q, id), await eager.revealPath!(q, id), `reveal ${id} ${filter} "${search}"`);
      assert.deepEqual(await lazy.searchHit!(q), await eager.searchHit!(q), `searchHit ${filter} "${search}"`);
    }
  }
}

/** Some leaves, some inner entries, the deepest leaf, the compactions: where contexts differ. */
export function probeIds(eager: XcshModel, count = 8): string[] {
  const index = eager.snapshot.index;
  const leaves = index.leaves();
  const ids = new Set<string>([...leaves.slice(0, 3), ...leaves.slice(-3)]);
  const deepest = deepestLeaf(index);
  if (deepest) ids.add(deepest);
  const entries = index.entries;
  for (let k = 1; k < count; k++) {
    const e = entries[Math.floor((entries.length * k) / count)];
    if (e) ids.add(e.id);
  }
  for (const e of entries) if (e.type === 'compaction') ids.add(e.id);
  return [...ids].slice(0, count + 8);
}

/** `text` as a session file a minute old (not live), in a folder of its own; its path. */
export function oldSessionFile(text: string, prefix = 'loom-parity-'): string {
  const p = join(mkdtempSync(join(tmpdir(), prefix)), 's.jsonl');
  writeFileSync(p, text);
  const old = new Date(Date.now() - 60_000);
  utimesSync(p, old, old);
  return p;
}

/** The eager and the lazy model of a v3 text give the same answers (the file must be in the lazy scope); its path. */
export async function assertTextParity(text: string): Promise<string> {
  const p = oldSessionFile(text);
  const eager = await EagerModel.open(p, { blobDir: join(tmpdir(), 'sl-no-blobs') });
  const lazy = await LazyXcshModel.open(p, { blobDir: join(tmpdir(), 'sl-no-blobs') });
  assert.ok(lazy, 'in the lazy scope');
  const ids = probeIds(eager);
  await assertSameAnswers(eager, lazy, { leaves: ids, searches: ['x'], window: 3 });
  await assertSameBranches(eager, lazy, ids, ['x']);
  return p;
}


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

/**
 * `model`'s Sessions-view answers (segments, runEntries, revealPath, searchHit) against the view's
 * own functions over `reference`'s tree index (the same file): computeVisibleTree, segmentsUnder,
 * runTitle, nearestVisible and its visibleEntryNode walk (test/reference/treeView.ts).
 */
export async function checkAgainstView(reference: XcshModel, searches: string[], model: XcshModel | LazyXcshModel = reference): Promise<void> {
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
