// What the model sees (codex-format.md Part B): the forward replay of a rollout, equivalent to
// the CLI's resume reconstruction (B.2). A rollout has no tree: "the leaf" is the end of the file
// or a chosen record, and the context there is this replay over the records up to it.
//
//   response_item r   → if r is an API item: history.append(truncate(r))
//   compacted c       → history := c.replacement_history, or the rebuild of B.3
//   thread_rolled_back{n} → drop the last n user turns
//   turn_context      → the policies in effect (model, truncation)
//   anything else     → ignored (events are UI only, B.5)
import { initialContextOf, isStrippedOnLoad, rebuildHistory, replacementItems, summaryIndexOf, type CompactionRecipe } from './compaction';
import { isContextualMessage, isUserTurnBoundary } from './contextual';
import { truncateMiddle, truncationPolicyOf, utf8Bytes, type TruncationPolicy } from './truncation';
import { isObj, num, str, type CodexRecord, type HistoryItem, type Obj } from './types';

/** ResponseItem types sent to the model (history.rs `is_api_message`); `message` unless its role is system. */
const API_ITEM_TYPES: ReadonlySet<string> = new Set([
  'agent_message',
  'function_call',
  'function_call_output',
  'tool_search_call',
  'tool_search_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'reasoning',
  'web_search_call',
  'image_generation_call',
  'compaction',
  'compaction_summary',
  'context_compaction',
]);

/** Whether a response item is part of the model's history (B.2 "API items"). */
export function isApiItem(item: Obj): boolean {
  if (item.type === 'message') return item.role !== 'system';
  return typeof item.type === 'string' && API_ITEM_TYPES.has(item.type);
}

/**
 * Unverified (B.2: "for older versions without a policy the limits are unverified"): a tool output
 * above this size, recorded by a version that names no truncation policy, is flagged "may have been
 * truncated for the model". 10 KiB is the order of the older exec-output formatting limits.
 */
export const UNPOLICED_OUTPUT_FLAG_BYTES = 10 * 1024;

const TOOL_OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output']);

/** A tool output as the model is sent it under `policy` (B.2 truncate; ×1.2 for serialization). */
function truncateOutput(item: Obj, policy: TruncationPolicy | null): { item: Obj; truncatedFrom?: number; mayBeTruncated?: boolean } {
  const output = item.output;
  const stored = typeof output === 'string' ? utf8Bytes(output) : Array.isArray(output) ? output.reduce<number>((n, c) => n + (isObj(c) && typeof c.text === 'string' ? utf8Bytes(c.text) : 0), 0) : 0;
  if (!policy) return stored > UNPOLICED_OUTPUT_FLAG_BYTES ? { item, mayBeTruncated: true } : { item };
  let budget = policy.limit * 1.2;
  if (typeof output === 'string') {
    const r = truncateMiddle(output, budget, policy.mode);
    return r.cut ? { item: { ...item, output: r.text }, truncatedFrom: stored } : { item };
  }
  if (!Array.isArray(output)) return { item };
  let cut = false;
  const next = output.map((c: unknown) => {
    if (!isObj(c) || typeof c.text !== 'string') return c;
    const r = truncateMiddle(c.text, Math.max(0, budget), policy.mode);
    budget -= policy.mode === 'bytes' ? utf8Bytes(r.text) : Math.ceil(utf8Bytes(r.text) / 4);
    if (!r.cut) return c;
    cut = true;
    return { ...c, text: r.text };
  });
  return cut ? { item: { ...item, output: next }, truncatedFrom: stored } : { item };
}

/**
 * Drops the last `n` user turns (B.2 drop_last_n_user_turns): cut just before the n-th boundary
 * from the end (before the first one when n is larger), then also drop the contextual messages
 * right above the cut, never crossing the first boundary. Returns what was dropped.
 */
export function dropLastUserTurns(history: HistoryItem[], n: number): HistoryItem[] {
  if (!(n > 0)) return [];
  const positions: number[] = [];
  history.forEach((h, i) => {
    if (isUserTurnBoundary(h.item)) positions.push(i);
  });
  if (positions.length === 0) return [];
  const first = positions[0]!;
  let cut = n >= positions.length ? first : positions[positions.length - n]!;
  while (cut > first && isContextualMessage(history[cut - 1]!.item)) cut--;
  return history.splice(cut);
}

