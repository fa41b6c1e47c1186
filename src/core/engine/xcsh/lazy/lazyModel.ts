// The xcsh session model (issues 11 and 23): the SessionModel answers from the compact index
// (lazyIndex.ts), reading bodies by byte range only for what a window shows (bodyReader.ts). It
// opens every xcsh file the product reads — current, migrated, damaged, header-less, too new —
// and its answers equal those of the whole-file reference model kept under test/
// (test/reference/, test/unit/lazyModel.test.ts).
//
// No `vscode`, answers are plain data, everything async: the same model runs in the extension's
// worker thread unchanged.
import { BlobStore, defaultBlobDir } from '../../../formats/xcsh/blobs';
import { imageResult } from '../imageResult';
import { english, type Translate } from '../../../l10n';
import { matchesSearch, searchHaystack, tokenizeSearch, type ViewEntry } from '../../../tree/treeView';
import { CancelledError } from '../../rpc';
import type { ChartData, ContextInfo, MessageView, SessionSummary, TreeFilter, TreeRow } from '../../../../protocol/messages';
import { CHART_MAX_MESSAGES, chartLeftOut, chartOf } from '../../../../protocol/chartData';
import { type ImageResult, type ModelOptions, type RefreshOutcome, type LocalSessionModel, type TreeParams, type TreeResult } from '../../model';
import { imageIn } from '../messageRows';
import { summarizeFacts } from '../snapshot';
import { BranchQueries, type BranchQuery, type BranchSegment, type RevealStep, type RunEntry } from '../branchQueries';
import { ViewFlag } from '../../../tree/treeView';
import { layoutForest, rowOfEntry, selectLeafIn, type ForestLayout, type LeafSelection } from '../treeRows';
import { BodyReader } from './bodyReader';
import { LazyContexts, rowDisplayOf } from './lazyContext';
import { cachedOrBuiltIndex, type IndexCache } from './indexCache';
import { appendLazyIndex, buildLazyIndex, type LazyIndexData } from './lazyIndex';
import { LazyTree } from './lazyTree';
import { XcshDocuments } from './xcshDocuments';
import type { SessionDocuments } from '../../documents';

export interface LazyOpenOptions extends ModelOptions {
  signal?: AbortSignal;
}

interface State {
  branches: BranchQueries;
  ix: LazyIndexData;
  tree: LazyTree;
  bodies: BodyReader;
  contexts: LazyContexts;
  summary: SessionSummary;
  revision: number;
}

