// Every indexed body in file order, with the line each starts on (issue 11: the CLI's `tree` and
// the blob check of `context`/`doctor` over a session too big to hold). The index keeps no line
// column (a tree needs none), so lines are counted here: the file is read from its first byte in
// windows, gaps included, and an entry's line is 1 + the newlines before its first byte — the
// reader's count (a glued record shares its line, a record over several lines moves the next
// one down, CRLF ends a line at its LF). Nothing is cached: memory is one window.
import type { SessionEntry } from '../../../formats/xcsh/schemas';
import { parseIndexedBody, readRange, withIndexedFile, type BodySource } from './bodyReader';
import { newlinesIn } from '../../../store/fileHead';

/** Bytes read at a time (a window holds at least one entry, however long). */
const WINDOW_BYTES = 1 << 20;

export interface BodyWindow {
  /** Position of entries[0]. */
  from: number;
  entries: SessionEntry[];
  lines: number[];
}

/**
 * Calls `visit` with consecutive windows of entries [0, n) in file order. Throws FileChangedError
 * when the file is no longer the one indexed, before or while it is read.
 */
export function scanBodyWindows(src: BodySource & { n: number }, visit: (w: BodyWindow) => Promise<void> | void, windowBytes = WINDOW_BYTES): Promise<void> {
  return scanWindows(src, true, visit, windowBytes);
}

/** The line of each entry [0, n), counted over the file (no body parsed; each still starts with its id's record). */
export async function entryLines(src: BodySource & { n: number }, windowBytes = WINDOW_BYTES): Promise<Uint32Array> {
  const lines = new Uint32Array(src.n);
  await scanWindows(src, false, (w) => lines.set(w.lines, w.from), windowBytes);
  return lines;
}

async function scanWindows(src: BodySource & { n: number }, parse: boolean, visit: (w: BodyWindow) => Promise<void> | void, windowBytes: number): Promise<void> {
  const { starts, lengths, n, path } = src;
  const end = (p: number): number => starts[p]! + lengths[p]!;
  await withIndexedFile(src, async (fh) => {
    let cursor = 0;
    let line = 1;
    let i = 0;
    while (i < n) {
      let j = i;
      while (j + 1 < n && end(j + 1) - cursor <= windowBytes) j++;
      const buf = await readRange(fh, cursor, end(j), path);
      const entries: SessionEntry[] = [];
      const lines: number[] = [];
      let counted = 0;
      for (let p = i; p <= j; p++) {
        const s = starts[p]! - cursor;
        line += newlinesIn(buf, counted, s);
        counted = s;
        lines.push(line);
        if (parse) entries.push(parseIndexedBody(src, buf, s, end(p) - cursor, p));
      }
      line += newlinesIn(buf, counted, buf.length);
      cursor = end(j);
      await visit({ from: i, entries, lines });
      i = j + 1;
    }
  });
}
