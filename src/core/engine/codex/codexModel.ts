// The session model of an OpenAI Codex CLI rollout (issue 24; codex-format.md), read-only. Its
// structure is turns → records (codexOutline.ts); "what the model saw" at a node is the replay of
// Part B over the records up to it (codexContext.ts), shown through the same display model as the
// other formats, a compaction's summary where the replacement put it and the history it replaced
// behind the band. Nothing is ever written; a refresh of a plain rollout reads only its new lines.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ChartData, ContextInfo, MessageView, SessionSummary, TreeFilter } from '../../../protocol/messages';
import { severityOf, type DiagnosticKind } from '../../diagnostics';
import { CODEX_READ_ONLY_REASON, type SessionFormat } from '../../formats/detect';
import { loadCodexRollout, readCodexAppend } from '../../formats/codex/load';
import { isApiItem, replayRollout } from '../../formats/codex/replay';
import { codexHomeOf, readSessionIndex } from '../../formats/codex/sessionIndex';
import { factsOfRollout } from '../../formats/codex/facts';
import { codexOnlySeverity, isObj, str, type CodexRecord, type CodexRollout, type HistoryItem, type Obj } from '../../formats/codex/types';
import { attributeUsage } from '../../formats/codex/usage';
import { english, type Translate } from '../../l10n';
import { oneLine } from '../../tree/treeView';
import { chartLeftOut, chartOf } from '../../../protocol/chartData';
import { inertImageMime, type BranchQuery, type BranchSegment, type RevealStep, type RunEntry, type ImageResult, type ModelOptions, type RefreshOutcome, type LocalSessionModel, type TreeParams, type TreeResult } from '../model';
import { chartRows, computeContext, cutViews, messageViews, notRecordedSentence, type CodexLoaded, type NodeContext } from './codexContext';
import { CodexDocuments } from './codexDocuments';
import type { SessionDocuments } from '../documents';
import { OutlineBranches, OutlineRows, type OutlineVisible } from '../outlineTree';
import { CALL_TYPES, callToolName, dataUrlMime, recordIconFacts, recordKind, recordPreview } from './codexDisplay';
import { CodexOutline, type OutlineNode } from './codexOutline';
import { LruMap } from '../../lruMap';

/** The format value of a Codex session. */
export const CODEX_FORMAT = 'codex' satisfies SessionFormat;
export { CODEX_READ_ONLY_REASON };

const MAX_LISTED_DIAGNOSTICS = 500;
const CACHED_CONTEXTS = 4;

export interface CodexModelOptions extends ModelOptions {
  /** The Codex home whose session_index.jsonl names threads (default: the folder above `sessions/` on the path). */
  codexHome?: string | null;
  /** Read a plain rollout from this line start on (its tail: codexPeek.ts), not whole; `line` numbers the line there. */
  window?: { from: number; line: number };
}

export class CodexModel implements LocalSessionModel {
  readonly format = CODEX_FORMAT;
  #rollout!: CodexRollout;
  #outline!: CodexOutline;
  #loaded!: CodexLoaded;
  /** Ids of history items a rollback dropped (over the whole file). */
  #rolledBack = new Set<string>();
  #threadName: string | null = null;
  #summary!: SessionSummary;
  #revision = 0;
  #stamp = '';
  readonly #contexts = new LruMap<string, NodeContext>(CACHED_CONTEXTS);
  /** The rows of the last filters and searches (the editor's and the Sessions view's may differ), and their branch rows. */
  readonly #visible = new LruMap<string, { rows: OutlineVisible; branches?: OutlineBranches<OutlineNode> }>(2);

  private constructor(
    readonly path: string,
    private readonly opts: CodexModelOptions,
    private readonly l10nT: Translate,
  ) {}

  static async open(path: string, opts: CodexModelOptions = {}): Promise<CodexModel> {
    const m = new CodexModel(path, opts, opts.l10nT ?? english);
    m.#install(await loadCodexRollout(path, opts.window));
    await m.#readThreadName();
    m.#summary = m.#summarize();
    return m;
  }

