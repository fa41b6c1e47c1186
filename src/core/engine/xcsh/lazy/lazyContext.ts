// The context at a leaf from the lazy index (issue 11): a plan over the path — which entries give
// which message, the runtime state, the compaction cut, tokens and cumulative tokens — made from
// the index alone, no body read (buildSessionContext's rules, test/reference/context.ts, over
// positions). Windows of messages and of cut entries then read just their bodies and render
// them as the eager ContextWindows does (same messageParts, same rows).
import { applyRuntimeExtra, compactionSummaryMessage, entryToMessage, orderedExtras, runtimeExtrasView, RUNTIME_EXTRA_TYPES, type ContextMessage, type ContextRuntimeExtras } from '../../../formats/xcsh/context';
import type { CompactionEntry, SessionEntry } from '../../../formats/xcsh/schemas';
import { EntryKind } from '../../../tree/treeState';
import { entryPreview, roleOf, type ViewEntry } from '../../../tree/treeView';
import type { ContextInfo, MessageView } from '../../../../protocol/messages';
import { cutEntryRow, entryTimestamp, messageRow } from '../messageRows';
import { assistantChartFacts, estimateTokens, messageParts } from '../messageView';
import type { ChartView } from '../../../../protocol/chartData';
import { ViewFlag } from '../../../tree/treeView';
import type { BodyReader } from './bodyReader';
import { hash32 } from './columns';
import type { LazyIndexData } from './lazyIndex';
import type { LazyTree } from './lazyTree';
import { LruMap } from '../../../lruMap';

type Obj = Record<string, unknown>;

export interface LeafPlan {
  leafPos: number;
  /** Root → leaf positions. */
  path: Int32Array;
  /** Position of the entry each message comes from (the compaction's for the summary). */
  sources: Int32Array;
  /** msgAt[path index] = the message that path entry gives, or -1. */
  msgAt: Int32Array;
  cumulative: Float64Array;
  /** Path entries the compaction cut: path[0, cutCount). */
  cutCount: number;
  keptEnd: number;
  compactionPos: number;
  /** The `data` of the last mode_change on the path, as stored (the CLI's raw context prints it). */
  modeData: unknown;
  /** Part B §22 state, as buildSessionContext gives it (the CLI's raw context prints it). */
  extras: ContextRuntimeExtras;
  info: ContextInfo;
}

const CACHED_LEAVES = 2;
/** Bodies read at a time for the chart (its assistant messages may be thousands). */
const CHART_READ_BATCH = 1000;
/** Part B §22 path entries read at a time (from the leaf up). */
const EXTRAS_READ_BATCH = 256;

/** How the tree names an entry (treeRows.rowDisplay over a body). */
export function rowDisplayOf(e: SessionEntry, label: string | undefined): { kind: string; text: string; label: string | null } {
  const v = e as unknown as ViewEntry;
  return { kind: roleOf(v) ?? v.type, text: entryPreview(v, 140), label: label ?? null };
}

/** The message the context's message i gives, from its source entry's body (buildSessionContext's rules). */
export function contextMessageAt(ix: Pick<LazyIndexData, 'kinds'>, plan: LeafPlan, i: number, e: SessionEntry): ContextMessage | null {
  const p = plan.sources[i]!;
  if (p === plan.compactionPos && i === 0) return compactionSummaryMessage(e as CompactionEntry);
  if (ix.kinds[p]! <= EntryKind.AssistantMessage) {
    const raw = (e as { message?: unknown }).message;
    return typeof raw === 'object' && raw !== null ? (raw as ContextMessage) : null;
  }
  return entryToMessage(e);
}

export class LazyContexts {
  readonly #plans = new LruMap<number, LeafPlan>(CACHED_LEAVES);

  constructor(
    private readonly ix: LazyIndexData,
    private readonly tree: LazyTree,
    private readonly bodies: BodyReader,
    private readonly revision: number,
  ) {}

  /** The position of the leaf a request means (null or unknown: the default leaf); -1 for none. */
  resolveLeaf(leafId: string | null): number {
    const p = leafId === null ? -1 : this.tree.indexOf(leafId);
    return p !== -1 ? p : this.tree.defaultLeafPos;
  }

  async plan(leafId: string | null): Promise<LeafPlan> {
    const leafPos = this.resolveLeaf(leafId);
    const hit = this.#plans.get(leafPos);
    if (hit) return hit;
    const made = await this.#compute(leafPos);
    this.#plans.set(leafPos, made);
    return made;
  }

