// The reference (test-only, issue 23): the whole-file model's context windows, which the
// session engine (src/core/engine/xcsh/lazy) is checked against. Answers the webview's window
// requests for one snapshot: the context at a leaf (computed once
// per leaf and cached), windows of its messages and of the entries its compaction cut, and
// `locate` for scroll anchors. Windows are what keep a 100k-entry session responsive: the
// webview never holds more than a few pages of messages.
import { entryToMessage, runtimeExtrasView } from '../../src/core/formats/xcsh/context';
import { buildSessionContext, type SessionContext } from './context';
import type { SessionEntry } from '../../src/core/formats/xcsh/schemas';
import type { ContextInfo, MessageView } from '../../src/protocol/messages';
import { estimateTokens, messageParts } from '../../src/core/engine/xcsh/messageView';
import { cutEntryRow, entryTimestamp, imageIn, messageRow } from '../../src/core/engine/xcsh/messageRows';
import type { SessionSnapshot } from './snapshot';
import { rowDisplay } from './treeRows';

type Obj = Record<string, unknown>;

interface LeafContext {
  ctx: SessionContext;
  info: ContextInfo;
  /** cumulative[i] = estimated tokens of messages 0..i. */
  cumulative: Float64Array;
  tokens: Int32Array;
  /** toolCallId → index of the message holding the call / the result. */
  callIndex: Map<string, number>;
  resultIndex: Map<string, { index: number; isError: boolean }>;
  keptEnd: number;
}

const CACHED_LEAVES = 4;

export class ContextWindows {
  private readonly leaves = new Map<string, LeafContext>();

  constructor(private readonly snap: SessionSnapshot) {}

  /** null means the default leaf. */
  resolveLeaf(leafId: string | null): string | null {
    const { index } = this.snap;
    return leafId !== null && index.has(leafId) ? leafId : index.defaultLeafId;
  }

  private leafContext(leafId: string | null): LeafContext {
    const key = this.resolveLeaf(leafId) ?? '';
    const hit = this.leaves.get(key);
    if (hit) {
      this.leaves.delete(key);
      this.leaves.set(key, hit);
      return hit;
    }
    const made = this.compute(key === '' ? null : key);
    this.leaves.set(key, made);
    if (this.leaves.size > CACHED_LEAVES) this.leaves.delete(this.leaves.keys().next().value as string);
    return made;
  }

