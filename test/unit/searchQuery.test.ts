// The search query language (src/core/search/queryLanguage.ts) and the snippet around a match.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ftsMatchExpression, matchRanges, parseSearchQuery, textCheck, textWords } from '../../src/core/search/queryLanguage';
import { describeQuery } from '../reference/queryLanguage';
import { entrySearchFields } from '../../src/core/search/searchText';
import { makeSnippet, markSnippet } from '../../src/core/search/snippet';

test('words are AND-ed whole words, case and accents folded; word* is a prefix', () => {
  const q = parseSearchQuery('Parser  CAFÉ pars*');
  assert.deepEqual(q.words, ['parser', 'cafe']);
  assert.deepEqual(q.prefixes, ['pars']);
  assert.equal(ftsMatchExpression(q), '"parser" AND "cafe" AND "pars"*');
});

test('words split as the index tokenizer splits them: parse_jsonl is two words', () => {
  assert.deepEqual(parseSearchQuery('parse_jsonl src/core').words, ['parse', 'jsonl', 'src', 'core']);
  assert.deepEqual(textWords('Fix parseJsonlLenient() in src/core_x'), ['fix', 'parsejsonllenient', 'in', 'src', 'core', 'x']);
});

test('"exact phrase", -exclude and -"phrase"', () => {
  const q = parseSearchQuery('"torn tail" -glued -"unit test" fix');
  assert.deepEqual(q.phrases, [['torn', 'tail']]);
  assert.deepEqual(q.excludes, [['glued'], ['unit', 'test']]);
  assert.deepEqual(q.words, ['fix']);
  // single-word excludes in FTS; the phrase and the multi-word exclude are checked on the text
  assert.equal(ftsMatchExpression(q), '("fix" AND "torn" AND "tail") NOT ("glued")');
  assert.equal(textCheck('we fix the torn tail now', q), true);
  assert.equal(textCheck('the tail is torn, fix it', q), false, 'phrase words in another order');
  assert.equal(textCheck('fix the torn tail with a unit test', q), false, 'the excluded phrase occurs');
  // Words in sequence as the tokenizer sees them: punctuation between them does not matter, a longer word does.
  assert.equal(textCheck('fix: torn, tail!', q), true);
  assert.equal(textCheck('fix the torn tails', q), false);
  assert.equal(textCheck('fix the TORN tail — café', q), true, 'the full split (non-ASCII text) agrees');
});

test('role:, tool:, project:, after:, before: filters', () => {
  const q = parseSearchQuery('role:user tool:bash tool:Read project:Loom after:2026-06-01 before:2026-07 migrate');
  assert.deepEqual(q.roles, ['user']);
  assert.deepEqual(q.tools, ['bash', 'read']);
  assert.deepEqual(q.projects, ['loom']);
  assert.equal(q.after, Date.UTC(2026, 5, 1));
  assert.equal(q.before, Date.UTC(2026, 6, 1));
  assert.equal(ftsMatchExpression(q), '"migrate" AND ("zzslroleuser") AND ("zzsltoolbash" OR "zzsltoolread")');
  assert.equal(describeQuery(q), 'migrate role:user tool:bash tool:read project:loom after:2026-06-01 before:2026-07-01');
});

test('an invalid date is a problem, not a silent no-op; a query of filters alone has no FTS expression', () => {
  const q = parseSearchQuery('after:yesterday project:x');
  assert.equal(q.problems.length, 1);
  assert.match(q.problems[0]!, /after: expects a date/);
  assert.equal(ftsMatchExpression(q), null);
  assert.equal(ftsMatchExpression(parseSearchQuery('-only -excludes')), null);
});

test('an unclosed quote takes the rest as the phrase; quotes inside words are escaped for FTS5', () => {
  assert.deepEqual(parseSearchQuery('"torn tail').phrases, [['torn', 'tail']]);
  assert.equal(ftsMatchExpression(parseSearchQuery('a"b')), '"a" AND "b"');
});

