// The words of a search marked in a message the user jumped to (issue 25: a jump shows its
// target), matched as the index and the Sessions view's snippets match them (wordMatch.ts: whole
// words, prefixes, phrases, case and accents aside).
import type { MatchTerms } from '../src/protocol/messages';
import { matchRanges } from '../src/protocol/wordMatch';

/** Text that is the row's chrome, not the message: its head (role, id, time) and buttons. */
const CHROME = '.sl-msg-head, button, vscode-button, .sl-mark-skip';

/** Wraps the query's matches in `row`'s message text in `<mark class="sl-hit">`; returns how many. */
export function markQueryWords(row: HTMLElement, q: MatchTerms): number {
  const texts: Text[] = [];
  const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const parent = n.parentElement;
    if (!parent || parent.closest(CHROME) || parent.closest('mark.sl-hit')) continue;
    texts.push(n as Text);
  }
  let marked = 0;
  for (const t of texts) {
    const ranges = matchRanges(t.data, q);
    // Right to left, so the earlier ranges' offsets still hold after each split.
    for (let i = ranges.length - 1; i >= 0; i--) {
      const [start, end] = ranges[i]!;
      const hit = t.splitText(start);
      hit.splitText(end - start);
      const mark = document.createElement('mark');
      mark.className = 'sl-hit';
      hit.replaceWith(mark);
      mark.append(hit);
      marked++;
    }
  }
  return marked;
}
