// The line a search result shows for an entry: a window of its text around the first match, on
// one line, with the ranges to highlight (VS Code's TreeItemLabel.highlights, the CLI's markers).
import { matchRanges, type SearchQuery } from './queryLanguage';

export interface Snippet {
  text: string;
  /** [start, end) UTF-16 ranges of `text` to highlight. */
  ranges: [number, number][];
}

/** One line of at most `width` characters around the first match (whitespace runs become one space). */
export function makeSnippet(text: string, q: SearchQuery, width = 160): Snippet {
  const ranges = matchRanges(text, q);
  const first = ranges[0];
  let from = first ? Math.max(0, first[0] - Math.floor(width / 4)) : 0;
  // Start at a word boundary when cutting into the text.
  if (from > 0) {
    const space = text.lastIndexOf(' ', from);
    if (space > from - 20 && space >= 0) from = space + 1;
  }
  const to = Math.min(text.length, from + width * 2);
  let out = '';
  const map: number[] = []; // map[i] = offset in `out` of text[from + i]
  let lastSpace = true;
  for (let i = from; i < to && out.length < width; i++) {
    const c = text[i]!;
    const ws = c === ' ' || c === '\n' || c === '\t' || c === '\r';
    map[i - from] = out.length;
    if (ws) {
      if (!lastSpace) out += ' ';
      lastSpace = true;
    } else {
      out += c;
      lastSpace = false;
    }
  }
  const end = from + map.length;
  out = out.trimEnd();
  const prefix = from > 0 ? '…' : '';
  const suffix = end < text.length ? '…' : '';
  const shifted: [number, number][] = [];
  for (const [s, e] of ranges) {
    if (e <= from || s >= end) continue;
    const a = map[Math.max(s, from) - from]!;
    const b = e >= end ? out.length : map[e - from]!;
    if (b > a) shifted.push([a + prefix.length, Math.min(b, out.length) + prefix.length]);
  }
  return { text: prefix + out + suffix, ranges: shifted };
}

/** The snippet with its matches in [brackets]-like markers, for a terminal. */
export function markSnippet(s: Snippet, open = '[', close = ']'): string {
  let out = '';
  let at = 0;
  for (const [a, b] of s.ranges) {
    out += s.text.slice(at, a) + open + s.text.slice(a, b) + close;
    at = b;
  }
  return out + s.text.slice(at);
}
