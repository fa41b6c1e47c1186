// The context-size chart of a leaf, computed next to the model (in the model worker for the
// extension): the webview asks once and gets the points and per-model totals, instead of fetching
// every message of the branch in windows of 500 through the extension host to add up their usage
// (for a branch of thousands of turns, megabytes per leaf selected, cloned twice on the way).
import { CHART_MAX_MESSAGES, chartLeftOut, chartOf } from '../../protocol/chartData';
import type { ChartData, MessageView } from '../../protocol/messages';
import { allMessages } from '../export/contextMarkdown';
import type { SessionModel } from './model';

const WINDOW = 500;

/** The chart from the model's message windows (any model). */
export async function contextChart(model: SessionModel, leafId: string | null): Promise<ChartData> {
  const info = await model.context(leafId);
  const leftOut = chartLeftOut(info);
  if (leftOut) return leftOut;
  const msgs = await allMessages(model, info.leafId, info.messageCount);
  const cut: MessageView[] = [];
  const cutCount = Math.min(info.compaction?.cutCount ?? 0, CHART_MAX_MESSAGES);
  for (let start = 0; start < cutCount; start += WINDOW) cut.push(...(await model.cutEntries(info.leafId, start, Math.min(WINDOW, cutCount - start))));
  return chartOf(info, msgs, cut);
}
