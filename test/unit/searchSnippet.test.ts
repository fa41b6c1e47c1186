// makeSnippet (issue 21): the window around the first match is cut between characters — never
// between the two UTF-16 units of an emoji or a CJK ideograph beyond the BMP, whose lone half a
// terminal shows as U+FFFD — and, when a space is near, between words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { makeSnippet, markSnippet } from '../../src/core/search/snippet';
import { parseSearchQuery } from '../../src/core/search/queryLanguage';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

test('a snippet among characters of two UTF-16 units keeps them whole at both edges', () => {
  const q = parseSearchQuery('zirconium');
  for (const w of ['😀', '𠀀', '🙂é', 'é😀']) {
    for (let shift = 0; shift < 4; shift++) {
      for (const width of [40, 60, 61, 160]) {
        const text = 'é'.repeat(shift) + w.repeat(200) + ' zirconium ' + w.repeat(200);
        const s = makeSnippet(text, q, width);
        assert.ok(!LONE_SURROGATE.test(s.text), `${JSON.stringify(w)} shift ${shift} width ${width}: ${JSON.stringify(s.text)}`);
        assert.ok(s.text.startsWith('…') && s.text.endsWith('…'), s.text);
        assert.match(markSnippet(s), / \[zirconium\]/);
        assert.ok(s.text.length <= width + 2, `${s.text.length} > ${width} + 2`);
      }
    }
  }
});

test('a snippet cut inside a run of words ends at a word boundary', () => {
  const text = `${'filler '.repeat(100)}needle at last ${'tailpiece '.repeat(100)}`;
  const s = makeSnippet(text, parseSearchQuery('needle'), 60);
  assert.ok(s.text.startsWith('…') && s.text.endsWith('…'), s.text);
  const words = s.text.slice(1, -1).split(' ');
  assert.equal(words.at(-1), 'tailpiece', s.text);
  assert.equal(words[0], 'filler', s.text);
  assert.equal(markSnippet(s).includes('[needle]'), true);
});

test('property: snippets of text mixing ASCII words, accents, emoji, CJK and whitespace have no half character, and mark the match whole', () => {
  const pieces = ['needle', 'hay', 'stack', ' ', '  ', '\n', 'é', 'café', '😀', '🙂🙂', '𠀀', '中文', '𝒳', '\t', 'x'];
  const arbText = fc.array(fc.constantFrom(...pieces), { maxLength: 400 }).map((a) => a.join(''));
  const q = parseSearchQuery('needle');
  fc.assert(
    fc.property(arbText, fc.integer({ min: 8, max: 200 }), (text, width) => {
      const s = makeSnippet(text, q, width);
      assert.ok(!LONE_SURROGATE.test(s.text), JSON.stringify(s.text));
      assert.ok(s.text.length <= width + 2);
      for (const [a, b] of s.ranges) {
        assert.ok(a >= 0 && b <= s.text.length && a < b);
        assert.ok(!LONE_SURROGATE.test(s.text.slice(a, b)));
      }
    }),
    { numRuns: 2000 },
  );
});