  /** The rollout as read (for the CLI and tests). */
  get rollout(): CodexRollout {
    return this.#rollout;
  }

  async #readThreadName(): Promise<void> {
    const id = this.#rollout.meta?.id;
    const home = this.opts.codexHome === undefined ? codexHomeOf(this.path) : this.opts.codexHome;
    this.#threadName = null;
    if (!id || !home) return;
    try {
      this.#threadName = (await readSessionIndex(home)).names.get(id)?.name ?? null;
    } catch {
      // an unreadable index only costs the title
    }
  }

  #install(rollout: CodexRollout): void {
    this.#rollout = rollout;
    const records = rollout.records;
    const indexOfLine = new Map<number, number>();
    const toolNames = new Map<string, string>();
    const turnContexts: number[] = [];
    const noteCall = (p: Obj): void => {
      const name = callToolName(p);
      if (name !== null) toolNames.set(p.call_id as string, name);
    };
    records.forEach((r, i) => {
      indexOfLine.set(r.line, i);
      if (r.type === 'turn_context') turnContexts.push(i);
      const p = r.payload;
      if (!isObj(p)) return;
      if (r.type === 'response_item') noteCall(p);
      else if (r.type === 'compacted' && Array.isArray(p.replacement_history)) for (const x of p.replacement_history) if (isObj(x)) noteCall(x);
    });
    const provider = rollout.meta?.modelProvider ?? null;
    const modelAt = (at: number): string | null => {
      let lo = 0;
      let hi = turnContexts.length - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (turnContexts[mid]! <= at) {
          found = turnContexts[mid]!;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      // Items before the first turn_context (the first prompt) were answered under it.
      if (found === -1) found = turnContexts[0] ?? -1;
      const p = found >= 0 ? records[found]!.payload : null;
      const model = isObj(p) ? str(p.model) : null;
      return model ? (provider ? `${provider}/${model}` : model) : null;
    };
    this.#revision++;
    this.#loaded = {
      records,
      indexOfLine,
      usage: attributeUsage(records),
      toolNames,
      modelAt,
      systemPrompt: rollout.meta?.baseInstructions ?? null,
      revision: this.#revision,
    };
    this.#outline = new CodexOutline(records);
    this.#rolledBack = new Set();
    // Which items a rollback dropped: only a file with a rollback needs the whole replay for it.
    if (records.some((r) => r.type === 'event_msg' && isObj(r.payload) && r.payload.type === 'thread_rolled_back')) {
      replayRollout(records, {
        onRollback: (dropped) => {
          for (const h of dropped) if (h.origin === 'record') this.#rolledBack.add(h.id);
        },
      });
    }
    this.#contexts.clear();
    this.#visible.clear();
    this.#stamp = `${rollout.bytes}:${rollout.mtimeMs}`;
  }

  /** Sessions view / editor state: an open last turn, or one that was interrupted. */
  #state(): SessionSummary['state'] {
    const l10nT = this.l10nT;
    const records = this.#rollout.records;
    for (let i = records.length - 1; i >= 0; i--) {
      const r = records[i]!;
      if (r.type !== 'event_msg' || !isObj(r.payload)) continue;
      const type = r.payload.type;
      if (type === 'turn_aborted') {
        const reason = str(r.payload.reason) ?? '?';
        return { kind: 'interrupted', label: l10nT('interrupted'), description: l10nT('The last turn was interrupted ({0}).', reason) };
      }
      if (type === 'task_complete' || type === 'turn_complete') return null;
      if (type === 'task_started' || type === 'turn_started') return { kind: 'open', label: l10nT('open'), description: l10nT('The last turn has started and not ended: Codex may still be working on it, or it stopped without a word.') };
    }
    return null;
  }

  #summarize(): SessionSummary {
    const r = this.#rollout;
    const facts = factsOfRollout(r);
    const usage = this.#loaded.usage.total;
    let apiItems = 0;
    let calls = 0;
    const models: string[] = [];
    for (const rec of r.records) {
      const p = rec.payload;
      if (!isObj(p)) continue;
      if (rec.type === 'response_item' && isApiItem(p)) {
        apiItems++;
        if (CALL_TYPES.has(String(p.type))) calls++;
      } else if (rec.type === 'turn_context' && typeof p.model === 'string') {
        const m = r.meta?.modelProvider ? `${r.meta.modelProvider}/${p.model}` : p.model;
        if (!models.includes(m)) models.push(m);
      }
    }
    const firstTurnCwd = r.records.find((x) => x.type === 'turn_context' && isObj(x.payload) && typeof x.payload.cwd === 'string');
    return {
      format: CODEX_FORMAT,
      encoding: r.encoding,
      state: this.#state(),
      fileName: basename(this.path),
      filePath: this.path,
      title: this.#threadName,
      firstPrompt: facts.firstPrompt ? oneLine(facts.firstPrompt, 160) : null,
      cwd: r.meta?.cwd ?? (firstTurnCwd && isObj(firstTurnCwd.payload) ? str(firstTurnCwd.payload.cwd) : null),
      sessionId: r.meta?.id ?? null,
      version: null,
      currentVersion: 0,
      needsMigration: false,
      readOnlyReason: CODEX_READ_ONLY_REASON,
      created: facts.created,
      modified: facts.lastTimestamp ?? new Date(r.mtimeMs).toISOString(),
      sizeBytes: r.bytes,
      entryCount: r.records.length,
      leafCount: this.#outline.turns,
      defaultLeafId: this.#outline.defaultLeaf,
      totals: {
        messages: apiItems,
        toolCalls: calls,
        tokensIn: usage ? Math.max(0, usage.input - usage.cachedInput - usage.cacheWrite) : 0,
        tokensOut: usage?.output ?? 0,
        cacheRead: usage?.cachedInput ?? 0,
        cacheWrite: usage?.cacheWrite ?? 0,
        tokensTotal: usage?.total ?? 0,
        cost: 0,
      },
      models,
      diagnosticCount: r.diagnostics.length,
      diagnostics: r.diagnostics.slice(0, MAX_LISTED_DIAGNOSTICS).map((d) => ({ line: d.line, kind: d.kind, severity: codexOnlySeverity(d.kind) ?? severityOf(d.kind as DiagnosticKind), message: d.message })),
      revision: this.#revision,
    };
  }

  async summary(): Promise<SessionSummary> {
    return this.#summary;
  }

  async has(nodeId: string): Promise<boolean> {
    return this.#outline.byId.has(nodeId);
  }

  async defaultLeaf(): Promise<string | null> {
    return this.#outline.defaultLeaf;
  }

  #node(id: string | null): OutlineNode | undefined {
    const o = this.#outline;
    return (id !== null ? o.node(id) : undefined) ?? (o.defaultLeaf !== null ? o.node(o.defaultLeaf) : undefined);
  }

  /** How a row names a node (the tree and the context header say the same). */
  #display(n: OutlineNode): { kind: string; text: string; label: string | null } {
    const l10nT = this.l10nT;
    const o = this.#outline;
    if (n.kind === 'turn') {
      const prompt = o.text(n);
      const rolledBack = n.prompt !== -1 && this.#rolledBack.has(`L${o.records[n.prompt]!.line}`);
      return { kind: 'turn', text: prompt ? l10nT('Turn {0}: {1}', n.turn ?? '?', prompt) : l10nT('Turn {0}', n.turn ?? '?'), label: rolledBack ? l10nT('rolled back') : null };
    }
    const rec = o.records[n.record]!;
    return { kind: recordKind(rec), text: recordPreview(rec), label: this.#rolledBack.has(`L${rec.line}`) ? l10nT('rolled back') : null };
  }

  async tree(p: TreeParams): Promise<TreeResult> {
    return this.#outlineRows(this.#shown(p.filter, p.search).rows, this.#node(p.leafId)).window(p);
  }

  /** The rows a filter and a search (or the search index's ids) show, kept for the next window. */
  #shown(filter: TreeFilter, search: string, ids?: readonly string[]): { rows: OutlineVisible; branches?: OutlineBranches<OutlineNode> } {
    const key = `${this.#revision}\0${filter}\0${ids ? '' : search}\0${ids ? ids.join('\n') : '-'}`;
    return this.#visible.getOrMake(key, () => ({ rows: this.#outline.visibleRows(filter, search, ids) }));
  }

  #outlineRows(visible: OutlineVisible, leaf: OutlineNode | undefined): OutlineRows<OutlineNode> {
    return new OutlineRows(this.#outline, visible, leaf, (n) => ({ ...this.#display(n), timestamp: this.#rollout.records[n.first]!.timestamp }));
  }

  /** The Sessions view's rows of a query: turns as runs of their records, the default leaf's turn the current one. */
  #branches(q: BranchQuery): OutlineBranches<OutlineNode> {
    const shown = this.#shown(q.filter, q.search, q.ids);
    return (shown.branches ??= new OutlineBranches(this.#outlineRows(shown.rows, this.#node(null)), (n) => (n.kind === 'turn' ? { role: null, callsTools: false } : recordIconFacts(this.#outline.records[n.record]!))));
  }

  async segments(q: BranchQuery, under: string | null): Promise<BranchSegment[]> {
    return this.#branches(q).segments(under);
  }

  async runEntries(q: BranchQuery, firstId: string, start: number, count: number): Promise<RunEntry[]> {
    return this.#branches(q).runEntries(firstId, start, count);
  }

  async revealPath(q: BranchQuery, entryId: string): Promise<{ target: string; chain: RevealStep[] } | null> {
    return this.#branches(q).revealPath(entryId);
  }

  async searchHit(q: BranchQuery): Promise<{ entryMatches: number }> {
    return this.#branches(q).searchHit();
  }

  #context(leafId: string | null): NodeContext {
    const node = this.#node(leafId);
    const key = node?.id ?? '';
    return this.#contexts.getOrMake(key, () => computeContext(this.#loaded, node ? node.last : -1, node ? this.#display(node) : null, node?.id ?? null, this.l10nT));
  }

  async context(leafId: string | null): Promise<ContextInfo> {
    return this.#context(leafId).info;
  }

  /**
   * The model's history at a node as the replay rebuilds it (the CLI's `context`): the items as they
   * are sent, the ones a compaction replaced, and the node it is at. Null for an unknown node.
   */
  history(nodeId: string | null): { nodeId: string | null; items: readonly HistoryItem[]; cut: readonly HistoryItem[]; notRecorded: string } | null {
    if (nodeId !== null && !this.#outline.node(nodeId)) return null;
    const node = this.#node(nodeId);
    const nc = this.#context(nodeId);
    return { nodeId: node?.id ?? null, items: nc.items, cut: nc.cut, notRecorded: notRecordedSentence(this.#loaded.systemPrompt, this.l10nT) };
  }

  /** Every node of the outline in order (turns → records), as the tree shows them under `all`. */
  outlineRows(): { id: string; depth: number; kind: string; text: string; label: string | null }[] {
    return this.#outline.nodes.map((n) => ({ id: n.id, depth: n.depth, ...this.#display(n) }));
  }

  documents(): SessionDocuments {
    return new CodexDocuments(this);
  }

  async messages(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    return messageViews(this.#loaded, this.#context(leafId), start, count, this.l10nT);
  }

  async cutEntries(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    return cutViews(this.#loaded, this.#context(leafId), start, count, this.l10nT);
  }

  async chart(leafId: string | null): Promise<ChartData> {
    const nc = this.#context(leafId);
    const leftOut = chartLeftOut(nc.info);
    if (leftOut) return leftOut;
    const { messages, cut } = chartRows(this.#loaded, nc);
    return chartOf(nc.info, messages, cut);
  }

  async locate(leafId: string | null, entryId: string): Promise<{ messageIndex: number | null; cutIndex: number | null }> {
    const nc = this.#context(leafId);
    let id = entryId;
    // A turn row stands for its prompt.
    const turn = entryId.startsWith('T') ? this.#outline.node(entryId) : undefined;
    if (turn && turn.prompt !== -1) id = `L${this.#outline.records[turn.prompt]!.line}`;
    const mi = nc.indexOfId.get(id);
    if (mi !== undefined) return { messageIndex: mi, cutIndex: null };
    const ci = nc.cutIndexOfId.get(id);
    return { messageIndex: null, cutIndex: ci ?? null };
  }

  /** The stored response item an id names: a record's payload or an item of a replacement_history. */
  #storedItem(entryId: string): Obj | null {
    const m = /^L(\d+)(?:\.(\d+))?$/.exec(entryId);
    if (!m) return null;
    const at = this.#loaded.indexOfLine.get(Number(m[1]));
    const rec = at === undefined ? undefined : this.#rollout.records[at];
    if (!rec || !isObj(rec.payload)) return null;
    if (m[2] === undefined) return rec.type === 'response_item' ? rec.payload : null;
    const repl = rec.type === 'compacted' ? rec.payload.replacement_history : undefined;
    const item = Array.isArray(repl) ? repl[Number(m[2])] : undefined;
    return isObj(item) ? item : null;
  }

  async image(entryId: string, blockIndex: number): Promise<ImageResult> {
    const l10nT = this.l10nT;
    const item = this.#storedItem(entryId);
    const list = item ? (item.type === 'message' ? item.content : item.output) : undefined;
    const block = Array.isArray(list) ? (list[blockIndex] as unknown) : undefined;
    if (!isObj(block) || block.type !== 'input_image' || typeof block.image_url !== 'string') return { kind: 'error', message: l10nT('no image at this place in the entry') };
    const url = block.image_url;
    const m = /^data:([^;,]+);base64,([A-Za-z0-9+/=\s]*)$/i.exec(url);
    if (!m) return { kind: 'error', message: l10nT('image {0} not shown: only images stored in the session are displayed', url.slice(0, 80)) };
    const mime = inertImageMime((dataUrlMime(url) ?? '').toLowerCase());
    if (!mime) return { kind: 'error', message: l10nT('not shown: {0} images are not displayed', m[1]!.slice(0, 60)) };
    return { kind: 'data', dataUrl: `data:${mime};base64,${m[2]!.replace(/\s+/g, '')}` };
  }

  async rawEntry(entryId: string): Promise<unknown> {
    const rec = this.#recordOf(entryId);
    if (rec) return { line: rec.line, type: rec.type, timestamp: rec.timestamp, ...(rec.ordinal !== undefined ? { ordinal: rec.ordinal } : {}), payload: rec.payload };
    const stored = this.#storedItem(entryId);
    if (stored) return stored;
    // Rebuilt and synthetic items exist only in a replay: the one at the record they belong to.
    const m = /^L(\d+)/.exec(entryId);
    const at = m ? this.#loaded.indexOfLine.get(Number(m[1])) : undefined;
    if (at === undefined) return null;
    const nc = computeContext(this.#loaded, at, null, null, this.l10nT);
    const i = nc.indexOfId.get(entryId);
    return i === undefined ? null : nc.items[i]!.item;
  }

  #recordOf(entryId: string): CodexRecord | undefined {
    const m = /^L(\d+)$/.exec(entryId);
    const at = m ? this.#loaded.indexOfLine.get(Number(m[1])) : undefined;
    return at === undefined ? undefined : this.#rollout.records[at];
  }

  async refresh(): Promise<RefreshOutcome> {
    const st = await stat(this.path);
    if (`${st.size}:${st.mtimeMs}` === this.#stamp) return { kind: 'unchanged', summary: this.#summary };
    // A plain rollout that only grew: its new lines are read; anything else is read again.
    const appended = await readCodexAppend(this.#rollout);
    this.#install(appended ?? (await loadCodexRollout(this.path)));
    await this.#readThreadName();
    this.#summary = this.#summarize();
    return { kind: appended ? 'appended' : 'reloaded', summary: this.#summary };
  }

  dispose(): void {}
}

