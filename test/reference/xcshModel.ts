// The reference (test-only, issue 23): the whole-file xcsh model the session engine
// (src/core/engine/xcsh/lazy) is checked against. The session model of an xcsh / pi / oh-my-pi
// file (src/core/engine/model.ts): the loaded
// document, its tree index and totals, answered in windows. Growth is read incrementally (only
// the appended tail is parsed and indexed, src/core/formats/xcsh/tail.ts), with a full reload
// whenever the file changed in any other way.
import { BlobStore, defaultBlobDir } from '../../src/core/formats/xcsh/blobs';
import { imageResult } from '../../src/core/engine/xcsh/imageResult';
import { openSessionDocument, refreshSessionDocument, type SessionDocument } from './document';
import { english, type Translate } from '../../src/core/l10n';
import type { ChartData, ContextInfo, MessageView, SessionSummary, TreeFilter } from '../../src/protocol/messages';
import { contextChart } from '../../src/core/engine/contextChart';
import { type ImageResult, type ModelOptions, type RefreshOutcome, type SessionModel, type TreeParams, type TreeResult } from '../../src/core/engine/model';
import { ContextWindows } from './contextWindows';
import { snapshotOfDocument, type SessionSnapshot } from './snapshot';
import type { BranchQuery, BranchSegment, RevealStep, RunEntry } from '../../src/core/engine/xcsh/branchQueries';
import { BranchQueries } from './branchQueries';
import { roleOf, type ViewEntry } from '../../src/core/tree/treeView';
import { forestSourceOfIndex } from './treeView';
import { rowOfEntry, selectLeafIn } from './forestLayout';
import { layoutTree, treeRows, type FlatTree, type TreeLayout } from './treeRows';

export class XcshModel implements SessionModel {
  readonly format = 'xcsh' as const;
  #snap: SessionSnapshot;
  #windows: ContextWindows;
  #revision: number;
  /** The rows of the last filter and search (selection-independent), and the last selection laid over them. */
  #treeCache: { key: string; layout: TreeLayout; leafId?: string | null; flat?: FlatTree } | undefined;
  readonly #l10nT: Translate;
  #branchQueries: { revision: number; q: BranchQueries } | undefined;

  private constructor(
    readonly path: string,
    private readonly doc: SessionDocument,
    private readonly blobs: BlobStore,
    l10nT: Translate,
    revision: number,
  ) {
    this.#l10nT = l10nT;
    this.#revision = revision;
    this.#snap = snapshotOfDocument(path, doc, blobs, this.#revision, performance.now());
    this.#windows = new ContextWindows(this.#snap);
  }

  /** `revision`: where the summary's revision starts (a lazy model handing over to this one goes on counting). */
  static async open(path: string, opts: ModelOptions = {}, revision = 1): Promise<XcshModel> {
    // Blob refs are not checked on load (one stat per image): images resolve on demand, and a
    // missing blob shows its placeholder where it is used.
    const doc = await openSessionDocument(path);
    return new XcshModel(path, doc, new BlobStore(opts.blobDir || defaultBlobDir()), opts.l10nT ?? english, revision);
  }

  /** The document behind the model (for the xcsh-only write commands and the CLI). */
  get document(): SessionDocument {
    return this.doc;
  }

  get snapshot(): SessionSnapshot {
    return this.#snap;
  }

  async summary(): Promise<SessionSummary> {
    return this.#snap.summary;
  }

  async rawEntry(entryId: string): Promise<unknown> {
    return this.#snap.index.get(entryId) ?? null;
  }

  async has(nodeId: string): Promise<boolean> {
    return this.#snap.index.has(nodeId);
  }

  async defaultLeaf(): Promise<string | null> {
    return this.#snap.index.defaultLeafId;
  }

  #flat(filter: TreeFilter, search: string, leafId: string | null): FlatTree {
    const index = this.#snap.index;
    const key = `${this.#snap.revision}\0${filter}\0${search}`;
    if (this.#treeCache?.key !== key) this.#treeCache = { key, layout: layoutTree(index, filter, search) };
    const cache = this.#treeCache;
    if (cache.flat === undefined || cache.leafId !== leafId) {
      cache.flat = selectLeafIn(index, cache.layout, leafId);
      cache.leafId = leafId;
    }
    return cache.flat;
  }

  async tree(p: TreeParams): Promise<TreeResult> {
    const index = this.#snap.index;
    const leaf = this.#windows.resolveLeaf(p.leafId);
    const flat = this.#flat(p.filter, p.search, leaf);
    const leafPos = leaf === null ? -1 : index.indexOf(leaf);
    return {
      total: flat.ids.length,
      hidden: flat.hidden,
      selectedIndex: flat.selectedIndex,
      leafHidden: leafPos !== -1 && flat.rowAt[leafPos] === -1,
      focusIndex: p.focusEntryId !== null && index.has(p.focusEntryId) ? rowOfEntry(index, flat, p.focusEntryId) : null,
      rows: treeRows(index, flat, p.start, p.count),
    };
  }

  async context(leafId: string | null): Promise<ContextInfo> {
    return this.#windows.context(leafId);
  }

  async messages(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    return this.#windows.messages(leafId, start, count);
  }

  async cutEntries(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    return this.#windows.cutEntries(leafId, start, count);
  }

  chart(leafId: string | null): Promise<ChartData> {
    return contextChart(this, leafId);
  }

  async locate(leafId: string | null, entryId: string): Promise<{ messageIndex: number | null; cutIndex: number | null }> {
    return this.#windows.locate(leafId, entryId);
  }

  async image(entryId: string, blockIndex: number): Promise<ImageResult> {
    const t = this.#l10nT;
    const img = this.#windows.imageData(entryId, blockIndex);
    return imageResult(img, this.blobs, t);
  }

  async refresh(): Promise<RefreshOutcome> {
    const r = await refreshSessionDocument(this.doc);
    if (r.kind !== 'unchanged') {
      this.#snap = snapshotOfDocument(this.path, this.doc, this.blobs, ++this.#revision, performance.now());
      this.#windows = new ContextWindows(this.#snap);
      this.#treeCache = undefined;
    }
    return { kind: r.kind, summary: this.#snap.summary };
  }

  #branches(): BranchQueries {
    const snap = this.#snap;
    if (this.#branchQueries?.revision !== snap.revision) {
      const index = snap.index;
      const entries = index.entries as readonly ViewEntry[];
      const q = new BranchQueries({
        ...forestSourceOfIndex(index),
        defaultLeafId: index.defaultLeafId,
        idAt: (i) => entries[i]!.id,
        isUserAt: (i) => roleOf(entries[i]!) === 'user',
        labelOf: (id) => index.labels.get(id),
        entriesAt: async (ps) => ps.map((p) => entries[p]!),
      });
      this.#branchQueries = { revision: snap.revision, q };
    }
    return this.#branchQueries.q;
  }

  async segments(q: BranchQuery, under: string | null): Promise<BranchSegment[]> {
    return this.#branches().segments(q, under);
  }

  async runEntries(q: BranchQuery, firstId: string, start: number, count: number): Promise<RunEntry[]> {
    return this.#branches().runEntries(q, firstId, start, count);
  }

  async revealPath(q: BranchQuery, entryId: string): Promise<{ target: string; chain: RevealStep[] } | null> {
    return this.#branches().revealPath(q, entryId);
  }

  async searchHit(q: BranchQuery): Promise<{ entryMatches: number }> {
    return this.#branches().searchHit(q);
  }

  dispose(): void {}
}