export interface CompactionInEffect {
  /** The compacted record's line and index among the records. */
  line: number;
  recordIndex: number;
  timestamp: string | null;
  recipe: CompactionRecipe;
  /** `compacted.message`: the summary text (empty when the CLI wrote none). */
  message: string;
  /** The history just before it: what it summarised (the preview's cut entries). */
  cut: HistoryItem[];
}

export interface ReplayResult {
  /** The model's history, before the per-request normalisation of B.4 (normalizeForModel). */
  history: HistoryItem[];
  /**
   * The newest compaction whose new history still leads `history` (null: none, or it was rolled
   * back entirely, or another one replaced it).
   */
  compaction: CompactionInEffect | null;
  /** The newest turn_context up to the end of the replay (model, effort, policies). */
  turnContext: Obj | null;
}

export interface ReplayOptions {
  /** Replay the records [0, upto] (an index into `records`); default: all of them. */
  upto?: number;
  /** Told what each rollback drops (the outline marks rolled-back turns with it). */
  onRollback?: (dropped: readonly HistoryItem[], record: CodexRecord) => void;
}

/** The model's history after the records [0, upto] (B.2). */
export function replayRollout(records: readonly CodexRecord[], opts: ReplayOptions = {}): ReplayResult {
  const end = Math.min(records.length - 1, opts.upto ?? records.length - 1);
  let history: HistoryItem[] = [];
  let compaction: CompactionInEffect | null = null;
  let turnContext: Obj | null = null;
  let initialContext: HistoryItem[] | null = null;
  const initial = (): HistoryItem[] => (initialContext ??= initialContextOf(recordItems(records)));
  for (let i = 0; i <= end; i++) {
    const rec = records[i]!;
    const p = rec.payload;
    if (!isObj(p)) continue;
    switch (rec.type) {
      case 'response_item': {
        if (isStrippedOnLoad(p) || !isApiItem(p)) break;
        const t = TOOL_OUTPUT_TYPES.has(String(p.type)) ? truncateOutput(p, truncationPolicyOf(turnContext)) : { item: p };
        history.push({ id: `L${rec.line}`, line: rec.line, origin: 'record', ...t });
        break;
      }
      case 'compacted': {
        const message = str(p.message) ?? '';
        const cut = history;
        const repl = replacementItems(p);
        let recipe: CompactionRecipe;
        if (repl) {
          recipe = 'replacement';
          const stored = p.replacement_history as unknown[];
          const kept: HistoryItem[] = [];
          const summaryAt = summaryIndexOf(repl, message);
          let k = 0;
          stored.forEach((x, index) => {
            if (!isObj(x) || isStrippedOnLoad(x)) return;
            const isSummary = k++ === summaryAt;
            if (!isApiItem(x)) return;
            kept.push({ id: `L${rec.line}.${index}`, line: rec.line, item: x, origin: 'replacement', compactionLine: rec.line, ...(isSummary ? { summary: true } : {}) });
          });
          history = kept;
        } else {
          recipe = truncationPolicyOf(turnContext) ? 'messages' : 'bridge';
          history = rebuildHistory(recipe, rec.line, initial(), cut, message);
        }
        compaction = { line: rec.line, recordIndex: i, timestamp: rec.timestamp, recipe, message, cut };
        break;
      }
      case 'event_msg': {
        if (p.type !== 'thread_rolled_back') break;
        const dropped = dropLastUserTurns(history, num(p.num_turns) ?? 0);
        if (dropped.length > 0) opts.onRollback?.(dropped, rec);
        break;
      }
      case 'turn_context':
        turnContext = p;
        break;
      default:
        break;
    }
  }
  // A rollback may have cut away everything the compaction put in: then it no longer shapes the context.
  const c = compaction as CompactionInEffect | null;
  return { history, compaction: c && history.some((h) => h.compactionLine === c.line) ? c : null, turnContext };
}

/** The API response items of the records, in file order, as history items (no truncation). */
function* recordItems(records: readonly CodexRecord[]): Generator<HistoryItem> {
  for (const rec of records) {
    if (rec.type !== 'response_item' || !isObj(rec.payload)) continue;
    if (isStrippedOnLoad(rec.payload) || !isApiItem(rec.payload)) continue;
    yield { id: `L${rec.line}`, line: rec.line, item: rec.payload, origin: 'record' };
  }
}
