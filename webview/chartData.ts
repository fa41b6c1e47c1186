// The numbers of the context-size chart (contextChart.ts draws them): no DOM here, so the unit
// tests check them under Node.
import type { ContextInfo, MessageView } from '../src/protocol/messages';

export interface ChartPoint {
  /** Tokens in the context at this turn. */
  tokens: number;
  /** Index in the context's messages, or null for a turn the compaction cut (not clickable). */
  messageIndex: number | null;
  entryId: string;
  /** The first point after the compaction in effect. */
  afterCompaction: boolean;
}

export interface ModelTotals {
  model: string;
  input: number;
  output: number;
  cost: number;
}

const contextTokens = (u: NonNullable<MessageView['usage']>): number => u.input + u.cacheRead + u.cacheWrite;

/** The turns of the branch: the cut entries (they came first), then the messages sent. */
export function chartPoints(info: ContextInfo, messages: readonly MessageView[], cut: readonly MessageView[]): ChartPoint[] {
  const points: ChartPoint[] = [];
  for (const m of cut) if (m.usage && contextTokens(m.usage) > 0) points.push({ tokens: contextTokens(m.usage), messageIndex: null, entryId: m.entryId, afterCompaction: false });
  let marked = info.compaction === null;
  for (const m of messages) {
    if (!m.usage || contextTokens(m.usage) === 0) continue;
    const after = !marked && m.segment === 'after';
    if (after) marked = true;
    points.push({ tokens: contextTokens(m.usage), messageIndex: m.index, entryId: m.entryId, afterCompaction: after });
  }
  return points;
}

export function modelTotals(messages: readonly MessageView[], cut: readonly MessageView[]): ModelTotals[] {
  const by = new Map<string, ModelTotals>();
  for (const m of [...cut, ...messages]) {
    if (!m.usage || m.role !== 'assistant') continue;
    const model = m.subtitle ?? '?';
    const t = by.get(model) ?? { model, input: 0, output: 0, cost: 0 };
    t.input += m.usage.input + m.usage.cacheRead + m.usage.cacheWrite;
    t.output += m.usage.output;
    t.cost += m.usage.cost;
    by.set(model, t);
  }
  return [...by.values()].sort((a, b) => b.input - a.input);
}
