// "What the model sees" at a node of a rollout (codex-format.md Part B), as the preview's windows:
// the replay up to the node's record (B.2), normalised as one request would send it (B.4: aborted
// outputs for unanswered calls, orphan outputs dropped), each item shown through the shared display
// model. The compaction in effect is shown as for xcsh: its summary where the replacement put it,
// the items it replaced behind the band as cut entries.
import type { ChartView } from '../../../protocol/chartData';
import type { ContextInfo, MessageView } from '../../../protocol/messages';
import { normalizeForModel } from '../../formats/codex/normalize';
import { replayRollout, type CompactionInEffect } from '../../formats/codex/replay';
import { isObj, str, type CodexRecord, type HistoryItem, type Obj } from '../../formats/codex/types';
import { usageBefore, type UsageIndex } from '../../formats/codex/usage';
import type { Translate } from '../../l10n';
import { clip, IMAGE_TOKENS_EST, messageParts } from '../xcsh/messageView';
import { messageRow } from '../xcsh/messageRows';
import { displayMessage, displayUsage, encryptedTokens, type DisplayMessage } from './codexDisplay';

/** What the context needs of the loaded rollout (CodexModel holds it). */
export interface CodexLoaded {
  records: readonly CodexRecord[];
  /** line → record index. */
  indexOfLine: ReadonlyMap<number, number>;
  usage: UsageIndex;
  toolNames: ReadonlyMap<string, string>;
  /** provider/model of the turn_context in effect at a record index, or null. */
  modelAt(recordIndex: number): string | null;
  /** The base instructions the session recorded (`session_meta.base_instructions.text`, the system prompt, A.3), or null. */
  systemPrompt: string | null;
  revision: number;
}

export interface NodeContext {
  info: ContextInfo;
  items: HistoryItem[];
  cut: HistoryItem[];
  /** Display messages, made when a window first needs them (a context of 15,000 items shows 40). */
  display: (DisplayMessage | undefined)[];
  tokens: Int32Array;
  cumulative: Float64Array;
  /** call_id → index of the call and of its output. */
  callIndex: Map<string, number>;
  resultIndex: Map<string, number>;
  indexOfId: Map<string, number>;
  cutIndexOfId: Map<string, number>;
  summaryIndex: number;
  keptEnd: number;
}

/**
 * Whether the model takes images. Unverified: the rollout does not record the model's input
 * modalities; every model Codex ran in the collected files took the screenshot it was sent, so
 * images are kept (B.4's stripping rule is implemented in normalizeForModel, not applied here).
 */
export const ASSUME_IMAGE_INPUT = true;

/** The sentence the preview shows about what the log leaves out (issue 24). */
export function notRecordedSentence(systemPrompt: string | null, l10nT: Translate): string {
  return systemPrompt === null
    ? l10nT('messages only — system prompt and tools are not recorded by this agent')
    : l10nT('messages and system prompt only — tools are not recorded by this agent');
}

function displayOf(s: CodexLoaded, h: HistoryItem): DisplayMessage {
  const at = s.indexOfLine.get(h.line) ?? -1;
  return displayMessage(h.item, { model: at >= 0 ? s.modelAt(at) : null, usage: h.origin === 'record' ? (s.usage.byLine.get(h.line) ?? null) : null, toolNames: s.toolNames });
}

/** Characters of the text an item holds (text items, tool arguments and outputs), and its images. */
function itemSize(item: Obj): { chars: number; images: number } {
  let chars = 0;
  let images = 0;
  const add = (list: unknown): void => {
    if (typeof list === 'string') {
      chars += list.length;
      return;
    }
    if (!Array.isArray(list)) return;
    for (const c of list) {
      if (!isObj(c)) continue;
      if (typeof c.text === 'string') chars += c.text.length;
      else if (c.type === 'input_image') images++;
    }
  };
  switch (item.type) {
    case 'message':
      add(item.content);
      break;
    case 'function_call':
    case 'custom_tool_call':
    case 'tool_search_call':
      chars += (str(item.name)?.length ?? 0) + (str(item.arguments)?.length ?? str(item.input)?.length ?? JSON.stringify(item.arguments ?? '').length);
      break;
    case 'function_call_output':
    case 'custom_tool_call_output':
      add(isObj(item.output) ? item.output.content : item.output);
      break;
    case 'reasoning':
      add(item.summary);
      break;
    default:
      chars += JSON.stringify(item).length;
  }
  return { chars, images };
}

