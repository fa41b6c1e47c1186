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
  // Start at a word boundary when cutting into the text, else at least between two characters:
  // never between the two halves of a surrogate pair (an emoji, a rare CJK ideograph), whose lone
  // half a terminal shows as U+FFFD.
  if (from > 0) {
    const space = spaceNear(text, from, 20);
    if (space >= 0) from = space + 1;
    else if (isLowSurrogate(text.charCodeAt(from)) && isHighSurrogate(text.charCodeAt(from - 1))) from--;
  }
  const to = Math.min(text.length, from + width * 2);
  let out = '';
  const map: number[] = []; // map[i] = offset in `out` of text[from + i]
  let lastSpace = true;
  for (let i = from; i < to && out.length < width; i++) {
    const c = text[i]!;
    const ws = isSpace(c);
    if (ws) {
      map[i - from] = out.length;
      if (!lastSpace) out += ' ';
      lastSpace = true;
    } else if (isHighSurrogate(c.charCodeAt(0)) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A pair goes in whole or not at all.
      if (out.length + 2 > width) break;
      map[i - from] = out.length;
      map[i + 1 - from] = out.length + 1;
      out += c + text[i + 1]!;
      i++;
      lastSpace = false;
    } else {
      map[i - from] = out.length;
      out += c;
      lastSpace = false;
    }
  }
  let end = from + map.length;
  // Cut in the middle of a word: end at the last space instead when it is near and after the
  // first match.
  if (end < text.length && !isSpace(text[end]!) && !lastSpace) {
    const sp = out.lastIndexOf(' ');
    const matchEnd = (ranges[0]?.[1] ?? firstAt + 1) - from;
    const keep = matchEnd <= 0 ? 0 : matchEnd < map.length ? map[matchEnd]! : out.length;
    if (sp > 0 && sp >= out.length - 20 && sp >= keep) {
      let k = map.length - 1;
      while (k > 0 && !(map[k] === sp && isSpace(text[from + k]!))) k--;
      if (k > 0) {
        map.length = k;
        end = from + k;
        out = out.slice(0, sp);
      }
    }
  }
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

function isSpace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\t' || c === '\r';
}
function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
/** The last whitespace character at `at` or fewer than `within` characters before it, or -1. */
function spaceNear(text: string, at: number, within: number): number {
  for (let i = Math.min(at, text.length - 1); i >= 0 && i > at - within; i--) if (isSpace(text[i]!)) return i;
  return -1;
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
