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
import { BranchQueries, viewEntryRow, type BranchQuery, type BranchSegment, type RevealStep, type RunEntry } from '../branchQueries';
import { ViewFlag } from '../../../tree/treeView';
import { ForestRows } from '../treeRows';
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
  /**
   * Rows laid out (selection-independent), the most recent first: the editor's and the Sessions
   * view's filter and search, which may differ. `plain`: no search narrows them (they can be extended by an append).
   */
  #layouts: { key: string; revision: number; plain: boolean; rows: ForestRows }[] = [];
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

  /** `grownFrom`: the state this one grew from by appends (its index extended in place). */
  static #state(ix: LazyIndexData, revision: number, grownFrom?: State): State {
    const tree = new LazyTree(ix);
    const leafCount = tree.leafCount(grownFrom && { n: grownFrom.ix.n, leaves: grownFrom.summary.leafCount });
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
      leafCount,
      defaultLeafId: tree.defaultLeafId,
      stats: ix.stats,
      diagnostics: ix.diagnostics,
      revision,
    });
    const branches = new BranchQueries({
      defaultLeafPos: tree.defaultLeafPos,
      indexOf: (id) => tree.indexOf(id),
      idAt: (i) => tree.idAt(i),
      isUserAt: (i) => (ix.viewFlags[i]! & ViewFlag.User) !== 0,
      rowsAt: async (ps) =>
        ((await bodies.read(ps)) as unknown as ViewEntry[]).map((e, k) => viewEntryRow(e, ix.labels.get(e.id), tree.firstChildAt(ps[k]!) === -1)),
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

  /** The search bitset (null: no search): every body scanned once per query (bodies stay on disk). */
  async #searchBits(search: string, signal?: AbortSignal): Promise<Uint8Array | null> {
    const s = this.#s;
    const tokens = tokenizeSearch(search);
    if (tokens.length === 0) return null;
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
    return this.#search!.bits;
  }

  /**
   * The rows of a filter and a search (or the search index's `ids`, which then decide what the
   * search shows): laid out once per filter and search, extended in place when the session only
   * grew along its default leaf's line since (a live append), laid out again otherwise. A
   * selection never lays anything out (ForestRows.select).
   */
  async #rows(filter: TreeFilter, search: string, ids?: readonly string[]): Promise<ForestRows> {
    const tokens = ids ? [] : tokenizeSearch(search);
    const key = `${filter}\0${tokens.join(' ')}\0${ids ? ids.join('\n') : '-'}`;
    const at = this.#layouts.findIndex((l) => l.key === key);
    const cached = at === -1 ? undefined : this.#layouts.splice(at, 1)[0]!;
    if (cached && (cached.revision === this.#s.revision || (cached.plain && this.#extend(cached.rows, filter)))) {
      cached.revision = this.#s.revision;
      this.#layouts.unshift(cached);
      return cached.rows;
    }
    let s = this.#s;
    let matches: Uint8Array | null = null;
    if (ids) {
      matches = new Uint8Array(s.ix.n);
      for (const id of ids) {
        const p = s.tree.indexOf(id);
        if (p !== -1) matches[p] = 1;
      }
    } else if (tokens.length > 0) {
      // Scanned again when a refresh replaced the index during the scan.
      do {
        s = this.#s;
        matches = await this.#searchBits(search);
      } while (s !== this.#s);
    }
    const rows = ForestRows.layout(s.tree.links, s.tree.shownBits(filter, matches), s.tree.defaultPath());
    // (Another request may have laid the same rows out during the scan: one of them is kept.)
    this.#layouts = [{ key, revision: s.revision, plain: matches === null, rows }, ...this.#layouts.filter((l) => l.key !== key)].slice(0, 2);
    return rows;
  }

  /**
   * Extends rows laid out before appends (#replace drops them on a reload). A search's matches are
   * scanned again per revision, so only a filter's rows are extended; the labelled filter's only
   * when no settings entry (a label among them) came in, since a new label can show an old entry.
   */
  #extend(rows: ForestRows, filter: TreeFilter): boolean {
    const { tree, ix } = this.#s;
    const from = rows.n;
    if (from === 0 || from > ix.n) return false;
    if (filter === 'labelled-only') for (let p = from; p < ix.n; p++) if ((ix.viewFlags[p]! & ViewFlag.Settings) !== 0) return false;
    const oldLeafShown = tree.passesAt(from - 1, filter, from - 1 === tree.defaultLeafPos);
    return rows.extend(tree.links, { bits: tree.shownBits(filter, null, from), base: from }, oldLeafShown);
  }

  async tree(p: TreeParams): Promise<TreeResult> {
    const layout = await this.#rows(p.filter, p.search);
    const s = this.#s;
    const leafPos = s.contexts.resolveLeaf(p.leafId);
    const selection = layout.select(leafPos);
    const total = layout.rows;
    const end = Math.min(total, p.start + p.count);
    const positions: number[] = [];
    for (let r = p.start; r < end; r++) positions.push(layout.posAt(r));
    // What the rows say, read now: an append may extend the layout while the bodies are read.
    const shape = positions.map((_, k) => ({ depth: layout.depthAt(p.start + k), forks: layout.forksAt(p.start + k), onPath: selection.onPath(p.start + k) }));
    const focusPos = p.focusEntryId === null ? -1 : s.tree.indexOf(p.focusEntryId);
    const focusIndex = focusPos === -1 ? null : layout.nearestRow(focusPos);
    const hidden = layout.hidden;
    const bodies = await s.bodies.read(positions);
    const defaultLeaf = s.tree.defaultLeafPos;
    const rows: TreeRow[] = positions.map((pos, k) => {
      const e = bodies[k]! as unknown as ViewEntry;
      return {
        entryId: e.id,
        depth: shape[k]!.depth,
        ...rowDisplayOf(bodies[k]!, s.ix.labels.get(e.id)),
        timestamp: typeof e.timestamp === 'string' ? e.timestamp : null,
        isLeaf: s.tree.firstChildAt(pos) === -1,
        isDefaultLeaf: pos === defaultLeaf,
        onPath: shape[k]!.onPath,
        forks: shape[k]!.forks,
      };
    });
    return {
      total,
      hidden,
      selectedIndex: selection.selectedIndex,
      leafHidden: selection.leafHidden,
      focusIndex,
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
      this.#replace(tail.index, s.revision + 1, true);
      return { kind: 'appended', summary: this.#s.summary };
    }
    this.#replace(await buildLazyIndex(this.path, signal ? { signal } : {}), s.revision + 1, false);
    return { kind: 'reloaded', summary: this.#s.summary };
  }

  /** `appended`: the index grew in place, so the tree rows may be extended (#extend) instead of laid out again. */
  #replace(ix: LazyIndexData, revision: number, appended: boolean): void {
    this.#s = LazyXcshModel.#state(ix, revision, appended ? this.#s : undefined);
    if (!appended) this.#layouts = [];
    this.#search = undefined;
  }

  // The Sessions view's queries: over the rows of their filter and search, as the editor's.
  async segments(q: BranchQuery, under: string | null): Promise<BranchSegment[]> {
    const rows = await this.#rows(q.filter, q.search, q.ids);
    return this.#s.branches.segments(rows, under);
  }

  async runEntries(q: BranchQuery, firstId: string, start: number, count: number): Promise<RunEntry[]> {
    const rows = await this.#rows(q.filter, q.search, q.ids);
    return this.#s.branches.runEntries(rows, firstId, start, count);
  }

  async revealPath(q: BranchQuery, entryId: string): Promise<{ target: string; chain: RevealStep[] } | null> {
    const rows = await this.#rows(q.filter, q.search, q.ids);
    return this.#s.branches.revealPath(rows, entryId);
  }

  async searchHit(q: BranchQuery): Promise<{ entryMatches: number }> {
    const rows = await this.#rows(q.filter, q.search, q.ids);
    return this.#s.branches.searchHit(rows);
  }

  documents(): SessionDocuments {
    return new XcshDocuments(this.path, this.#s.ix);
  }

  dispose(): void {}
}

export { CancelledError };