  private compute(leafId: string | null): LeafContext {
    const { loaded, index } = this.snap;
    const ctx = leafId === null ? buildSessionContext(loaded.entries, null) : buildSessionContext(loaded.entries, leafId, index);
    const n = ctx.messages.length;
    const tokens = new Int32Array(n);
    const cumulative = new Float64Array(n);
    const callIndex = new Map<string, number>();
    const resultIndex = new Map<string, { index: number; isError: boolean }>();
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const m = ctx.messages[i] as Obj;
      tokens[i] = estimateTokens(m);
      sum += tokens[i]!;
      cumulative[i] = sum;
      if (m.role === 'assistant' && Array.isArray(m.content)) {
        for (const b of m.content as Obj[]) if (b && b.type === 'toolCall' && typeof b.id === 'string') callIndex.set(b.id, i);
      } else if (m.role === 'toolResult' && typeof m.toolCallId === 'string') {
        resultIndex.set(m.toolCallId, { index: i, isError: m.isError === true });
      }
    }
    let keptEnd = 0;
    let compaction: ContextInfo['compaction'] = null;
    if (ctx.compaction) {
      const cid = ctx.compaction.id;
      keptEnd = 1;
      // Kept messages come from ancestors of the compaction entry; later ones descend from it.
      const onPath = new Set(index.pathIndices(cid));
      while (keptEnd < n && onPath.has(index.indexOf(ctx.messageSources[keptEnd]!))) keptEnd++;
      const c = index.get(cid) as (SessionEntry & { tokensBefore?: unknown }) | undefined;
      compaction = {
        id: cid,
        timestamp: entryTimestamp(c),
        tokensBefore: typeof c?.tokensBefore === 'number' ? c.tokensBefore : null,
        firstKeptEntryId: ctx.compaction.firstKeptEntryId,
        keptFound: ctx.compaction.keptFound,
        cutCount: ctx.cutEntryIds.length,
        keptEnd,
      };
    }
    const modeData = ctx.modeData === undefined ? null : JSON.stringify(ctx.modeData, null, 2) ?? null;
    const info: ContextInfo = {
      revision: this.snap.revision,
      leafId: ctx.leafId,
      messageCount: n,
      totalTokensEst: sum,
      runtime: {
        thinkingLevel: ctx.thinkingLevel,
        models: ctx.models,
        mode: ctx.mode,
        modeDataJson: modeData,
        injectedTtsrRules: ctx.injectedTtsrRules,
        ...runtimeExtrasView(ctx),
      },
      compaction,
      pathLength: ctx.leafId ? index.depth(ctx.leafId) + 1 : 0,
      leaf: ctx.leafId && index.has(ctx.leafId) ? rowDisplay(index, ctx.leafId) : null,
    };
    return { ctx, info, cumulative, tokens, callIndex, resultIndex, keptEnd };
  }

  context(leafId: string | null): ContextInfo {
    return this.leafContext(leafId).info;
  }

  messages(leafId: string | null, start: number, count: number): MessageView[] {
    const lc = this.leafContext(leafId);
    const { ctx } = lc;
    const end = Math.min(ctx.messages.length, start + count);
    const out: MessageView[] = [];
    for (let i = start; i < end; i++) {
      const m = ctx.messages[i] as Obj;
      const entryId = ctx.messageSources[i]!;
      const entry = this.snap.index.get(entryId);
      const parts = messageParts(m, entryId);
      for (const b of parts.blocks) {
        if (b.kind === 'toolCall') {
          const r = lc.resultIndex.get(b.callId);
          if (r) {
            b.resultIndex = r.index;
            b.resultIsError = r.isError;
          }
        } else if (b.kind === 'compaction') {
          b.timestamp = entryTimestamp(entry);
        }
      }
      const segment: MessageView['segment'] = ctx.compaction === null ? 'plain' : i === 0 ? 'summary' : i < lc.keptEnd ? 'kept' : 'after';
      const callIndex = parts.toolResult ? (lc.callIndex.get(parts.toolResult.callId) ?? null) : null;
      out.push(messageRow(parts, { index: i, entryId, timestamp: entryTimestamp(entry, m), tokensEst: lc.tokens[i]!, cumulativeTokensEst: lc.cumulative[i]!, segment }, callIndex));
    }
    return out;
  }

  /** Entries the compaction cut, shown greyed in the band. Non-message entries show as their type. */
  cutEntries(leafId: string | null, start: number, count: number): MessageView[] {
    const { ctx } = this.leafContext(leafId);
    const end = Math.min(ctx.cutEntryIds.length, start + count);
    const out: MessageView[] = [];
    let running = 0;
    for (let i = start; i < end; i++) {
      const entryId = ctx.cutEntryIds[i]!;
      const entry = this.snap.index.get(entryId);
      const m = entry ? (entryToMessage(entry) as Obj | null) : null;
      if (entry && m) {
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

  locate(leafId: string | null, entryId: string): { messageIndex: number | null; cutIndex: number | null } {
    const { ctx } = this.leafContext(leafId);
    const mi = ctx.messageSources.indexOf(entryId);
    // The compaction entry is the source of the summary; later messages never share its id.
    const ci = mi >= 0 ? -1 : ctx.cutEntryIds.indexOf(entryId);
    return { messageIndex: mi >= 0 ? mi : null, cutIndex: ci >= 0 ? ci : null };
  }

  /** The content array of an entry that holds images (message or custom_message). */
  imageData(entryId: string, blockIndex: number): { data: string; mimeType: string } | null {
    return imageIn(this.snap.index.get(entryId), blockIndex);
  }
}

