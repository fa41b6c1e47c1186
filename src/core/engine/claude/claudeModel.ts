// The session model of one Claude Code transcript (issue 24; claude-code-format.md), read-only.
// The file is read once into record facts (formats/claude); bodies stay on disk and are read by
// byte range for the rows a window shows. The tree is the records' uuid/parentUuid tree as the
// view shows it (formats/claude/tree.ts: boundaries under their logical parent, inline
// sidechains under their Task call, parallel results in line), laid out by the engine's
// ForestRows; "what the model sees" at a node is Part B's walk, cut and normalisation
// (claudeContext.ts). Its default leaf is Claude Code 2.1.112's; every other record can be
// chosen. A change of the file reads it again (refresh: 'reloaded').
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { CLAUDE_READ_ONLY_REASON, findSubagents, foreignSummaries, loadClaudeSession, nthImage, RecordBodies, type ClaudeSession, type Usage } from '../../formats/claude/index';
import type { SessionFormat } from '../../formats/detect';
import { severityOf } from '../../diagnostics';
import { english, type Translate } from '../../l10n';
import { tokenizeSearch } from '../../tree/treeView';
import type { ChartData, ContextInfo, MessageView, SessionSummary, TreeFilter, TreeRow } from '../../../protocol/messages';
import { chartLeftOut, chartOf } from '../../../protocol/chartData';
import type { SessionDocuments } from '../documents';
import { inertImageMime, type BranchQuery, type BranchSegment, type ImageResult, type LocalSessionModel, type ModelOptions, type RefreshOutcome, type RevealStep, type RunEntry, type TreeParams, type TreeResult } from '../model';
import { ForestRows } from '../xcsh/treeRows';
import { BranchQueries } from '../xcsh/branchQueries';
import { LruMap } from '../../lruMap';
import { CancelledError } from '../rpc';
import { ClaudeContexts } from './claudeContext';
import { ClaudeDocuments } from './claudeDocuments';
import { ClaudeForest } from './claudeForest';
import type { ReadFrom } from '../../formats/xcsh/jsonl';

/** The format name this model answers with. */
export const CLAUDE_FORMAT = 'claude' satisfies SessionFormat;

const MAX_LISTED_DIAGNOSTICS = 500;

export interface ClaudeModelOptions extends ModelOptions {
  /**
   * Titles written into other files of the project (A.10: a `summary` record may sit in another
   * session's file): leafUuid → title. The project's discovery gathers them; without them only
   * this file's summaries name its leaves.
   */
  summaries?: ReadonlyMap<string, string>;
  /** Read the transcript from this line start on (its tail: claudePeek.ts), not whole. */
  window?: ReadFrom;
}

interface State {
  session: ClaudeSession;
  /** Task call id → the subagent transcript it started, in a file of its own (found on first need). */
  subagentFiles?: Promise<Map<string, { path: string; label: string }>>;
  bodies: RecordBodies;
  forest: ClaudeForest;
  /** The Sessions view's branch rows, over the same layouts as the editor's tree. */
  branches: BranchQueries;
  contexts: ClaudeContexts;
  summary: SessionSummary;
  revision: number;
}

export class ClaudeModel implements LocalSessionModel {
  readonly format = CLAUDE_FORMAT;
  #s!: State;
  /** Rows laid out per filter and search (the editor's and the Sessions view's may differ). */
  readonly #layouts = new LruMap<string, Promise<ForestRows>>(2);
  readonly #l10nT: Translate;

  private constructor(
    readonly path: string,
    private readonly opts: ClaudeModelOptions,
  ) {
    this.#l10nT = opts.l10nT ?? english;
  }

  static async open(path: string, opts: ClaudeModelOptions = {}): Promise<ClaudeModel> {
    const m = new ClaudeModel(path, opts);
    await m.#load(1);
    return m;
  }

