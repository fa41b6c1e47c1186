// The context-size chart of a leaf, computed next to the model (in the model worker for the
// extension): the webview asks once and gets the points and per-model totals, instead of fetching
// every message of the branch in windows of 500 through the extension host to add up their usage
// (for a branch of thousands of turns, megabytes per leaf selected, cloned twice on the way).
import { CHART_MAX_MESSAGES, chartPoints, modelTotals, type ChartView } from '../../protocol/chartData';
import type { ChartData, ContextInfo, MessageView } from '../../protocol/messages';
import type { SessionModel } from './model';

const WINDOW = 500;

/** The chart of a context from the rows it reads (all of them, or only the assistant messages: the same points). */
export function chartOf(info: ContextInfo, messages: readonly ChartView[], cut: readonly ChartView[]): ChartData {
  return { leafId: info.leafId, omitted: false, points: chartPoints(info, messages, cut), totals: modelTotals(messages, cut) };
}

/** Too many messages for one line: the chart is left out, before anything is read for it. */
export function chartLeftOut(info: ContextInfo): ChartData | null {
  return info.messageCount > CHART_MAX_MESSAGES ? { leafId: info.leafId, omitted: true, points: [], totals: [] } : null;
}

/** The chart from the model's message windows (any model). */
export async function contextChart(model: Pick<SessionModel, 'context' | 'messages' | 'cutEntries'>, leafId: string | null): Promise<ChartData> {
  const info = await model.context(leafId);
  const leftOut = chartLeftOut(info);
  if (leftOut) return leftOut;
  const read = async (window: (start: number, count: number) => Promise<MessageView[]>, n: number): Promise<MessageView[]> => {
    const out: MessageView[] = [];
    for (let start = 0; start < n; start += WINDOW) out.push(...(await window(start, Math.min(WINDOW, n - start))));
    return out;
  };
  const msgs = await read((s, c) => model.messages(info.leafId, s, c), info.messageCount);
  const cut = await read((s, c) => model.cutEntries(info.leafId, s, c), Math.min(info.compaction?.cutCount ?? 0, CHART_MAX_MESSAGES));
  return chartOf(info, msgs, cut);
}
