// "Compare with Leaf…" (issue 13): two contexts side by side — two leaves of one session, or a
// session and its fork (a fork keeps the entry ids, so their shared history lines up). The shared
// prefix is folded into one line on both sides ("412 shared messages"), so the first divergent
// message sits on the same line left and right; compactions are messages of their own (the
// summary first), so a compaction on one side only is where that side diverges.
import { renderContextMarkdown, allMessages, exportLeaf } from '../export/contextMarkdown';
import type { SessionModel } from '../engine/model';
import { english, type Translate } from '../l10n';
import type { ContextInfo, MessageView, SessionSummary } from '../../protocol/messages';

export interface ContextSide {
  summary: SessionSummary;
  info: ContextInfo;
  messages: MessageView[];
}

/** Two messages are the same message of the same history: same entry, same role, same place. */
function sameMessage(a: MessageView, b: MessageView): boolean {
  return a.entryId === b.entryId && a.role === b.role && a.index === b.index && a.segment === b.segment;
}

/** How many messages the two contexts share from the start. */
export function sharedPrefix(a: readonly MessageView[], b: readonly MessageView[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && sameMessage(a[i]!, b[i]!)) i++;
  return i;
}

export async function loadSide(model: SessionModel, leafId: string | null | undefined): Promise<ContextSide> {
  const leaf = await exportLeaf(model, leafId);
  const [summary, info] = await Promise.all([model.summary(), model.context(leaf)]);
  return { summary, info, messages: await allMessages(model, info.leafId, info.messageCount) };
}

export interface Comparison {
  shared: number;
  /** The Markdown of each side, the shared prefix folded into one line at the same place. */
  left: string;
  right: string;
  /** Line (1-based) of the first divergent message's heading on each side; null when a side has none. */
  divergenceLine: { left: number | null; right: number | null };
}

function sideText(side: ContextSide, shared: number, l10nT: Translate): { text: string; line: number | null } {
  const head = renderContextMarkdown(side.summary, side.info, [], l10nT).replace(/\n_[^\n]*_\n$/, '\n');
  const fold = shared === 1 ? l10nT('… {0} shared message (the same on both sides) …', 1) : l10nT('… {0} shared messages (the same on both sides) …', shared);
  const before = `${head.trimEnd()}\n\n${shared > 0 ? `> ${fold}\n\n` : ''}`;
  const rest = side.messages.slice(shared);
  if (rest.length === 0) return { text: `${before}_${l10nT('No messages after the shared ones.')}_\n`, line: null };
  const body = renderContextMarkdown(side.summary, side.info, rest, l10nT);
  // only the messages, without the header renderContextMarkdown puts first
  const first = body.search(/^## \d+\. /m);
  return { text: before + body.slice(first), line: before.split('\n').length };
}

/**
 * Both sides as Markdown with the same number of lines before the first divergent message: the
 * header lines are padded to the longer header, so a side-by-side diff aligns that message.
 */
export function compareSides(left: ContextSide, right: ContextSide, l10nT: Translate = english): Comparison {
  const shared = sharedPrefix(left.messages, right.messages);
  const l = sideText(left, shared, l10nT);
  const r = sideText(right, shared, l10nT);
  const pad = (t: { text: string; line: number | null }, other: { line: number | null }): { text: string; line: number | null } => {
    if (t.line === null || other.line === null || t.line >= other.line) return t;
    const extra = other.line - t.line;
    const at = t.text.search(/^## \d+\. /m);
    return { text: t.text.slice(0, at) + '\n'.repeat(extra) + t.text.slice(at), line: other.line };
  };
  const L = pad(l, r);
  const R = pad(r, l);
  return { shared, left: L.text, right: R.text, divergenceLine: { left: L.line, right: R.line } };
}

export async function compareLeaves(a: { model: SessionModel; leafId: string | null | undefined }, b: { model: SessionModel; leafId: string | null | undefined }, l10nT: Translate = english): Promise<Comparison & { leftSide: ContextSide; rightSide: ContextSide }> {
  const leftSide = await loadSide(a.model, a.leafId);
  const rightSide = await loadSide(b.model, b.leafId);
  return { ...compareSides(leftSide, rightSide, l10nT), leftSide, rightSide };
}
