// The first thing the session editor and the Sessions view show of a big Codex rollout while it is
// read (issue 24: the same first paint as an xcsh session, engine/xcsh/tailPeek.ts): the latest
// messages of the history it ends with, replayed from the file's last bytes only by the same
// reader and model as the whole file (codexModel.ts with `window`), through engine/modelPeek.ts.
// A rollout's node ids are its line numbers, so the lines before the window are counted (a scan
// for newlines, no parse). A `.jsonl.zst` rollout has no cheap tail: it has no peek. What the
// window cannot know — a rollback reaching turns before it — shows only until the whole file is
// read and its answers replace the peek.
import { open } from 'node:fs/promises';
import type { TailPeek } from '../../../protocol/messages';
import { newlinesIn } from '../../store/fileHead';
import { peekWindow } from '../modelPeek';
import { PEEK_MAX_MESSAGES, PEEK_WINDOW_BYTES } from '../xcsh/tailPeek';
import { CodexModel } from './codexModel';

const COUNT_CHUNK = 4 * 1024 * 1024;

/** The newlines before `end` (the number of the line starting there, less one). */
async function linesBefore(path: string, end: number): Promise<number> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(COUNT_CHUNK);
    let lines = 0;
    for (let at = 0; at < end; ) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(COUNT_CHUNK, end - at), at);
      if (bytesRead === 0) break;
      lines += newlinesIn(buf, 0, bytesRead);
      at += bytesRead;
    }
    return lines;
  } finally {
    await fh.close();
  }
}

/** The peek of a plain Codex rollout, or null (another format, compressed, nothing in the window, unreadable). */
export function peekCodexTail(path: string, window = PEEK_WINDOW_BYTES, maxMessages = PEEK_MAX_MESSAGES): Promise<TailPeek | null> {
  return peekWindow(path, 'codex', window, maxMessages, async (from, info) =>
    info.encoding === 'zstd' ? null : CodexModel.open(path, { window: { from, line: (await linesBefore(path, from)) + 1 } }),
  );
}
