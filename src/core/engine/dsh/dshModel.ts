// The session model of a deepseek-harness log (issue 10): raw, zstd or a session of an SQLite
// store, read-only. Its structure is turns → steps → events (dshOutline.ts); "what the model
// saw" at a node is dsh's own surface fold up to the node's last seq (src/core/formats/dsh), shown
// through the same display model as xcsh messages; a compaction's replacement comes first at its
// place, the span it shadowed greyed and expandable. The synthetic closers of an interrupted turn
// are shown last and marked; nothing is ever written.
import { DshDocuments } from './dshDocuments';
import type { SessionDocuments } from '../documents';
import { outlineTreeWindow } from '../outlineTree';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { DSH_READ_ONLY_REASON } from '../../formats/detect';
import { dshContextAt, dshSessionStats, dshStateDescription, dshStateLabel, loadDshSource, projectSurfaceEvent, readDshAttachment, type DshContextAt, type DshEvent, type DshLog } from '../../formats/dsh/index';
import { severityOf } from '../../diagnostics';
import { english, type Translate } from '../../l10n';
import { oneLine } from '../../tree/treeView';
import type { ChartData, ContextInfo, MessageView, SessionSummary } from '../../../protocol/messages';
import { contextChart } from '../contextChart';
import { inertImageMime, type ImageResult, type ModelOptions, type RefreshOutcome, type LocalSessionModel, type TreeParams, type TreeResult } from '../model';
import { estimateTokens, messageParts } from '../xcsh/messageView';
import { displayMessage, eventKind, type DisplayMessage } from './dshDisplay';
import { DshOutline, type OutlineEvents, type OutlineNode } from './dshOutline';
import { LruMap } from '../../lruMap';

const MAX_LISTED_DIAGNOSTICS = 500;
const CACHED_CONTEXTS = 4;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface NodeContext {
  ctx: DshContextAt;
  info: ContextInfo;
  /** Display messages, made when a window first needs them. */
  display: (DisplayMessage | undefined)[];
  tokens: Int32Array;
  cumulative: Float64Array;
  callIndex: Map<string, number>;
  resultIndex: Map<string, { index: number; isError: boolean }>;
  summaryIndex: number;
  shadowed: number[];
}

const iso = (ms: number | null | undefined): string | null => (typeof ms === 'number' && ms > 0 && Number.isFinite(ms) ? new Date(ms).toISOString() : null);

export class DshModel implements LocalSessionModel {
  readonly format = 'dsh' as const;
  #log!: DshLog;
  #events!: OutlineEvents;
  #outline!: DshOutline;
  #toolNames!: Map<string, string>;
  /** Seqs of the request/header events, ascending (the reasoning effort at a seq). */
  #headers!: number[];
  #summary!: SessionSummary;
  #revision = 0;
  #stamp = '';
  readonly #contexts = new LruMap<string, NodeContext>(CACHED_CONTEXTS);
  #rows: { key: string; rows: number[]; hidden: number } | undefined;

  private constructor(
    readonly path: string,
    private readonly opts: ModelOptions,
    private readonly l10nT: Translate,
  ) {}

  static async open(path: string, opts: ModelOptions = {}): Promise<DshModel> {
    const m = new DshModel(path, opts, opts.l10nT ?? english);
    await m.#load();
    return m;
  }