  async #compute(leafPos: number): Promise<LeafPlan> {
    const ix = this.ix;
    if (leafPos === -1) return this.#empty();
    const path = this.tree.pathIndices(leafPos);
    const n = path.length;
    const kinds = ix.kinds;
    let thinkingLevel = 'off';
    const models: Record<string, string> = {};
    let explicitDefault = false;
    let lastAssistant = -1;
    const rules = new Set<string>();
    let mode = 'none';
    let modeData: unknown = undefined;
    let compactionIdx = -1;
    const others: number[] = [];
    for (let k = 0; k < n; k++) {
      const p = path[k]!;
      const kind = kinds[p]!;
      if (kind === EntryKind.RuntimeExtra) others.push(p);
      if (kind <= EntryKind.Message) continue;
      if (kind === EntryKind.AssistantMessage) lastAssistant = k;
      else if (kind === EntryKind.Compaction) compactionIdx = k;
      else {
        const pl = ix.payloads.get(p);
        if (pl?.kind === 'thinking') {
          if (typeof pl.thinkingLevel === 'string') thinkingLevel = pl.thinkingLevel;
        }
        else if (pl?.kind === 'model') {
          if (typeof pl.model === 'string' && pl.model) {
            const r = typeof pl.role === 'string' ? pl.role : 'default';
            models[r] = pl.model;
            if (r === 'default') explicitDefault = true;
          }
        } else if (pl?.kind === 'ttsr') for (const x of pl.rules) rules.add(x);
        else if (pl?.kind === 'mode' && typeof pl.mode === 'string') {
          mode = pl.mode;
          modeData = pl.data;
        }
      }
    }
    // Part C §6 (as buildSessionContext): an explicit default wins, else the last assistant that names its model.
    if (!explicitDefault) {
      for (let k = lastAssistant; k >= 0; k--) {
        const p = path[k]!;
        if (kinds[p] !== EntryKind.AssistantMessage) continue;
        const code = ix.assistantModel[p]!;
        if (code !== -1) {
          models.default = ix.models.list[code]!;
          break;
        }
      }
    }

