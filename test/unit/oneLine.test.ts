// oneLine (tree/treeView.ts) cuts a long text before flattening it: the row must be exactly what
// flattening the whole text gives, whatever the whitespace (long runs, at the cut, all of it),
// surrogate pairs at the cut, and texts around the length where the cut starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { oneLine } from '../../src/core/tree/treeView';
import { grouped } from '../../src/core/formats/claude/previews';
import { fixture } from '../helpers/fixtures';

/** The definition: every whitespace run one space, trimmed, cut to `max` with an ellipsis. */
function reference(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

test('oneLine of long texts equals flattening the whole text: whitespace runs, surrogates, lengths around the cut', () => {
  let seed = 7;
  const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
  const pieces = ['a', 'bc', ' ', '\n', '\t\t', '\u00a0', '\u2028', '\ufeff', '😀', 'é', ' '.repeat(300), '\n'.repeat(2000), 'word '];
  for (let k = 0; k < 3000; k++) {
    let text = '';
    const len = rnd(4000);
    while (text.length < len) text += pieces[rnd(pieces.length)];
    for (const max of [1, 2, 60, 120, 200, 1000]) assert.equal(oneLine(text, max), reference(text, max), JSON.stringify({ k, max, len: text.length }));
  }
  // all whitespace but a word far past the cut; a word, then only whitespace
  for (const text of [' '.repeat(5000) + 'x', 'x' + ' '.repeat(5000), '\n'.repeat(10_000), 'y'.repeat(10_000)]) assert.equal(oneLine(text, 200), reference(text, 200));
  // a surrogate pair across the cut: the row's last character before the ellipsis is whole or cut as the reference cuts it
  for (let at = 790; at < 810; at++) {
    const text = 'x'.repeat(at) + '😀'.repeat(600);
    for (const max of [200, 799, 800, 801]) assert.equal(oneLine(text, max), reference(text, max));
  }
});

test('oneLine of every line of a real transcript equals flattening it whole', () => {
  const text = readFileSync(fixture('claude-code', 'spotter', '258c7280-ae70-4798-800f-63464d01a85d.jsonl'), 'utf8');
  for (const line of text.split('\n')) for (const max of [60, 200]) assert.equal(oneLine(line, max), reference(line, max));
});

test("a compaction row's token count is grouped as toLocaleString('en-US') groups it", () => {
  for (const n of [0, 1, -1, 12, 999, 1000, -1000, 12_345, 999_999, 1_000_000, 123_456_789, -987_654_321, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1.5, 1234.5678, -0.25, 1e21, NaN, Infinity, -0]) {
    assert.equal(grouped(n), n.toLocaleString('en-US'), String(n));
  }
});
