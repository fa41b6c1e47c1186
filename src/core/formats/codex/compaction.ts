// A compaction (codex-format.md A.6, B.3): the history is replaced. With `replacement_history`
// (remote compaction, and local compaction since 2026) the new history is stored and taken as is;
// without it the CLI rebuilt it from the configuration, the earlier user messages and the summary,
// and so must we. Two recipes existed (B.3):
// - 'bridge' (generation 1): the initial context + ONE user message holding every earlier user
//   message (joined by blank lines, cut in the middle to 80,000 bytes) and the summary;
// - 'messages' (generation 2): the initial context + the newest earlier user messages one by one
//   (newest first while they fit in 20,000 tokens, the first that does not fit cut and ending the
//   selection), then the summary as its own user message (`compacted.message` already carries the
//   CLI's summary prefix in this generation).
// Which one wrote a file is not recorded. Unverified choice: the generation-2 code writes a
// turn_context with `truncation_policy` right before compacting and the generation-1 code has no
// such field, so a compaction whose latest turn_context names a truncation policy is generation 2,
// any other generation 1. The bridge's template wording is not reproduced (it is the CLI's text):
// the bridge rebuilt here has the same parts under plain headings, flagged as an approximation.
import { contentItems, isContextualMessage, isRealUserMessage } from './contextual';
import { approxTokens, truncateMiddle, utf8Bytes } from './truncation';
import { isObj, str, type HistoryItem, type Obj } from './types';

export type CompactionRecipe = 'replacement' | 'bridge' | 'messages';

const BRIDGE_MAX_BYTES = 80_000;
const KEPT_USER_TOKENS = 20_000;
const NO_SUMMARY = '(no summary available)';

/** Types of the opaque server-side summary item (A.4). */
const SUMMARY_ITEM_TYPES = new Set(['compaction', 'compaction_summary', 'context_compaction']);

/** Whether an item is dropped on load (legacy `/undo` snapshots, B.1). */
export function isStrippedOnLoad(item: Obj): boolean {
  return item.type === 'ghost_snapshot';
}

const IMAGE_TAG = /^<\/?(local_)?image\b[^>]*>$/i;

/**
 * A user message's text as the CLI collects it for a rebuild: its text items concatenated, the
 * `<image>` tags around an image left out (images themselves are not text).
 */
export function userMessageText(item: Obj): string {
  const content = contentItems(item);
  const parts: string[] = [];
  content.forEach((c, i) => {
    if (c.type !== 'input_text' || typeof c.text !== 'string') return;
    const nextImage = content[i + 1]?.type === 'input_image';
    const prevImage = i > 0 && content[i - 1]?.type === 'input_image';
    if (IMAGE_TAG.test(c.text.trim()) && (nextImage || prevImage)) return;
    parts.push(c.text);
  });
  return parts.join('');
}

/** The earlier user messages a rebuild keeps: every real user message, summaries excluded. */
export function collectUserMessages(history: readonly HistoryItem[]): string[] {
  return history.filter((h) => !h.summary && isRealUserMessage(h.item)).map((h) => userMessageText(h.item));
}

const userItem = (text: string): Obj => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });

/**
 * The history a compaction without replacement_history leaves (B.3): `initialContext` (copies of
 * the contextual messages that preceded the first user message: the CLI regenerates them from its
 * configuration, which the rollout does not record), then the kept user messages and the summary.
 */
export function rebuildHistory(recipe: 'bridge' | 'messages', line: number, initialContext: readonly HistoryItem[], history: readonly HistoryItem[], message: string): HistoryItem[] {
  const out: HistoryItem[] = [];
  const push = (item: Obj, extra: Partial<HistoryItem> = {}): void => {
    out.push({ id: `L${line}.r${out.length}`, line, item, origin: 'rebuilt', compactionLine: line, ...extra });
  };
  for (const c of initialContext) push(c.item);
  const users = collectUserMessages(history);
  const summary = message === '' ? NO_SUMMARY : message;
  if (recipe === 'bridge') {
    let joined = users.length === 0 ? '(none)' : users.join('\n\n');
    if (utf8Bytes(joined) > BRIDGE_MAX_BYTES) joined = truncateMiddle(joined, BRIDGE_MAX_BYTES, 'bytes').text;
    push(userItem(`Earlier user messages:\n\n${joined}\n\nSummary:\n\n${summary}`), { summary: true, approximate: true });
    return out;
  }
  const kept: string[] = [];
  let remaining = KEPT_USER_TOKENS;
  for (let i = users.length - 1; i >= 0 && remaining > 0; i--) {
    const text = users[i]!;
    const tokens = approxTokens(text);
    if (tokens <= remaining) {
      kept.push(text);
      remaining -= tokens;
    } else {
      kept.push(truncateMiddle(text, remaining, 'tokens').text);
      break;
    }
  }
  kept.reverse();
  for (const text of kept) push(userItem(text));
  push(userItem(summary), { summary: true });
  return out;
}

/**
 * The index of the summary among a replacement_history: the opaque `compaction` item, else the
 * user message carrying the compaction's message, else the last item (-1 when empty).
 */
export function summaryIndexOf(items: readonly Obj[], message: string): number {
  for (let i = items.length - 1; i >= 0; i--) if (SUMMARY_ITEM_TYPES.has(String(items[i]!.type))) return i;
  if (message !== '') {
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i]!;
      if (it.type !== 'message' || it.role !== 'user') continue;
      const text = contentItems(it)
        .map((c) => str(c.text) ?? '')
        .join('');
      if (text === message || text.endsWith(message)) return i;
    }
  }
  return items.length - 1;
}

/** The items of a compacted payload's replacement_history, ghost snapshots dropped (B.1); null without one. */
export function replacementItems(payload: Obj): Obj[] | null {
  if (!Array.isArray(payload.replacement_history)) return null;
  return payload.replacement_history.filter((x): x is Obj => isObj(x) && !isStrippedOnLoad(x));
}

/**
 * The contextual messages before the first real user message (B.3: what a viewer can take for the
 * initial context the CLI regenerates): user messages with a contextual tag and developer messages.
 */
export function initialContextOf(items: Iterable<HistoryItem>): HistoryItem[] {
  const out: HistoryItem[] = [];
  for (const h of items) {
    if (isRealUserMessage(h.item)) break;
    if (h.item.type === 'message' && (h.item.role === 'developer' || isContextualMessage(h.item))) out.push(h);
  }
  return out;
}