/**
 * Estimated tokens of an item, read from the item itself (no display message is made for it):
 * characters ÷ 4 and a flat cost per image, as for the other formats (messageView.ts
 * estimateTokens); items with encrypted content (reasoning, server-side compaction) use the CLI's
 * own estimate from the encrypted length (history.rs), their readable summary not being what the
 * model is sent.
 */
export function itemTokens(item: Obj): number {
  if (typeof item.encrypted_content === 'string') return encryptedTokens(item);
  const { chars, images } = itemSize(item);
  return Math.ceil(chars / 4) + images * IMAGE_TOKENS_EST;
}

/** The display message of item `i` of a context, made once. */
function displayAt(s: CodexLoaded, nc: NodeContext, i: number): DisplayMessage {
  return (nc.display[i] ??= displayOf(s, nc.items[i]!));
}

/** The context at record index `upto` (-1: before any record). `leaf` names the node as its row does. */
export function computeContext(s: CodexLoaded, upto: number, leaf: ContextInfo['leaf'], leafId: string | null, l10nT: Translate): NodeContext {
  let rolledBack = 0;
  const replay = upto >= 0 ? replayRollout(s.records, { upto, onRollback: (dropped) => (rolledBack += dropped.length) }) : { history: [], compaction: null, turnContext: null };
  const items = normalizeForModel(replay.history, { imageInput: ASSUME_IMAGE_INPUT });
  const n = items.length;
  const display: (DisplayMessage | undefined)[] = new Array(n);
  const tokens = new Int32Array(n);
  const cumulative = new Float64Array(n);
  const callIndex = new Map<string, number>();
  const resultIndex = new Map<string, number>();
  const indexOfId = new Map<string, number>();
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const h = items[i]!;
    tokens[i] = itemTokens(h.item);
    sum += tokens[i]!;
    cumulative[i] = sum;
    indexOfId.set(h.id, i);
    const callId = str(h.item.call_id) ?? (h.item.type === 'web_search_call' ? str(h.item.id) : null);
    if (callId === null) continue;
    if (/_output$/.test(String(h.item.type))) resultIndex.set(callId, i);
    else callIndex.set(callId, i);
  }
  const c = replay.compaction;
  const summaryIndex = c ? items.findIndex((h) => h.summary === true && h.compactionLine === c.line) : -1;
  let keptEnd = 0;
  if (c) while (keptEnd < n && items[keptEnd]!.compactionLine === c.line) keptEnd++;
  const inEffect: CompactionInEffect | null = c && summaryIndex >= 0 ? c : null;
  const cut = inEffect ? inEffect.cut : [];
  const cutIndexOfId = new Map<string, number>();
  cut.forEach((h, i) => cutIndexOfId.set(h.id, i));
  const tc = replay.turnContext;
  const collab = tc && isObj(tc.collaboration_mode) ? tc.collaboration_mode : null;
  const collabSettings = collab && isObj(collab.settings) ? collab.settings : null;
  const effort = (tc ? str(tc.effort) : null) ?? (collabSettings ? str(collabSettings.reasoning_effort) : null);
  const model = upto >= 0 ? s.modelAt(upto) : null;
  const before = inEffect ? usageBefore(s.usage, inEffect.line) : null;
  const info: ContextInfo = {
    revision: s.revision,
    leafId,
    messageCount: n,
    totalTokensEst: sum,
    runtime: {
      thinkingLevel: effort ?? l10nT('default'),
      models: model ? { default: model } : {},
      mode: (collab ? str(collab.mode) : null) ?? 'none',
      modeDataJson: tc ? clip(JSON.stringify(tc, null, 2), 20_000).text : null,
      injectedTtsrRules: [],
      systemPrompt: s.systemPrompt,
      tools: null,
      modeLabel: l10nT('Collaboration mode:'),
      modeDataLabel: l10nT('Turn settings (turn_context)'),
    },
    compaction: inEffect
      ? {
          id: `L${inEffect.line}`,
          timestamp: inEffect.timestamp,
          tokensBefore: before ? before.input : null,
          firstKeptEntryId: keptEnd > summaryIndex + 1 ? items[summaryIndex + 1]!.id : null,
          keptFound: keptEnd > summaryIndex + 1,
          cutCount: cut.length,
          keptEnd: Math.max(keptEnd, summaryIndex + 1),
          summaryIndex,
        }
      : null,
    pathLength: upto + 1,
    leaf,
    notRecorded: notRecordedSentence(s.systemPrompt, l10nT),
    notes: contextNotes(replay.history, items, inEffect, rolledBack, l10nT),
  };
  return { info, items, cut, display, tokens, cumulative, callIndex, resultIndex, indexOfId, cutIndexOfId, summaryIndex: inEffect ? summaryIndex : -1, keptEnd: inEffect ? Math.max(keptEnd, summaryIndex + 1) : 0 };
}