  async #load(revision: number): Promise<void> {
    const session = await loadClaudeSession(this.path, {
      ...(this.opts.signal ? { signal: this.opts.signal, abortError: () => new CancelledError() } : {}),
      ...(this.opts.onProgress ? { onProgress: this.opts.onProgress } : {}),
      ...(this.opts.window ? { from: this.opts.window } : {}),
    });
    const { transcript: t, tree } = session;
    const recs = t.records;
    const bodies = new RecordBodies(this.path);
    const toolNames = new Map<string, string>();
    const subagentOfCall = new Map<string, string>();
    for (const r of recs) {
      for (const u of r.toolUses ?? []) toolNames.set(u.id, u.name);
      if (r.agentLink?.toolUseId) subagentOfCall.set(r.agentLink.toolUseId, r.agentLink.agentId);
    }
    for (const s of tree.inlineSidechains) if (s.taskCallId) subagentOfCall.set(s.taskCallId, '');
    const usage = new Map<string, Usage>();
    for (const [id, lines] of tree.linesOfMessage) {
      let u: Usage | null = null;
      for (const p of lines) {
        const lu = recs[p]!.usage;
        if (!lu) continue;
        if (!u) u = { ...lu };
        else u.output = Math.max(u.output, lu.output);
      }
      if (u) usage.set(id, u);
    }
    const labels = this.#labels(session);
    const t10 = this.#l10nT;
    const forest = new ClaudeForest(session, labels, toolNames);
    const contexts = new ClaudeContexts({
      session,
      bodies,
      toolNames,
      usageOf: (id) => usage.get(id) ?? null,
      labelOf: (pos) => labels.get(pos) ?? null,
      subagentBadge: (callId) => {
        const a = subagentOfCall.get(callId);
        if (a === undefined) return null;
        return a === '' ? t10('subagent (inline)') : t10('subagent {0}', a);
      },
      l10nT: t10,
      revision,
    });
    const branches = new BranchQueries({
      defaultLeafPos: tree.defaultLeaf,
      indexOf: (id) => forest.indexOf(id),
      idAt: (pos) => forest.idAt(pos),
      isUserAt: (pos) => forest.isUserAt(pos),
      rowsAt: async (ps) => ps.map((pos) => forest.row(pos)),
    });
    this.#s = { session, bodies, forest, branches, contexts, summary: this.#summarize(session, usage, revision), revision };
    this.#layouts.clear();
  }

  /** Row labels: a leaf's title from a `summary` record, an inline sidechain's Task description. */
  #labels(session: ClaudeSession): Map<number, string> {
    const { transcript: t, tree } = session;
    const labels = new Map<number, string>();
    const title = (leafUuid: string, text: string): void => {
      const p = t.byUuid.get(leafUuid);
      if (p !== undefined) labels.set(p, text);
    };
    for (const [leaf, text] of this.opts.summaries ?? []) title(leaf, text);
    for (const s of t.summaries) title(s.leafUuid, s.summary);
    for (const s of tree.inlineSidechains) labels.set(s.rootPos, s.description ? this.#l10nT('subagent: {0}', s.description) : this.#l10nT('subagent'));
    return labels;
  }

  #summarize(session: ClaudeSession, usage: ReadonlyMap<string, Usage>, revision: number): SessionSummary {
    const { transcript: t, tree } = session;
    const recs = t.records;
    const leaf = tree.defaultLeaf >= 0 ? recs[tree.defaultLeaf]! : null;
    const external = this.opts.summaries;
    // A.10: a summary names the conversation ending at its leaf; a custom or AI title names the session.
    let title = t.customTitle ?? t.aiTitle ?? (leaf ? (t.summaries.filter((s) => s.leafUuid === leaf.uuid).pop()?.summary ?? external?.get(leaf.uuid) ?? null) : null);
    if (title === null) {
      const own = t.summaries.filter((s) => t.byUuid.has(s.leafUuid));
      title = own.length > 0 ? own[own.length - 1]!.summary : null;
    }
    let toolCalls = 0;
    let users = 0;
    let first: string | null = null;
    let last: string | null = null;
    let lastMs = -Infinity;
    const models = new Set<string>();
    for (let i = 0; i < tree.n; i++) {
      const r = recs[i]!;
      if (!tree.isLive(i)) continue;
      for (const u of r.toolUses ?? []) if (!u.server) toolCalls++;
      if (r.type === 'user') users++;
      if (r.model !== null && r.model !== '<synthetic>' && r.type === 'assistant') models.add(r.model);
      if (r.timestamp !== null && !Number.isNaN(r.time)) {
        if (first === null || r.time < Date.parse(first)) first = r.timestamp;
        if (r.time >= lastMs) {
          lastMs = r.time;
          last = r.timestamp;
        }
      }
    }
    const totals = { tokensIn: 0, tokensOut: 0, cacheRead: 0, cacheWrite: 0 };
    for (const u of usage.values()) {
      totals.tokensIn += u.input;
      totals.tokensOut += u.output;
      totals.cacheRead += u.cacheRead;
      totals.cacheWrite += u.cacheWrite;
    }
    const diagnostics = [...t.diagnostics, ...tree.diagnostics].sort((a, b) => a.line - b.line);
    return {
      format: CLAUDE_FORMAT,
      encoding: 'jsonl',
      state: null,
      fileName: basename(this.path),
      filePath: this.path,
      title,
      firstPrompt: t.firstPrompt,
      cwd: t.cwd,
      sessionId: t.sessionId,
      version: null,
      currentVersion: 0,
      needsMigration: false,
      readOnlyReason: CLAUDE_READ_ONLY_REASON,
      created: first,
      modified: last ?? new Date(t.mtimeMs).toISOString(),
      sizeBytes: t.size,
      entryCount: recs.length + t.side.length,
      leafCount: tree.branchLeaves.length,
      defaultLeafId: leaf?.uuid ?? null,
      totals: { messages: users + usage.size, toolCalls, ...totals, cost: 0 },
      models: [...models].sort(),
      diagnosticCount: diagnostics.length,
      diagnostics: diagnostics.slice(0, MAX_LISTED_DIAGNOSTICS).map((d) => ({ line: d.line, kind: d.kind, severity: severityOf(d.kind), message: d.message, ...(d.entryId ? { entryId: d.entryId } : {}) })),
      revision,
    };
  }

  /** The transcript's reader state (tests, the CLI's documents, the Sessions view's subagent links). */
  get session(): ClaudeSession {
    return this.#s.session;
  }

  /** The context plans (the CLI's documents read them). */
  get contexts(): ClaudeContexts {
    return this.#s.contexts;
  }

  /** The body reader (the CLI's documents stream bodies through it). */
  get bodies(): RecordBodies {
    return this.#s.bodies;
  }

  documents(): SessionDocuments {
    return new ClaudeDocuments(this);
  }

  /** The `summary` records of this file whose leaf is in another file (A.10), for the project's title index. */
  foreignSummaries(): { summary: string; leafUuid: string; line: number }[] {
    return foreignSummaries(this.#s.session.transcript);
  }

  async summary(): Promise<SessionSummary> {
    return this.#s.summary;
  }

  async has(nodeId: string): Promise<boolean> {
    return this.#s.forest.indexOf(nodeId) !== -1;
  }

  async defaultLeaf(): Promise<string | null> {
    const p = this.#s.session.tree.defaultLeaf;
    return p >= 0 ? this.#s.session.transcript.records[p]!.uuid : null;
  }

  /**
   * The rows of a filter and a search (or the search index's `ids`, which then decide what the
   * search shows), laid out once per query and revision, ordered by the default leaf.
   */
  #rows(filter: TreeFilter, search: string, ids?: readonly string[]): Promise<ForestRows> {
    const s = this.#s;
    const tokens = ids ? [] : tokenizeSearch(search);
    const key = `${s.revision}\0${filter}\0${tokens.join(' ')}\0${ids ? ids.join('\n') : '-'}`;
    return this.#layouts.getOrMake(key, async () => {
      const forest = s.forest;
      let matches: Uint8Array | null = null;
      if (ids) {
        matches = new Uint8Array(forest.n);
        for (const id of ids) {
          const p = forest.indexOf(id);
          if (p !== -1) matches[p] = 1;
        }
      } else if (tokens.length > 0) matches = await forest.searchBits(tokens);
      return ForestRows.layout(forest, forest.shown(filter, matches), forest.onDefaultPath());
    }).catch((e: unknown) => {
      // (A failed search read is not kept: the next query reads again.)
      this.#layouts.clear();
      throw e;
    });
  }

  async tree(p: TreeParams): Promise<TreeResult> {
    const s = this.#s;
    const forest = s.forest;
    const rows = await this.#rows(p.filter, p.search);
    const leafPos = s.contexts.resolveLeaf(p.leafId);
    const sel = rows.select(leafPos);
    // On the path: the records the walk of the selected leaf visits (recovered ones included),
    // which is what its context shows — not only its ancestors in the tree as laid out.
    const nc = leafPos >= 0 ? s.contexts.plan(p.leafId) : null;
    const onPath = new Set<number>(nc ? [...nc.path.cut, ...nc.path.visible, ...(nc.path.boundary >= 0 ? [nc.path.boundary] : [])] : []);
    const end = Math.min(rows.rows, p.start + p.count);
    const defaultLeaf = s.session.tree.defaultLeaf;
    const out: TreeRow[] = [];
    for (let r = p.start; r < end; r++) {
      const pos = rows.posAt(r);
      const { callsTools: _calls, role: _role, ...row } = forest.row(pos);
      out.push({
        ...row,
        depth: rows.depthAt(r),
        isDefaultLeaf: pos === defaultLeaf,
        onPath: onPath.has(pos),
        forks: rows.forksAt(r),
      });
    }
    const focus = p.focusEntryId !== null ? forest.indexOf(p.focusEntryId) : -1;
    return {
      total: rows.rows,
      hidden: rows.hidden,
      selectedIndex: sel.selectedIndex,
      leafHidden: sel.leafHidden,
      focusIndex: focus === -1 ? null : rows.nearestRow(focus),
      rows: out,
    };
  }

  // The Sessions view's branch rows: its queries over the rows of its filter and search, as the editor's.
  async segments(q: BranchQuery, under: string | null): Promise<BranchSegment[]> {
    const s = this.#s;
    return s.branches.segments(await this.#rows(q.filter, q.search, q.ids), under);
  }

  async runEntries(q: BranchQuery, firstId: string, start: number, count: number): Promise<RunEntry[]> {
    const s = this.#s;
    return s.branches.runEntries(await this.#rows(q.filter, q.search, q.ids), firstId, start, count);
  }

  async revealPath(q: BranchQuery, entryId: string): Promise<{ target: string; chain: RevealStep[] } | null> {
    const s = this.#s;
    return s.branches.revealPath(await this.#rows(q.filter, q.search, q.ids), entryId);
  }

  async searchHit(q: BranchQuery): Promise<{ entryMatches: number }> {
    const s = this.#s;
    return s.branches.searchHit(await this.#rows(q.filter, q.search, q.ids));
  }

  async context(leafId: string | null): Promise<ContextInfo> {
    return this.#s.contexts.plan(leafId).info;
  }

  async messages(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    const c = this.#s.contexts;
    const views = await c.views(c.plan(leafId), false, start, count);
    if (!views.some((v) => v.blocks.some((b) => b.kind === 'toolCall'))) return views;
    const files = await this.#subagentFiles();
    for (const v of views) {
      for (const b of v.blocks) {
        const f = b.kind === 'toolCall' ? files.get(b.callId) : undefined;
        if (b.kind === 'toolCall' && f) b.session = f;
      }
    }
    return views;
  }

  /** The Task calls whose subagent has a transcript of its own (2.0.x beside the session, 2.1.x under subagents/; B.5). */
  #subagentFiles(): Promise<Map<string, { path: string; label: string }>> {
    const s = this.#s;
    return (s.subagentFiles ??= findSubagents(s.session.tree).then(
      (links) => new Map(links.flatMap((l) => (l.taskCallId && l.layout !== 'inline' && l.layout !== 'compaction' ? [[l.taskCallId, { path: l.path, label: l.agentId ?? basename(l.path) }] as const] : []))),
      () => new Map(),
    ));
  }

  async cutEntries(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    const c = this.#s.contexts;
    return c.views(c.plan(leafId), true, start, count);
  }

  /** The chart from the facts (usage is in them): no body is read, whatever the context's length. */
  async chart(leafId: string | null): Promise<ChartData> {
    const c = this.#s.contexts;
    const nc = c.plan(leafId);
    const leftOut = chartLeftOut(nc.info);
    if (leftOut) return leftOut;
    const { messages, cut } = c.chartViews(nc);
    return chartOf(nc.info, messages, cut);
  }

  async locate(leafId: string | null, entryId: string): Promise<{ messageIndex: number | null; cutIndex: number | null }> {
    return this.#s.contexts.locate(leafId, entryId);
  }

  async image(entryId: string, blockIndex: number): Promise<ImageResult> {
    const t = this.#l10nT;
    const s = this.#s;
    const pos = s.session.transcript.byUuid.get(entryId);
    if (pos === undefined) return { kind: 'error', message: t('no image at this place in the entry') };
    const r = s.session.transcript.records[pos]!;
    const img = nthImage(await s.bodies.one({ line: r.line, start: r.start, end: r.end, uuid: r.uuid }), blockIndex);
    if (!img) return { kind: 'error', message: t('no image at this place in the entry') };
    if (img.sourceType !== 'base64' || img.data === null) return { kind: 'error', message: t('not shown: the image is a {0} reference, not data in the transcript', img.sourceType.slice(0, 40)) };
    const mime = inertImageMime(img.mediaType);
    if (!mime) return { kind: 'error', message: t('not shown: {0} images are not displayed', img.mediaType.slice(0, 60)) };
    return { kind: 'data', dataUrl: `data:${mime};base64,${img.data}` };
  }

  async rawEntry(entryId: string): Promise<unknown> {
    const s = this.#s;
    const ref = s.forest.refOf(entryId);
    return ref ? s.bodies.one(ref) : null;
  }

  /** A transcript is only appended to by the CLI, but is read again whole on any change (its tree's repairs look back). */
  async refresh(): Promise<RefreshOutcome> {
    const st = await stat(this.path);
    if (`${st.size}:${st.mtimeMs}:${st.ino}` === this.#s.session.transcript.stamp) return { kind: 'unchanged', summary: this.#s.summary };
    await this.#load(this.#s.revision + 1);
    return { kind: 'reloaded', summary: this.#s.summary };
  }

  dispose(): void {
    this.#s.bodies.clear();
  }
}
