// The line a search result shows for an entry: a window of its text around the first match, on
// one line, with the ranges to highlight (VS Code's TreeItemLabel.highlights, the CLI's markers).
import { firstMatchAt, matchRanges, type SearchQuery } from './queryLanguage';

export interface Snippet {
  text: string;
  /** [start, end) UTF-16 ranges of `text` to highlight. */
  ranges: [number, number][];
}

/** One line of at most `width` characters around the first match (whitespace runs become one space). */
export function makeSnippet(text: string, q: SearchQuery, width = 160): Snippet {
  // Long texts: find the first match by a scan, then split only the window around it into words.
  let ranges: [number, number][];
  let firstAt: number;
  const quick = text.length > 4 * width ? firstMatchAt(text, q) : -1;
  if (quick !== -1) {
    const lo = Math.max(0, quick - width);
    const hi = Math.min(text.length, quick + width * 3);
    const within = matchRanges(text.slice(lo, hi), q).map(([a, b]): [number, number] => [a + lo, b + lo]);
    // A range cut by the window's edges is dropped rather than shown half.
    ranges = within.filter(([a, b]) => (a > lo || lo === 0) && (b < hi || hi === text.length));
    firstAt = ranges[0]?.[0] ?? quick;
  } else {
    ranges = matchRanges(text, q);
    firstAt = ranges[0]?.[0] ?? -1;
  }
  let from = firstAt >= 0 ? Math.max(0, firstAt - Math.floor(width / 4)) : 0;
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