  async #load(): Promise<void> {
    const st = await stat(this.path);
    const log = await loadDshSource(this.path, this.opts.session !== undefined ? { session: this.opts.session } : {});
    this.#log = log;
    const stored = log.events.length;
    this.#events = {
      length: stored + log.closers.length,
      at: (seq) => (seq < stored ? log.events.at(seq)! : log.closers[seq - stored]!),
      typeAt: (seq) => (seq < stored ? (log.events.typeAt(seq) ?? '') : log.closers[seq - stored]!.type),
    };
    this.#outline = new DshOutline(this.#events, stored);
    this.#toolNames = new Map();
    this.#headers = [];
    for (let seq = 0; seq < this.#events.length; seq++) {
      const type = this.#events.typeAt(seq);
      if (type === 'request/header') this.#headers.push(seq);
      if (type !== 'assistant/message' && type !== 'tool/call') continue;
      const d = this.#events.at(seq).data;
      if (!isObj(d)) continue;
      if (type === 'tool/call' && typeof d.callId === 'string' && typeof d.name === 'string') this.#toolNames.set(d.callId, d.name);
      const content = isObj(d.message) && Array.isArray(d.message.content) ? d.message.content : [];
      for (const b of content) if (isObj(b) && b.type === 'tool-call' && typeof b.id === 'string' && typeof b.name === 'string') this.#toolNames.set(b.id, b.name);
    }
    this.#contexts.clear();
    this.#rows = undefined;
    this.#revision++;
    this.#stamp = `${st.size}:${st.mtimeMs}:${st.ino}`;
    this.#summary = this.#summarize(st.mtimeMs);
  }

  /** The log as read (for the CLI and the Sessions view's tooltip). */
  get log(): DshLog {
    return this.#log;
  }

  #summarize(mtimeMs: number): SessionSummary {
    const log = this.#log;
    const stats = dshSessionStats(log);
    const h = log.header;
    const t = this.l10nT;
    let userPrompt: DshEvent | undefined;
    for (let seq = 0; seq < this.#events.length && !userPrompt; seq++) {
      if (this.#events.typeAt(seq) !== 'user/message') continue;
      const e = this.#events.at(seq);
      if (eventKind(e) === 'user') userPrompt = e;
    }
    const diagnostics = log.diagnostics;
    const messages = stats.messages.user + stats.messages.injected + stats.messages.assistant + stats.messages.toolResults;
    return {
      format: 'dsh',
      encoding: log.encoding === 'raw' ? 'jsonl' : log.encoding,
      state: { kind: log.state, label: dshStateLabel(log.state, t), description: dshStateDescription(log.state, t) },
      fileName: basename(this.path),
      filePath: this.path,
      title: stats.title,
      firstPrompt: userPrompt ? oneLine(this.#outline.text(this.#outline.nodeOfSeq(userPrompt.seq)!, 160), 160) || null : null,
      cwd: typeof h?.cwd === 'string' ? h.cwd : null,
      sessionId: h?.id ?? null,
      version: null,
      currentVersion: 0,
      needsMigration: false,
      readOnlyReason: DSH_READ_ONLY_REASON,
      created: iso(stats.createdAt),
      modified: new Date(log.mtimeMs ?? mtimeMs).toISOString(),
      sizeBytes: log.bytes,
      entryCount: this.#events.length,
      leafCount: stats.turns,
      defaultLeafId: this.#outline.defaultLeaf,
      totals: {
        messages,
        toolCalls: stats.toolCalls,
        tokensIn: stats.usage.inputTokens,
        tokensOut: stats.usage.outputTokens,
        cacheRead: stats.usage.cacheReadTokens,
        cacheWrite: stats.usage.cacheWriteTokens,
        cost: 0,
      },
      models: stats.models.map((m) => `${m.provider}/${m.model}`),
      diagnosticCount: diagnostics.length,
      diagnostics: diagnostics.slice(0, MAX_LISTED_DIAGNOSTICS).map((d) => ({ line: d.line, kind: d.kind, severity: severityOf(d.kind), message: d.message })),
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
    return (id !== null ? this.#outline.node(id) : undefined) ?? (this.#outline.defaultLeaf !== null ? this.#outline.node(this.#outline.defaultLeaf) : undefined);
  }

  /** How a row names a node (the tree and the context header say the same). */
  #display(n: OutlineNode): { kind: string; text: string; label: string | null } {
    const t = this.l10nT;
    const label = n.synthetic ? t('synthetic') : null;
    switch (n.kind) {
      case 'turn': {
        const prompt = this.#outline.text(n);
        return { kind: 'turn', text: prompt ? t('Turn {0}: {1}', n.turn ?? '?', prompt) : t('Turn {0}', n.turn ?? '?'), label };
      }
      case 'step': {
        const model = this.#stepModel(n);
        return { kind: 'step', text: model ? t('Step {0} · {1}', n.step ?? '?', model) : t('Step {0}', n.step ?? '?'), label };
      }
      case 'chunks':
        return { kind: 'chunks', text: n.children === 1 ? t('streamed {0} chunk', 1) : t('streamed {0} chunks', n.children), label };
      case 'event': {
        const e = this.#events.at(n.seq);
        const kind = eventKind(e);
        return { kind: kind === 'event' ? e.type : kind, text: this.#outline.text(n), label };
      }
    }
  }

  #stepModel(n: OutlineNode): string | null {
    for (let seq = n.first; seq <= n.last; seq++) {
      if (this.#events.typeAt(seq) !== 'assistant/message') continue;
      const e = this.#events.at(seq);
      const src = isObj(e.data) && isObj(e.data.message) && isObj(e.data.message.source) ? e.data.message.source : {};
      if (typeof src.model === 'string') return src.model;
    }
    return null;
  }

  async tree(p: TreeParams): Promise<TreeResult> {
    const key = `${this.#revision}\0${p.filter}\0${p.search}`;
    if (this.#rows?.key !== key) this.#rows = { key, ...this.#outline.visibleRows(p.filter, p.search) };
    return outlineTreeWindow(p, this.#outline, this.#rows, this.#node(p.leafId), (n) => ({ ...this.#display(n), timestamp: iso(this.#events.at(n.kind === 'event' ? n.seq : n.first).time) }));
  }

  #context(leafId: string | null): NodeContext {
    const node = this.#node(leafId);
    const key = node?.id ?? '';
    return this.#contexts.getOrMake(key, () => this.#compute(node));
  }

  #compute(node: OutlineNode | undefined): NodeContext {
    const at = node ? node.last : -1;
    const ctx: DshContextAt = at >= 0 ? dshContextAt(this.#log, at) : { at: -1, messages: [], messageSeqs: [], system: null, tools: [], model: null, title: null, replacements: [] };
    const n = ctx.messages.length;
    const display: (DisplayMessage | undefined)[] = new Array(n);
    const tokens = new Int32Array(n);
    const cumulative = new Float64Array(n);
    const callIndex = new Map<string, number>();
    const resultIndex = new Map<string, { index: number; isError: boolean }>();
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const m = (display[i] = displayMessage(ctx.messages[i], this.#events.at(ctx.messageSeqs[i]!), this.#toolNames));
      tokens[i] = estimateTokens(m);
      sum += tokens[i]!;
      cumulative[i] = sum;
      if (m.role === 'assistant' && Array.isArray(m.content)) {
        for (const b of m.content as Obj[]) if (isObj(b) && b.type === 'toolCall' && typeof b.id === 'string') callIndex.set(b.id, i);
      } else if (m.role === 'toolResult' && typeof m.toolCallId === 'string') resultIndex.set(m.toolCallId, { index: i, isError: m.isError === true });
    }
    // The replacement in effect that came last: its message stands where the span it shadowed was.
    const replacement = ctx.replacements[ctx.replacements.length - 1];
    const summaryIndex = replacement ? ctx.messageSeqs.indexOf(replacement.replacingSeq) : -1;
    const t = this.l10nT;
    const model = ctx.model ? `${ctx.model.provider}/${ctx.model.model}` : null;
    const info: ContextInfo = {
      revision: this.#revision,
      leafId: node?.id ?? null,
      messageCount: n,
      totalTokensEst: sum,
      runtime: {
        thinkingLevel: this.#reasoningEffort(at) ?? t('default'),
        models: model ? { default: model } : {},
        mode: 'none',
        modeDataJson: null,
        injectedTtsrRules: [],
        systemPrompt: ctx.system,
        tools: ctx.tools,
      },
      compaction:
        replacement && summaryIndex >= 0
          ? {
              id: `e${replacement.replacingSeq}`,
              timestamp: iso(this.#events.at(replacement.compaction?.seq ?? replacement.replacingSeq).time),
              tokensBefore: replacement.compaction?.shadowedTokenCount ?? null,
              firstKeptEntryId: null,
              keptFound: false,
              cutCount: replacement.shadowedSeqs.length,
              keptEnd: summaryIndex + 1,
              summaryIndex,
            }
          : null,
      pathLength: at + 1,
      leaf: node ? this.#display(node) : null,
    };
    return { ctx, info, display, tokens, cumulative, callIndex, resultIndex, summaryIndex, shadowed: replacement && summaryIndex >= 0 ? replacement.shadowedSeqs : [] };
  }

  /** The reasoning effort of the request header in effect at `at`, if it names one. */
  #reasoningEffort(at: number): string | null {
    let lo = 0;
    let hi = this.#headers.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.#headers[mid]! <= at) {
        found = this.#headers[mid]!;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found === -1) return null;
    const d = this.#events.at(found).data;
    const config = isObj(d) && isObj(d.header) && isObj(d.header.config) ? d.header.config : {};
    return typeof config.reasoningEffort === 'string' ? config.reasoningEffort : null;
  }

  async context(leafId: string | null): Promise<ContextInfo> {
    return this.#context(leafId).info;
  }

  #view(m: DisplayMessage, seq: number, at: Pick<MessageView, 'index' | 'tokensEst' | 'cumulativeTokensEst' | 'segment'>, nc: NodeContext | null): MessageView {
    const entryId = `e${seq}`;
    const parts = messageParts(m, entryId);
    if (nc) {
      for (const b of parts.blocks) {
        if (b.kind !== 'toolCall') continue;
        const r = nc.resultIndex.get(b.callId);
        if (r) {
          b.resultIndex = r.index;
          b.resultIsError = r.isError;
        }
      }
    }
    const badges = [...parts.badges];
    if (seq >= this.#log.events.length) badges.unshift(this.l10nT('synthetic'));
    if (m.role === 'custom' && at.segment !== 'summary') badges.push(this.l10nT('injected'));
    const callIndex = parts.toolResult && nc ? (nc.callIndex.get(parts.toolResult.callId) ?? null) : null;
    return {
      index: at.index,
      entryId,
      role: parts.role,
      subtitle: parts.subtitle,
      badges,
      timestamp: iso(this.#events.at(seq).time),
      tokensEst: at.tokensEst,
      cumulativeTokensEst: at.cumulativeTokensEst,
      segment: at.segment,
      toolResult: parts.toolResult ? { ...parts.toolResult, callIndex } : null,
      usage: parts.usage,
      hiddenFromUser: false,
      blocks: parts.blocks,
    };
  }

  async messages(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    const nc = this.#context(leafId);
    const out: MessageView[] = [];
    const end = Math.min(nc.ctx.messages.length, start + count);
    for (let i = start; i < end; i++) {
      const m = nc.display[i]!;
      const s = nc.summaryIndex;
      const segment: MessageView['segment'] = s < 0 ? 'plain' : i < s ? 'plain' : i === s ? 'summary' : 'after';
      out.push(this.#view(m, nc.ctx.messageSeqs[i]!, { index: i, tokensEst: nc.tokens[i]!, cumulativeTokensEst: nc.cumulative[i]!, segment }, nc));
    }
    return out;
  }

  chart(leafId: string | null): Promise<ChartData> {
    return contextChart(this, leafId);
  }

  async cutEntries(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    const nc = this.#context(leafId);
    const out: MessageView[] = [];
    let running = 0;
    const end = Math.min(nc.shadowed.length, start + count);
    for (let i = start; i < end; i++) {
      const seq = nc.shadowed[i]!;
      const e = this.#events.at(seq);
      const m = displayMessage(projectSurfaceEvent(e), e, this.#toolNames);
      const tokensEst = estimateTokens(m);
      running += tokensEst;
      out.push(this.#view(m, seq, { index: i, tokensEst, cumulativeTokensEst: running, segment: 'cut' }, null));
    }
    return out;
  }

  async locate(leafId: string | null, entryId: string): Promise<{ messageIndex: number | null; cutIndex: number | null }> {
    const nc = this.#context(leafId);
    const seq = entryId.startsWith('e') ? Number(entryId.slice(1)) : NaN;
    if (!Number.isInteger(seq)) return { messageIndex: null, cutIndex: null };
    const mi = nc.ctx.messageSeqs.indexOf(seq);
    const ci = mi >= 0 ? -1 : nc.shadowed.indexOf(seq);
    return { messageIndex: mi >= 0 ? mi : null, cutIndex: ci >= 0 ? ci : null };
  }

  async image(entryId: string, blockIndex: number): Promise<ImageResult> {
    const t = this.l10nT;
    const seq = entryId.startsWith('e') ? Number(entryId.slice(1)) : NaN;
    const e = Number.isInteger(seq) && seq >= 0 && seq < this.#events.length ? this.#events.at(seq) : undefined;
    const m = e ? displayMessage(projectSurfaceEvent(e), e, this.#toolNames) : undefined;
    const b = m && Array.isArray(m.content) ? (m.content[blockIndex] as Obj | undefined) : undefined;
    if (!isObj(b) || b.type !== 'image' || typeof b.data !== 'string') return { kind: 'error', message: t('no image at this place in the entry') };
    const r = await readDshAttachment(b.data, this.opts.dshHome ? { home: this.opts.dshHome } : {});
    if (!r.ok) return r.problem.reason === 'missing' ? { kind: 'missing', hash: b.data } : { kind: 'error', message: t('attachment {0} not shown: {1}', b.data.slice(0, 80), r.problem.reason) };
    const mime = inertImageMime(typeof b.mimeType === 'string' ? b.mimeType : '');
    if (!mime) return { kind: 'error', message: t('not shown: {0} images are not displayed', String(b.mimeType).slice(0, 60)) };
    return { kind: 'data', dataUrl: `data:${mime};base64,${r.bytes.toString('base64')}` };
  }

  async refresh(): Promise<RefreshOutcome> {
    const st = await stat(this.path);
    if (`${st.size}:${st.mtimeMs}:${st.ino}` === this.#stamp) return { kind: 'unchanged', summary: this.#summary };
    // dsh logs are read whole (their reader verifies every frame): a grown log is read again.
    await this.#load();
    return { kind: 'reloaded', summary: this.#summary };
  }

  documents(): SessionDocuments {
    return new DshDocuments(this);
  }

  dispose(): void {}
}