export class LazyXcshModel implements LocalSessionModel {
  readonly format = 'xcsh' as const;
  #s: State;
  #layout: { key: string; layout: ForestLayout; leafPos?: number; flat?: ForestLayout & LeafSelection } | undefined;
  #search: { key: string; bits: Uint8Array } | undefined;
  readonly #l10nT: Translate;
  #refreshing: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly path: string,
    ix: LazyIndexData,
    private readonly blobs: BlobStore,
    opts: LazyOpenOptions,
    revision = 1,
  ) {
    this.#l10nT = opts.l10nT ?? english;
    this.#s = LazyXcshModel.#state(ix, revision);
  }

  static #state(ix: LazyIndexData, revision: number): State {
    const tree = new LazyTree(ix);
    const bodies = new BodyReader(ix);
    const summary = summarizeFacts({
      path: ix.path,
      header: ix.header,
      firstPrompt: ix.firstPrompt,
      originalVersion: ix.originalVersion,
      readOnlyReason: ix.readOnlyReason,
      stat: { size: ix.stat.size, mtimeMs: ix.stat.mtimeMs },
      bytes: ix.bytes,
      entryCount: ix.n,
      leafCount: tree.leafCount(),
      defaultLeafId: tree.defaultLeafId,
      stats: ix.stats,
      diagnostics: ix.diagnostics,
      revision,
    });
    const branches = new BranchQueries({
      n: ix.n,
      rootPositions: tree.rootPositions,
      indexOf: (id) => tree.indexOf(id),
      parentAt: (i) => tree.parentAt(i),
      firstChildAt: (i) => tree.firstChildAt(i),
      nextSiblingAt: (i) => tree.nextSiblingAt(i),
      hasIdAt: () => true,
      passesAt: (i, mode, isLeaf) => tree.passesAt(i, mode, isLeaf),
      matchesAt: (i) => tree.matchesAt(i),
      defaultLeafId: tree.defaultLeafId,
      idAt: (i) => tree.idAt(i),
      isUserAt: (i) => (ix.viewFlags[i]! & ViewFlag.User) !== 0,
      labelOf: (id) => ix.labels.get(id),
      entriesAt: async (ps) => (await bodies.read(ps)) as unknown as ViewEntry[],
    });
    return { branches, ix, tree, bodies, contexts: new LazyContexts(ix, tree, bodies, revision), summary, revision };
  }

  /** The model of an xcsh file (its index kept in `opts.indexCache`, or built). */
  static async open(path: string, opts: LazyOpenOptions = {}): Promise<LazyXcshModel> {
    const cache = opts.indexCache;
    const { index, built } = await cachedOrBuiltIndex(path, cache, { ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
    const model = new LazyXcshModel(path, index, new BlobStore(opts.blobDir || defaultBlobDir()), opts);
    if (cache && built) {
      if (opts.keepIndexFirst) await cache.save(index);
      else model.#keep(cache, index);
    }
    return model;
  }

  /**
   * Writes the index to the cache in the background. In the refresh queue: a tail read grows the
   * tree's links in place, and must not run while they are being written.
   */
  #keep(cache: IndexCache, ix: LazyIndexData): void {
    const run = this.#refreshing.catch(() => undefined).then(() => cache.save(ix));
    this.#refreshing = run;
  }

  /** The index behind the model (the bench reports its size). */
  get index(): LazyIndexData {
    return this.#s.ix;
  }

  /** Bytes of bodies read from disk so far. */
  get bytesRead(): number {
    return this.#s.bodies.bytesRead;
  }

  async summary(): Promise<SessionSummary> {
    return this.#s.summary;
  }

  async has(nodeId: string): Promise<boolean> {
    return this.#s.tree.has(nodeId);
  }

  async defaultLeaf(): Promise<string | null> {
    return this.#s.tree.defaultLeafId;
  }

  /** The search bitset: every body scanned once per query (bodies stay on disk). */
  async #searchBits(search: string, signal?: AbortSignal): Promise<void> {
    const s = this.#s;
    const tokens = tokenizeSearch(search);
    if (tokens.length === 0) return;
    const key = `${s.revision}\0${tokens.join(' ')}`;
    if (this.#search?.key !== key) {
      const bits = new Uint8Array(s.ix.n);
      const labels = s.ix.labels;
      await s.bodies.scan(
        s.ix.n,
        (p, e) => {
          const v = e as unknown as ViewEntry;
          if (matchesSearch(searchHaystack(v, labels.get(v.id)), tokens)) bits[p] = 1;
        },
        signal,
      );
      this.#search = { key, bits };
    }
    s.tree.searchBits = this.#search!.bits;
  }

  async #flat(filter: TreeFilter, search: string, leafPos: number): Promise<ForestLayout & LeafSelection> {
    const s = this.#s;
    const key = `${s.revision}\0${filter}\0${search}`;
    if (this.#layout?.key !== key) {
      await this.#searchBits(search);
      this.#layout = { key, layout: layoutForest(s.tree, filter, tokenizeSearch(search), s.tree.defaultLeafId) };
    }
    const cache = this.#layout;
    if (cache.flat === undefined || cache.leafPos !== leafPos) {
      cache.flat = selectLeafIn(s.tree, cache.layout, leafPos === -1 ? null : s.tree.idAt(leafPos));
      cache.leafPos = leafPos;
    }
    return cache.flat;
  }

  async tree(p: TreeParams): Promise<TreeResult> {
    const s = this.#s;
    const leafPos = s.contexts.resolveLeaf(p.leafId);
    const flat = await this.#flat(p.filter, p.search, leafPos);
    const end = Math.min(flat.pos.length, p.start + p.count);
    const positions = p.start < end ? Array.from(flat.pos.subarray(p.start, end)) : [];
    const bodies = await s.bodies.read(positions);
    const defaultLeaf = s.tree.defaultLeafPos;
    const rows: TreeRow[] = positions.map((pos, k) => {
      const e = bodies[k]! as unknown as ViewEntry;
      const i = p.start + k;
      return {
        entryId: e.id,
        depth: flat.depths[i]!,
        ...rowDisplayOf(bodies[k]!, s.ix.labels.get(e.id)),
        timestamp: typeof e.timestamp === 'string' ? e.timestamp : null,
        isLeaf: s.tree.firstChildAt(pos) === -1,
        isDefaultLeaf: pos === defaultLeaf,
        onPath: flat.onPath[pos] === 1,
        forks: flat.forks[i] === 1,
      };
    });
    return {
      total: flat.pos.length,
      hidden: flat.hidden,
      selectedIndex: flat.selectedIndex,
      leafHidden: leafPos !== -1 && flat.rowAt[leafPos] === -1,
      focusIndex: p.focusEntryId !== null && s.tree.has(p.focusEntryId) ? rowOfEntry(s.tree, flat, p.focusEntryId) : null,
      rows,
    };
  }

  async context(leafId: string | null): Promise<ContextInfo> {
    return (await this.#s.contexts.plan(leafId)).info;
  }

  async messages(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    return this.#s.contexts.messages(leafId, start, count);
  }

  async cutEntries(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    return this.#s.contexts.cutEntries(leafId, start, count);
  }

  async chart(leafId: string | null): Promise<ChartData> {
    const info = await this.context(leafId);
    const leftOut = chartLeftOut(info);
    if (leftOut) return leftOut;
    const { messages, cut } = await this.#s.contexts.chartViews(leafId, CHART_MAX_MESSAGES);
    return chartOf(info, messages, cut);
  }

  async locate(leafId: string | null, entryId: string): Promise<{ messageIndex: number | null; cutIndex: number | null }> {
    return this.#s.contexts.locate(leafId, entryId);
  }

  async rawEntry(entryId: string): Promise<unknown> {
    const pos = this.#s.tree.indexOf(entryId);
    return pos === -1 ? null : this.#s.bodies.one(pos);
  }

  async image(entryId: string, blockIndex: number): Promise<ImageResult> {
    const t = this.#l10nT;
    const s = this.#s;
    const pos = s.tree.indexOf(entryId);
    const img = pos === -1 ? null : imageIn(await s.bodies.one(pos), blockIndex);
    return imageResult(img, this.blobs, t);
  }

  /**
   * Follows the file as tail.ts does for a loaded session: an append is read as a tail and the
   * index grows in place ('appended'); any other change indexes the file again ('reloaded').
   */
  refresh(signal?: AbortSignal): Promise<RefreshOutcome> {
    // One at a time: a tail read extends the tree in place, and two overlapping ones would append twice.
    const run = this.#refreshing.catch(() => undefined).then(() => this.#refreshNow(signal));
    this.#refreshing = run;
    return run;
  }

  async #refreshNow(signal?: AbortSignal): Promise<RefreshOutcome> {
    const s = this.#s;
    const tail = await appendLazyIndex(s.ix, signal ? { signal } : {});
    if (tail.kind === 'unchanged') return { kind: 'unchanged', summary: s.summary };
    if (tail.kind === 'appended') {
      this.#replace(tail.index, s.revision + 1);
      return { kind: 'appended', summary: this.#s.summary };
    }
    this.#replace(await buildLazyIndex(this.path, signal ? { signal } : {}), s.revision + 1);
    return { kind: 'reloaded', summary: this.#s.summary };
  }

  #replace(ix: LazyIndexData, revision: number): void {
    this.#s = LazyXcshModel.#state(ix, revision);
    this.#layout = undefined;
    this.#search = undefined;
  }

  async segments(q: BranchQuery, under: string | null): Promise<BranchSegment[]> {
    await this.#searchBits(q.search);
    return this.#s.branches.segments(q, under);
  }

  async runEntries(q: BranchQuery, firstId: string, start: number, count: number): Promise<RunEntry[]> {
    await this.#searchBits(q.search);
    return this.#s.branches.runEntries(q, firstId, start, count);
  }

  async revealPath(q: BranchQuery, entryId: string): Promise<{ target: string; chain: RevealStep[] } | null> {
    await this.#searchBits(q.search);
    return this.#s.branches.revealPath(q, entryId);
  }

  async searchHit(q: BranchQuery): Promise<{ entryMatches: number }> {
    await this.#searchBits(q.search);
    return this.#s.branches.searchHit(q);
  }

  documents(): SessionDocuments {
    return new XcshDocuments(this.path, this.#s.ix);
  }

  dispose(): void {}
}

export { CancelledError };
