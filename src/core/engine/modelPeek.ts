// A tail peek made by a model over the file's last bytes only (Claude Code: claude/claudePeek.ts,
// Codex: codex/codexPeek.ts; an xcsh file has its own, xcsh/tailPeek.ts): the latest messages of
// the conversation the window ends on, in the shape the editor's peek and the Sessions view show.
import { open } from 'node:fs/promises';
import type { TailPeek } from '../../protocol/messages';
import { readSessionInfo, type SessionInfo } from '../discovery/discovery';
import type { SessionFormat } from '../formats/detect';
import { readRange } from '../store/fileHead';
import type { LocalSessionModel } from './model';
import { promptLine } from './xcsh/snapshot';

/** Bytes searched past the window's start for the first line start. */
const LINE_SEARCH_BYTES = 256 * 1024;

/** The first line start at or after `at` (0 stays 0), or null when none lies within reach. */
async function lineStartFrom(path: string, at: number, size: number): Promise<number | null> {
  if (at === 0) return 0;
  const fh = await open(path, 'r');
  try {
    // The byte before `at` says whether `at` itself starts a line.
    const bytes = await readRange(fh, at - 1, Math.min(size, at - 1 + LINE_SEARCH_BYTES));
    const nl = bytes.indexOf(0x0a);
    return nl === -1 || at + nl >= size ? null : at + nl;
  } finally {
    await fh.close();
  }
}

/**
 * The last `maxMessages` rows of `model`'s context at its default leaf, after any compaction
 * summary, as a peek: indices counted back from the last row (-1), a call's result by its place
 * in the peek, a result with no link up to its call (as an xcsh peek's). Null when there is none.
 */
export async function peekOfModel(model: LocalSessionModel, path: string, info: SessionInfo, maxMessages: number): Promise<TailPeek | null> {
  const leafId = await model.defaultLeaf();
  if (leafId === null) return null;
  const n = (await model.context(leafId)).messageCount;
  const rows = await model.messages(leafId, Math.max(0, n - maxMessages), maxMessages);
  // What follows a compaction only (an xcsh peek stops at a compaction too).
  let cut = rows.length - 1;
  while (cut >= 0 && rows[cut]!.segment !== 'summary' && rows[cut]!.segment !== 'kept' && rows[cut]!.segment !== 'cut') cut--;
  const shown = rows.slice(cut + 1);
  if (shown.length === 0) return null;
  const first = shown[0]!.index;
  const messages = shown.map((m) => ({
    ...m,
    index: m.index - n,
    cumulativeTokensEst: 0,
    segment: 'plain' as const,
    toolResult: m.toolResult ? { ...m.toolResult, callIndex: null } : null,
    blocks: m.blocks.map((b) => (b.kind === 'toolCall' ? { ...b, resultIndex: b.resultIndex !== null && b.resultIndex >= first ? b.resultIndex - n : null } : b)),
  }));
  return { filePath: path, format: model.format, title: info.title, firstPrompt: promptLine(info.firstPrompt, info.firstUserMessage), cwd: info.cwd, created: info.created, size: info.size, leafId, messages };
}

/**
 * The peek of a `format` file from its last `window` bytes: `openAt` opens the format's model over
 * the lines from a line start on (null: no peek), given what the listing read of the file. Null for another format, or when nothing is
 * quick and certain to show (no line start in reach, no conversation in the window, unreadable).
 */
export async function peekWindow(path: string, format: SessionFormat, window: number, maxMessages: number, openAt: (from: number, info: SessionInfo) => Promise<LocalSessionModel | null>): Promise<TailPeek | null> {
  const info = await readSessionInfo(path).catch(() => null);
  if (!info || info.format !== format) return null;
  const from = await lineStartFrom(path, Math.max(0, info.size - window), info.size).catch(() => null);
  if (from === null) return null;
  const model = await openAt(from, info).catch(() => null);
  if (!model) return null;
  try {
    return await peekOfModel(model, path, info, maxMessages);
  } catch {
    return null;
  } finally {
    model.dispose();
  }
}
