// The first thing the session editor paints while a big session is still being indexed (issue 11:
// the first message row in half a second, when indexing a 1M-entry file takes seconds): the
// header facts from the file's first bytes and the latest messages on the branch the agent was
// working on, read from the file's last bytes only.
//
// Why the tail and not the head: the context preview opens at the default leaf, which is the
// session's last entry (spec Part A: the leaf is the last entry appended), and following parent
// links back from it inside the last window of bytes gives messages that are certainly on that
// leaf's path. The head of the file may be cut away by a compaction or sit on another branch.
// A compaction stops the walk: what lies before it is not what the model sees verbatim.
//
// Only v3 files: their ids are on disk. v1/v2 ids are given by the reader in file order (spec
// Part C §11), which a window in the middle of the file cannot reproduce. Whatever the peek
// shows is replaced by the full model's answers as soon as the index is ready.
import { open } from 'node:fs/promises';
import type { TailPeek } from '../../../protocol/messages';
import { readSessionInfo } from '../../discovery/discovery';
import { entryToMessage } from '../../formats/xcsh/context';
import type { SessionEntry } from '../../formats/xcsh/schemas';
import { entryTimestamp, messageRow } from './messageRows';
import { estimateTokens, messageParts } from './messageView';
import { promptLine } from './snapshot';
import { readRange } from '../../store/fileHead';

/** Bytes read from the end of the file: enough for the last screenfuls of a talkative session. */
export const PEEK_WINDOW_BYTES = 1024 * 1024;
/**
 * Messages given at most (oldest first): about a screenful. The webview renders them all at once
 * (no virtual list), and forty rows of markdown took it 0.35–0.9 s on this loaded 2-core machine.
 */
export const PEEK_MAX_MESSAGES = 12;

export type { TailPeek };

type Obj = Record<string, unknown>;

async function readTail(path: string, size: number, window: number): Promise<{ text: string; fromStart: boolean }> {
  const from = Math.max(0, size - window);
  const fh = await open(path, 'r');
  try {
    return { text: (await readRange(fh, from, size)).toString('utf8'), fromStart: from === 0 };
  } finally {
    await fh.close();
  }
}

/**
 * The peek of an xcsh v3 session file, or null when there is nothing quick and certain to show
 * (another format or version, no entry with an id in the window, unreadable).
 */
export async function peekSessionTail(path: string, window = PEEK_WINDOW_BYTES, maxMessages = PEEK_MAX_MESSAGES): Promise<TailPeek | null> {
  const info = await readSessionInfo(path).catch(() => null);
  if (!info || info.format !== 'xcsh' || info.damaged || info.version !== 3) return null;
  let tail;
  try {
    tail = await readTail(path, info.size, window);
  } catch {
    return null;
  }
  const lines = tail.text.split('\n');
  // The window's first line is cut unless the window starts the file; the last one may be torn.
  if (!tail.fromStart) lines.shift();
  const byId = new Map<string, Obj>();
  let last: Obj | null = null;
  for (const line of lines) {
    if (line.length < 2) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue; // a torn last line or a damaged one: the full reader reports it
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
    const e = v as Obj;
    if (e.type === 'session' || typeof e.id !== 'string') continue;
    byId.set(e.id, e);
    last = e;
  }
  if (!last) return null;
  // The same entry → message conversion the context uses (message, custom_message, branch_summary).
  const onPath: { e: Obj; m: Obj }[] = [];
  // At most one step per entry read: a parent cycle in a damaged file ends the walk.
  let e: Obj | undefined = last;
  for (let steps = 0; e && onPath.length < maxMessages && steps < byId.size; steps++, e = typeof e.parentId === 'string' ? byId.get(e.parentId) : undefined) {
    if (e.type === 'compaction') break;
    const m = entryToMessage(e as unknown as SessionEntry) as Obj | null;
    if (m) onPath.push({ e, m });
  }
  onPath.reverse();
  const messages = onPath.map(({ e, m }, k) => {
    const id = e.id as string;
    const at = { index: k - onPath.length, entryId: id, timestamp: entryTimestamp(e as unknown as SessionEntry, m), tokensEst: estimateTokens(m), cumulativeTokensEst: 0, segment: 'plain' as const };
    return messageRow(messageParts(m, id), at, null);
  });
  // A call's block says where its result is and whether it failed: the result is later on the path, so in the peek too.
  // Its place is given as the result row's (negative) index in the peek.
  const results = new Map<string, { index: number; isError: boolean }>();
  for (const r of messages) if (r.toolResult) results.set(r.toolResult.callId, { index: r.index, isError: r.toolResult.isError });
  for (const r of messages) {
    for (const b of r.blocks) {
      const res = b.kind === 'toolCall' && b.callId ? results.get(b.callId) : undefined;
      if (b.kind === 'toolCall' && res) {
        b.resultIsError = res.isError;
        b.resultIndex = res.index;
      }
    }
  }
  return { filePath: path, title: info.title, firstPrompt: promptLine(info.firstPrompt, info.firstUserMessage), cwd: info.cwd, created: info.created, size: info.size, leafId: last.id as string, messages };
}
