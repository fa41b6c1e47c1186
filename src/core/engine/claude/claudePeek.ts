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
import { peekWindow } from '../modelPeek';
import { PEEK_MAX_MESSAGES, PEEK_WINDOW_BYTES } from '../xcsh/tailPeek';
import { ClaudeModel } from './claudeModel';

/**
 * The peek of a Claude Code transcript, or null when there is nothing quick and certain to show
 * (another format, no conversation in the window, unreadable).
 */
export function peekClaudeTail(path: string, window = PEEK_WINDOW_BYTES, maxMessages = PEEK_MAX_MESSAGES): Promise<TailPeek | null> {
  return peekWindow(path, 'claude', window, maxMessages, (from) => ClaudeModel.open(path, { window: { from, startLine: 0 } }));
}
