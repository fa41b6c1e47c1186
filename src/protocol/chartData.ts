// The numbers of the context-size chart (webview/contextChart.ts draws them): no DOM here, so the
// model worker computes them (a branch of thousands of turns sends the webview its points, not its
// messages), the exported page computes them from its data, and the unit tests check them.
import type { ChartData, ChartPoint, ContextInfo, MessageView, ModelTotals } from './messages';

export type { ChartPoint, ModelTotals };

/** What the chart reads of a message row (a model may give only these, for its assistant messages). */
export type ChartView = Pick<MessageView, 'index' | 'entryId' | 'role' | 'subtitle' | 'usage' | 'segment'>;

/** Past this many messages the chart is left out: it would read the whole context for one line. */
export const CHART_MAX_MESSAGES = 20_000;

const contextTokens = (u: NonNullable<MessageView['usage']>): number => u.input + u.cacheRead + u.cacheWrite;

/** The turns of the branch: the cut entries (they came first), then the messages sent. */
export function chartPoints(info: ContextInfo, messages: readonly ChartView[], cut: readonly ChartView[]): ChartPoint[] {
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

export function modelTotals(messages: readonly ChartView[], cut: readonly ChartView[]): ModelTotals[] {
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

/** The chart of a context from the rows it reads (all of them, or only the assistant messages: the same points). */
export function chartOf(info: ContextInfo, messages: readonly ChartView[], cut: readonly ChartView[]): ChartData {
  return { leafId: info.leafId, omitted: false, points: chartPoints(info, messages, cut), totals: modelTotals(messages, cut) };
}

/** Too many messages for one line: the chart is left out, before anything is read for it. */
export function chartLeftOut(info: ContextInfo): ChartData | null {
  return info.messageCount > CHART_MAX_MESSAGES ? { leafId: info.leafId, omitted: true, points: [], totals: [] } : null;
}