/**
 * What the preview says about a context beyond its rows: what the replay supplied, dropped or
 * rebuilt (B.2–B.4), and the points the spec leaves unverified where they shape what is shown.
 */
function contextNotes(history: readonly HistoryItem[], items: readonly HistoryItem[], compaction: CompactionInEffect | null, rolledBack: number, l10nT: Translate): string[] {
  const notes: string[] = [];
  if (rolledBack > 0) notes.push(rolledBack === 1 ? l10nT('1 item was rolled back (thread_rolled_back) and is not sent.') : l10nT('{0} items were rolled back (thread_rolled_back) and are not sent.', rolledBack));
  const aborted = items.filter((h) => h.origin === 'synthetic').length;
  if (aborted > 0) notes.push(aborted === 1 ? l10nT('1 tool call has no output in the file: the CLI sends "aborted" for it.') : l10nT('{0} tool calls have no output in the file: the CLI sends "aborted" for them.', aborted));
  const orphans = history.length - (items.length - aborted);
  if (orphans > 0) notes.push(orphans === 1 ? l10nT('1 tool output is not sent: its call is not in the history.') : l10nT('{0} tool outputs are not sent: their call is not in the history.', orphans));
  if (compaction && compaction.recipe !== 'replacement') notes.push(l10nT('The compaction recorded no replacement history: it is rebuilt as the CLI of this version would, in its structure, not its exact wording (which recipe a version used is unverified).'));
  if (items.some((h) => h.mayBeTruncated)) notes.push(l10nT('This CLI version records no truncation policy: long tool outputs are shown as stored, and the model may have seen less (the limits of older versions are unverified).'));
  if (items.some((h) => itemSize(h.item).images > 0)) notes.push(l10nT('Images are shown as sent: the log does not record whether the model took image input (assumed it did; unverified).'));
  return notes;
}

/** The badges a history item earns beyond its message's own (B.2–B.4 facts about what was sent). */
function badgesOf(h: HistoryItem, l10nT: Translate): string[] {
  const out: string[] = [];
  if (h.origin === 'synthetic') out.push(l10nT('synthetic: supplied by the CLI, not in the file'));
  if (h.approximate) out.push(l10nT('rebuilt: wording approximate'));
  else if (h.origin === 'rebuilt') out.push(l10nT('rebuilt by the compaction'));
  if (h.summary) out.push(l10nT('compaction summary'));
  if (h.truncatedFrom !== undefined) out.push(l10nT('cut for the model ({0} bytes stored)', h.truncatedFrom));
  if (h.mayBeTruncated) out.push(l10nT('may have been truncated for the model'));
  if (h.imagesOmitted) out.push(l10nT('images omitted for the model'));
  const phase = h.item.type === 'message' ? str(h.item.phase) : null;
  if (phase) out.push(phase);
  return out;
}