test('filter tokens cannot be matched by a word a session says: role:user is not the word "user"', () => {
  const user = entrySearchFields({ type: 'message', id: 'a', message: { role: 'user', content: 'the user asked' } })!;
  assert.match(user.meta, /\bzzslroleuser\b/);
  const tool = entrySearchFields({ type: 'message', id: 'b', message: { role: 'assistant', content: [{ type: 'toolCall', name: 'bash', arguments: { command: 'ls -la' } }] } })!;
  assert.match(tool.meta, /\bzzsltoolbash\b/);
  assert.match(tool.body, /ls -la/);
  const result = entrySearchFields({ type: 'message', id: 'c', message: { role: 'toolResult', toolName: 'bash', content: [{ type: 'text', text: 'total 0' }] } })!;
  assert.match(result.meta, /\bzzsltoolbash\b/);
});

test('searchable text: text, tool arguments and output, labels (opening their target), titles; not thinking or signatures', () => {
  const a = entrySearchFields({
    type: 'message',
    id: 'a',
    message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'SECRETTHOUGHT', thinkingSignature: 'SIG' }, { type: 'text', text: 'Done' }, { type: 'toolCall', name: 'edit', arguments: { path: '/x.ts' } }] },
  })!;
  assert.doesNotMatch(a.body, /SECRETTHOUGHT|SIG/);
  assert.match(a.body, /Done/);
  assert.match(a.body, /x\.ts/);
  const label = entrySearchFields({ type: 'label', id: 'l', targetId: 'a', label: 'checkpoint' })!;
  assert.equal(label.openId, 'a');
  assert.equal(label.body, 'checkpoint');
  const bash = entrySearchFields({ type: 'message', id: 'b', message: { role: 'bashExecution', command: 'npm test', output: 'FAIL parser' } })!;
  assert.match(bash.body, /npm test[\s\S]*FAIL parser/);
  assert.equal(entrySearchFields({ type: 'message', message: { role: 'user', content: 'x' } } as never), null, 'no id: nothing to open');
});

test('highlights cover whole words a prefix matched and whole phrases; the snippet keeps them on one line', () => {
  const q = parseSearchQuery('pars* "torn tail"');
  const text = 'The parser reads a\ntorn tail; parsing goes on.';
  assert.deepEqual(
    matchRanges(text, q).map(([a, b]) => text.slice(a, b)),
    ['parser', 'torn tail', 'parsing'],
  );
  const s = makeSnippet(text, q);
  assert.equal(s.text, 'The parser reads a torn tail; parsing goes on.');
  assert.equal(markSnippet(s), 'The [parser] reads a [torn tail]; [parsing] goes on.');
  const long = `${'filler '.repeat(100)}needle at last ${'tail '.repeat(100)}`;
  const w = makeSnippet(long, parseSearchQuery('needle'), 60);
  assert.ok(w.text.startsWith('…') && w.text.endsWith('…'));
  assert.equal(markSnippet(w).includes('[needle]'), true);
});

test('a phrase check on text holding non-ASCII symbols (✓, —, emoji) or accented letters answers as the word split does (property)', () => {
  // The fast check answers without splitting when the only non-ASCII is punctuation or symbols;
  // an accented letter (the tokenizer folds it) still goes through the full split.
  const pieces = ['fix', 'the', 'torn', 'tail', 'Torn', 'TAIL', 'tails', ' ', ', ', ' — ', '✓ ', '🙂', 'café', 'tôrn', 'taïl', '_', '\n', 'x2'];
  const arbText = fc.array(fc.constantFrom(...pieces), { maxLength: 14 }).map((a) => a.join(''));
  const queries = ['"torn tail"', '"fix the torn"', 'fix -"torn tail"', '"tail fix"'].map(parseSearchQuery);
  fc.assert(
    fc.property(arbText, fc.constantFrom(...queries), (text, q) => {
      const words = textWords(text);
      const has = (seq: readonly string[]): boolean => words.some((_, i) => seq.every((w, k) => words[i + k] === w));
      const expected = q.phrases.every((p) => has(p)) && !q.excludes.some((e) => e.length > 1 && has(e));
      assert.equal(textCheck(text, q), expected, JSON.stringify(text));
    }),
    { numRuns: 3000 },
  );
  assert.equal(textCheck('✓ fix the TORN tail', parseSearchQuery('"torn tail"')), true);
  assert.equal(textCheck('✓ fix the tôrn taïl', parseSearchQuery('"torn tail"')), true, 'accents fold, beside a symbol');
});
