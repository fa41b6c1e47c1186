// The first thing the session editor and the Sessions view show of a big Claude Code transcript
// while it is read (issue 24: "the same windowed first paint" as an xcsh session — see
// engine/xcsh/tailPeek.ts): the latest messages of the conversation it ends on, from the file's
// last bytes only.
//
// The window is read by the same reader and model as the whole file (claudeModel.ts with
// `window`): its records form a tree of their own (a record whose parent lies before the window
// starts a root, as any record with a missing parent does), the leaf rule of Part B picks the
// conversation it ends on, and the context at that leaf — split lines merged, results paired,
// a compaction cut — gives the rows (engine/modelPeek.ts). Only the last of them are shown, far
// from the window's cut edge; the full model's answers replace them as soon as the whole file is
// read.
import type { TailPeek } from '../../../protocol/messages';
import { readSessionInfo } from '../../discovery/discovery';
import { lineStartFrom, peekOfModel } from '../modelPeek';
import { PEEK_MAX_MESSAGES, PEEK_WINDOW_BYTES } from '../xcsh/tailPeek';
import { ClaudeModel } from './claudeModel';

/**
 * The peek of a Claude Code transcript, or null when there is nothing quick and certain to show
 * (another format, no conversation in the window, unreadable).
 */
export async function peekClaudeTail(path: string, window = PEEK_WINDOW_BYTES, maxMessages = PEEK_MAX_MESSAGES): Promise<TailPeek | null> {
  const info = await readSessionInfo(path).catch(() => null);
  if (!info || info.format !== 'claude') return null;
  const from = await lineStartFrom(path, Math.max(0, info.size - window), info.size).catch(() => null);
  if (from === null) return null;
  const model = await ClaudeModel.open(path, { window: { from, startLine: 0 } }).catch(() => null);
  if (!model) return null;
  try {
    return await peekOfModel(model, path, info, maxMessages);
  } catch {
    return null;
  } finally {
    model.dispose();
  }
}