/** One preview row of a history item. */
export function itemView(s: CodexLoaded, h: HistoryItem, m: DisplayMessage, at: Pick<MessageView, 'index' | 'tokensEst' | 'cumulativeTokensEst' | 'segment'>, nc: NodeContext | null, l10nT: Translate): MessageView {
  const parts = m.role.startsWith('item:') ? { ...messageParts({ role: m.role }, h.id), blocks: [{ kind: 'json' as const, label: String(h.item.type), json: clip(JSON.stringify(h.item, null, 2), 20_000).text }] } : messageParts(m, h.id);
  for (const b of parts.blocks) {
    if (b.kind !== 'toolCall') continue;
    // A custom tool's input is free text (an apply_patch body, a script): shown as written.
    if (h.item.type === 'custom_tool_call') b.argsJson = clip(str(h.item.input) ?? '').text;
    const r = nc?.resultIndex.get(b.callId);
    if (nc && r !== undefined) {
      b.resultIndex = r;
      b.resultIsError = displayAt(s, nc, r).isError === true;
    }
  }
  const badges = [...parts.badges, ...badgesOf(h, l10nT)];
  if (m.role === 'custom') badges.push(l10nT('injected context'));
  if (typeof m.exitCode === 'number' && m.exitCode !== 0) badges.push(`exit ${m.exitCode}`);
  const at2 = s.indexOfLine.get(h.line);
  const timestamp = at2 !== undefined ? s.records[at2]!.timestamp : null;
  const callIndex = parts.toolResult && nc ? (nc.callIndex.get(parts.toolResult.callId) ?? null) : null;
  return messageRow({ ...parts, badges }, { index: at.index, entryId: h.id, timestamp, tokensEst: at.tokensEst, cumulativeTokensEst: at.cumulativeTokensEst, segment: at.segment }, callIndex);
}

/** Messages [start, start+count) of a context. */
export function messageViews(s: CodexLoaded, nc: NodeContext, start: number, count: number, l10nT: Translate): MessageView[] {
  const out: MessageView[] = [];
  const end = Math.min(nc.items.length, start + count);
  for (let i = Math.max(0, start); i < end; i++) {
    const sIdx = nc.summaryIndex;
    const segment: MessageView['segment'] = sIdx < 0 ? 'plain' : i === sIdx ? 'summary' : i < nc.keptEnd ? 'kept' : 'after';
    out.push(itemView(s, nc.items[i]!, displayAt(s, nc, i), { index: i, tokensEst: nc.tokens[i]!, cumulativeTokensEst: nc.cumulative[i]!, segment }, nc, l10nT));
  }
  return out;
}

/** Cut entries [start, start+count): the history the compaction in effect replaced, as stored. */
export function cutViews(s: CodexLoaded, nc: NodeContext, start: number, count: number, l10nT: Translate): MessageView[] {
  const out: MessageView[] = [];
  let running = 0;
  const end = Math.min(nc.cut.length, start + count);
  for (let i = Math.max(0, start); i < end; i++) {
    const h = nc.cut[i]!;
    const m = displayOf(s, h);
    const tokensEst = itemTokens(h.item);
    running += tokensEst;
    out.push(itemView(s, h, m, { index: i, tokensEst, cumulativeTokensEst: running, segment: 'cut' }, null, l10nT));
  }
  return out;
}

/**
 * The chart's rows of a context without making every message: only the items that carry a
 * response's usage (chartData.ts reads nothing else), in the messages and in the cut entries.
 */
export function chartRows(s: CodexLoaded, nc: NodeContext): { messages: ChartView[]; cut: ChartView[] } {
  const rows = (list: readonly HistoryItem[], segmentOf: (i: number) => MessageView['segment']): ChartView[] => {
    const out: ChartView[] = [];
    list.forEach((h, i) => {
      const u = h.origin === 'record' ? s.usage.byLine.get(h.line) : undefined;
      if (!u) return;
      const at = s.indexOfLine.get(h.line);
      const d = displayUsage(u);
      out.push({ index: i, entryId: h.id, role: 'assistant', subtitle: at !== undefined ? s.modelAt(at) : null, usage: { input: d.input, output: d.output, cacheRead: d.cacheRead, cacheWrite: d.cacheWrite, cost: 0 }, segment: segmentOf(i) });
    });
    return out;
  };
  const segment = (i: number): MessageView['segment'] => (nc.summaryIndex < 0 ? 'plain' : i === nc.summaryIndex ? 'summary' : i < nc.keptEnd ? 'kept' : 'after');
  return { messages: rows(nc.items, segment), cut: rows(nc.cut, () => 'cut') };
}