    const sources: number[] = [];
    const msgAt = new Int32Array(n).fill(-1);
    const emitRange = (from: number, to: number): void => {
      for (let k = from; k < to; k++) {
        const p = path[k]!;
        const kind = kinds[p]!;
        if (kind === EntryKind.Other || kind > EntryKind.BranchSummary || ix.contributes[p] === 0) continue;
        msgAt[k] = sources.length;
        sources.push(p);
      }
    };
    let cutCount = 0;
    let compactionPos = -1;
    let compaction: ContextInfo['compaction'] = null;
    let keptFound = false;
    let firstKept: string | null = null;
    if (compactionIdx >= 0) {
      compactionPos = path[compactionIdx]!;
      const c = ix.payloads.get(compactionPos);
      firstKept = c?.kind === 'compaction' ? c.firstKeptEntryId : null;
      const remote = c?.kind === 'compaction' && c.remote;
      let keptFrom = compactionIdx;
      if (firstKept !== null && !remote) {
        // Ids are unique among tree nodes, so "the path entry with that id" is its position.
        const kp = this.tree.indexOf(firstKept);
        for (let k = compactionIdx - 1; k >= 0 && kp !== -1; k--) {
          if (path[k] === kp) {
            keptFrom = k;
            break;
          }
        }
      }
      keptFound = keptFrom < compactionIdx;
      msgAt[compactionIdx] = 0;
      sources.push(compactionPos);
      cutCount = keptFrom;
      emitRange(keptFrom, compactionIdx);
      emitRange(compactionIdx + 1, n);
    } else {
      emitRange(0, n);
    }
    const m = sources.length;
    const src = Int32Array.from(sources);
    const cumulative = new Float64Array(m);
    let sum = 0;
    for (let i = 0; i < m; i++) {
      sum += ix.tokens[src[i]!]!;
      cumulative[i] = sum;
    }
    let keptEnd = 0;
    if (compactionPos !== -1) {
      keptEnd = 1;
      while (keptEnd < m && this.tree.isAncestorAt(src[keptEnd]!, compactionPos)) keptEnd++;
      const c = ix.payloads.get(compactionPos);
      compaction = {
        id: this.tree.idAt(compactionPos),
        timestamp: c?.kind === 'compaction' ? c.timestamp : null,
        tokensBefore: c?.kind === 'compaction' ? c.tokensBefore : null,
        firstKeptEntryId: firstKept,
        keptFound,
        cutCount,
        keptEnd,
      };
    }
    const extras = await this.#extras(others);
    const leafEntry = await this.bodies.one(leafPos);
    const leafId = this.tree.idAt(leafPos);
    const info: ContextInfo = {
      revision: this.revision,
      leafId,
      messageCount: m,
      totalTokensEst: sum,
      runtime: {
        thinkingLevel,
        models,
        mode,
        modeDataJson: modeData === undefined ? null : (JSON.stringify(modeData, null, 2) ?? null),
        injectedTtsrRules: [...rules],
        ...runtimeExtrasView(extras),
      },
      compaction,
      pathLength: n,
      leaf: rowDisplayOf(leafEntry, ix.labels.get(leafId)),
    };
    return { leafPos, path, sources: src, msgAt, cumulative, cutCount, keptEnd, compactionPos, modeData, extras, info };
  }

  /**
   * Part B §22 state from the path's service_tier_change / context_change / mcp_tool_selection
   * entries (`others`, root → leaf; the index classifies them by type): their bodies are read from
   * the leaf up, a batch at a time, until the last of each of the three types is found. A path
   * without them reads nothing.
   */
  async #extras(others: readonly number[]): Promise<ContextRuntimeExtras> {
    const last = new Map<string, SessionEntry>();
    for (let end = others.length; end > 0 && last.size < RUNTIME_EXTRA_TYPES.size; end -= EXTRAS_READ_BATCH) {
      const batch = others.slice(Math.max(0, end - EXTRAS_READ_BATCH), end);
      const bodies = await this.bodies.read(batch);
      for (let i = bodies.length - 1; i >= 0; i--) {
        const e = bodies[i]!;
        if (RUNTIME_EXTRA_TYPES.has(e.type) && !last.has(e.type)) last.set(e.type, e);
      }
    }
    const extras: ContextRuntimeExtras = {};
    for (const e of last.values()) applyRuntimeExtra(extras, e);
    return orderedExtras(extras);
  }

  #empty(): LeafPlan {
    const info: ContextInfo = {
      revision: this.revision,
      leafId: null,
      messageCount: 0,
      totalTokensEst: 0,
      runtime: { thinkingLevel: 'off', models: {}, mode: 'none', modeDataJson: null, injectedTtsrRules: [] },
      compaction: null,
      pathLength: 0,
      leaf: null,
    };
    const none = new Int32Array(0);
    return { leafPos: -1, path: none, sources: none, msgAt: none, cumulative: new Float64Array(0), cutCount: 0, keptEnd: 0, compactionPos: -1, modeData: undefined, extras: {}, info };
  }

  #messageOf(plan: LeafPlan, i: number, e: SessionEntry): ContextMessage | null {
    return contextMessageAt(this.ix, plan, i, e);
  }

  /** The message index of the entry at position p in this context, or -1. */
  #messageIndexOf(plan: LeafPlan, p: number): number {
    const d = this.tree.depthAt(p);
    return d >= 0 && d < plan.path.length && plan.path[d] === p ? plan.msgAt[d]! : -1;
  }

  /**
   * The last message of the context that answers call `callId` (a toolResult with that id) — or,
   * `calls`, that makes it (an assistant message with that toolCall): what the eager windows' maps
   * hold, found from the index's hashes and confirmed on the bodies.
   */
  async #lastPartner(plan: LeafPlan, callId: string, calls: boolean): Promise<{ index: number; isError: boolean } | null> {
    const h = hash32(callId);
    const hashes = calls ? this.ix.callHash : this.ix.resultHash;
    const owners = calls ? this.ix.callOwner : this.ix.resultOwner;
    const found: number[] = [];
    for (let j = 0; j < hashes.length; j++) {
      if (hashes[j] !== h) continue;
      const k = this.#messageIndexOf(plan, owners[j]!);
      if (k !== -1 && found[found.length - 1] !== k) found.push(k);
    }
    found.sort((a, b) => b - a);
    for (const k of found) {
      const e = await this.bodies.one(plan.sources[k]!);
      const m = this.#messageOf(plan, k, e) as Obj | null;
      if (!m) continue;
      if (calls) {
        if (m.role === 'assistant' && Array.isArray(m.content) && (m.content as Obj[]).some((b) => b && b.type === 'toolCall' && b.id === callId)) return { index: k, isError: false };
      } else if (m.role === 'toolResult' && m.toolCallId === callId) {
        return { index: k, isError: m.isError === true };
      }
    }
    return null;
  }

  async messages(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    const plan = await this.plan(leafId);
    const end = Math.min(plan.sources.length, start + count);
    if (start >= end) return [];
    const positions = Array.from(plan.sources.subarray(Math.max(0, start), end));
    const bodies = await this.bodies.read(positions);
    const out: MessageView[] = [];
    const hasCompaction = plan.compactionPos !== -1;
    for (let i = Math.max(0, start); i < end; i++) {
      const entry = bodies[i - Math.max(0, start)]!;
      const m = this.#messageOf(plan, i, entry) as Obj;
      const entryId = this.tree.idAt(plan.sources[i]!);
      const parts = messageParts(m, entryId);
      for (const b of parts.blocks) {
        if (b.kind === 'toolCall') {
          const r = await this.#lastPartner(plan, b.callId, false);
          if (r) {
            b.resultIndex = r.index;
            b.resultIsError = r.isError;
          }
        } else if (b.kind === 'compaction') {
          b.timestamp = entryTimestamp(entry);
        }
      }
      const segment: MessageView['segment'] = !hasCompaction ? 'plain' : i === 0 ? 'summary' : i < plan.keptEnd ? 'kept' : 'after';
      const callIndex = parts.toolResult ? ((await this.#lastPartner(plan, parts.toolResult.callId, true))?.index ?? null) : null;
      const tokensEst = this.ix.tokens[plan.sources[i]!]!;
      out.push(messageRow(parts, { index: i, entryId, timestamp: entryTimestamp(entry, m), tokensEst, cumulativeTokensEst: plan.cumulative[i]!, segment }, callIndex));
    }
    return out;
  }

  /**
   * For the context chart (contextChart.ts): the assistant messages of the context and of its cut
   * band as the rows `messages`/`cutEntries` give (index, id, role, model, usage, segment), reading
   * only their bodies — the chart needs nothing of the other messages, nor the rows' blocks and
   * tool-call partners. The cut band is read up to `maxCut` entries.
   */
  async chartViews(leafId: string | null, maxCut: number): Promise<{ messages: ChartView[]; cut: ChartView[] }> {
    const plan = await this.plan(leafId);
    const hasCompaction = plan.compactionPos !== -1;
    /** The assistant messages among `count` indexes from `from` (their entries at `positionOf`), bodies read in batches. */
    const assistants = async (from: number, count: number, positionOf: (i: number) => number, view: (i: number, e: SessionEntry) => ChartView | null): Promise<ChartView[]> => {
      const wanted: number[] = [];
      for (let i = from; i < count; i++) if ((this.ix.viewFlags[positionOf(i)]! & ViewFlag.Assistant) !== 0) wanted.push(i);
      const out: ChartView[] = [];
      for (let k = 0; k < wanted.length; k += CHART_READ_BATCH) {
        const batch = wanted.slice(k, k + CHART_READ_BATCH);
        const bodies = await this.bodies.read(batch.map(positionOf));
        batch.forEach((i, j) => {
          const v = view(i, bodies[j]!);
          if (v) out.push(v);
        });
      }
      return out;
    };
    const row = (i: number, p: number, m: Obj | null, segment: MessageView['segment']): ChartView | null =>
      m?.role === 'assistant' ? { index: i, entryId: this.tree.idAt(p), role: 'assistant', segment, ...assistantChartFacts(m) } : null;
    // (Message 0 of a compacted context is the summary.)
    const messages = await assistants(hasCompaction ? 1 : 0, plan.sources.length, (i) => plan.sources[i]!, (i, e) =>
      row(i, plan.sources[i]!, this.#messageOf(plan, i, e) as Obj | null, !hasCompaction ? 'plain' : i < plan.keptEnd ? 'kept' : 'after'),
    );
    const cut = await assistants(0, Math.min(plan.cutCount, maxCut), (i) => plan.path[i]!, (i, e) => row(i, plan.path[i]!, entryToMessage(e) as Obj | null, 'cut'));
    return { messages, cut };
  }

  /** As ContextWindows.cutEntries (including its running total, which starts at the window). */
  async cutEntries(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    const plan = await this.plan(leafId);
    const from = Math.max(0, start);
    const end = Math.min(plan.cutCount, start + count);
    if (from >= end) return [];
    const bodies = await this.bodies.read(Array.from(plan.path.subarray(from, end)));
    const out: MessageView[] = [];
    let running = 0;
    for (let i = from; i < end; i++) {
      const entry = bodies[i - from]!;
      const entryId = this.tree.idAt(plan.path[i]!);
      const m = entryToMessage(entry) as Obj | null;
      if (m) {
        const parts = messageParts(m, entryId);
        const tokensEst = estimateTokens(m);
        running += tokensEst;
        out.push(messageRow(parts, { index: i, entryId, timestamp: entryTimestamp(entry, m), tokensEst, cumulativeTokensEst: running, segment: 'cut' }, null));
      } else {
        out.push(cutEntryRow(entry, entryId, i, running));
      }
    }
    return out;
  }

  async locate(leafId: string | null, entryId: string): Promise<{ messageIndex: number | null; cutIndex: number | null }> {
    const plan = await this.plan(leafId);
    const p = this.tree.indexOf(entryId);
    if (p === -1) return { messageIndex: null, cutIndex: null };
    const mi = this.#messageIndexOf(plan, p);
    if (mi >= 0) return { messageIndex: mi, cutIndex: null };
    const d = this.tree.depthAt(p);
    const onPath = d >= 0 && d < plan.path.length && plan.path[d] === p;
    return { messageIndex: null, cutIndex: onPath && d < plan.cutCount ? d : null };
  }
}
