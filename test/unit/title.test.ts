import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyTitle, InvalidTitleError, requireTitle, sanitizeTitle } from '../../src/core/formats/xcsh/title';
import type { SessionHeader } from '../../src/core/formats/xcsh/schemas';

test('C0 controls (tab, newline, NUL) become spaces and collapse', () => {
  assert.equal(sanitizeTitle('a\tb\n\nc\u0000d'), 'a b c d');
});

test('ESC becomes a space so ANSI sequences are broken up', () => {
  assert.equal(sanitizeTitle('\u001b[31mred\u001b[0m'), '[31mred [0m');
});

test('C1 controls (U+0080–U+009F) and DEL become spaces', () => {
  assert.equal(sanitizeTitle('a\u0085b\u009bc\u007fd'), 'a b c d');
});

test('runs of spaces collapse and the result is trimmed', () => {
  assert.equal(sanitizeTitle('   hello    world   '), 'hello world');
});

test('printable non-ASCII survives', () => {
  assert.equal(sanitizeTitle('Grüße — 日本語 ✓'), 'Grüße — 日本語 ✓');
});

test('an empty result is refused', () => {
  assert.equal(sanitizeTitle(' \t\u001b\n '), null);
  assert.equal(sanitizeTitle(''), null);
  assert.throws(() => requireTitle('\u0000'), InvalidTitleError);
});

test('applyTitle: a user title sets titleSource "user"; auto never replaces a user title', () => {
  const h: SessionHeader = { type: 'session', id: 'x', version: 3 };
  const u = applyTitle(h, ' My  title ');
  assert.deepEqual(u, { type: 'session', id: 'x', version: 3, title: 'My title', titleSource: 'user' });
  assert.equal(applyTitle(u!, 'auto title', 'auto'), null);
  const a = applyTitle(h, 'auto', 'auto');
  assert.equal(a!.titleSource, 'auto');
  assert.equal(applyTitle(a!, 'mine')!.titleSource, 'user');
});
