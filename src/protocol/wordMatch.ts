// How a text's words are matched against a search's terms, shared by the host (the index's
// snippets, src/core/search/queryLanguage.ts) and the webview (a jump's words marked in the
// message it lands on): one tokenizer and one folding, as the index's (FTS5 unicode61, diacritics
// removed) — runs of letters and digits, lower-cased.

import type { MatchTerms } from './messages';

export const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** Lower-case, without diacritics: how the index folds a word. */
export function foldWord(w: string): string {
  // (ASCII needs no decomposition: the common case, and the cost of a snippet is per word.)
  return NON_ASCII.test(w) ? w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase() : w.toLowerCase();
}
export const NON_ASCII = /[^\x00-\x7f]/;

/** The words of a text with their UTF-16 ranges in it (for highlighting). */
export function wordSpans(text: string): { word: string; start: number; end: number }[] {
  const out: { word: string; start: number; end: number }[] = [];
  for (const m of text.matchAll(TOKEN)) out.push({ word: foldWord(m[0]), start: m.index, end: m.index + m[0].length });
  return out;
}

/** The ranges of `text` to highlight: the query's words, words starting with its prefixes, its phrases. */
export function matchRanges(text: string, q: MatchTerms): [number, number][] {
  const spans = wordSpans(text);
  const ranges: [number, number][] = [];
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i]!;
    // The whole word a prefix matched: users read words, not prefixes.
    if (q.words.includes(s.word) || q.prefixes.some((w) => s.word.startsWith(w))) ranges.push([s.start, s.end]);
    for (const p of q.phrases) {
      if (p.length === 0 || i + p.length > spans.length) continue;
      let ok = true;
      for (let k = 0; k < p.length && ok; k++) ok = spans[i + k]!.word === p[k];
      if (ok) ranges.push([s.start, spans[i + p.length - 1]!.end]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

