import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { escapeForTerminal, escapeLinesForTerminal, jsonForTerminal } from '../../src/cli/terminalText';

/** Every character the terminal must never receive raw from untrusted text. */
const UNSAFE: string[] = [];
for (let c = 0; c <= 0x1f; c++) UNSAFE.push(String.fromCharCode(c));
for (let c = 0x7f; c <= 0x9f; c++) UNSAFE.push(String.fromCharCode(c));
for (const c of [0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) UNSAFE.push(String.fromCharCode(c));
const UNSAFE_RE = new RegExp(`[${UNSAFE.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}]`);

/** Strings rich in the characters that matter, mixed with arbitrary text. */
const hostile = fc.array(fc.oneof(fc.constantFrom(...UNSAFE, '\x1b]0;pwned\x07', '\x1b[2J', '\r\n', '\\'), fc.string({ unit: 'binary', maxLength: 8 })), { maxLength: 12 }).map((parts) => parts.join(''));

test('escapeForTerminal: every C0/C1 control, DEL, U+2028/2029 and bidi override/isolate becomes a visible escape', () => {
  assert.equal(escapeForTerminal('a\x1b]0;pwned\x07b'), 'a\\x1b]0;pwned\\x07b');
  assert.equal(escapeForTerminal('row\r\nforged\ttab'), 'row\\r\\nforged\\ttab');
  assert.equal(escapeForTerminal('\x00\x7f\u0085\u009b'), '\\x00\\x7f\\x85\\x9b');
  assert.equal(escapeForTerminal('\u2028\u2029\u202e\u2066'), '\\u2028\\u2029\\u202e\\u2066');
  for (const c of UNSAFE) assert.doesNotMatch(escapeForTerminal(`x${c}y`), UNSAFE_RE, `U+${c.charCodeAt(0).toString(16)}`);
});

test('escapeForTerminal: ordinary text, backslashes and right-to-left marks stay as they are', () => {
  for (const s of ['plain', 'C:\\Users\\me', 'é 日本語 🙂', 'עברית\u200fmark', '→ ← │ └─']) assert.equal(escapeForTerminal(s), s);
});

test('escapeForTerminal (property): nothing unsafe survives, and escaping twice changes nothing', () => {
  fc.assert(
    fc.property(hostile, (s) => {
      const once = escapeForTerminal(s);
      assert.doesNotMatch(once, UNSAFE_RE);
      assert.equal(escapeForTerminal(once), once);
    }),
  );
});

test('escapeLinesForTerminal keeps the message’s own line feeds and escapes the rest', () => {
  assert.equal(escapeLinesForTerminal('unknown option --x\x1b[2J\nusage: …'), 'unknown option --x\\x1b[2J\nusage: …');
  assert.equal(escapeLinesForTerminal('a\r\nb'), 'a\\r\nb');
});

test('jsonForTerminal (property): JSON.parse gives back the exact value; no raw C1, DEL, separator or bidi character is left', () => {
  fc.assert(
    fc.property(hostile, fc.boolean(), (s, pretty) => {
      const value = { [s]: [s, { s }] };
      const out = jsonForTerminal(JSON.stringify(value, null, pretty ? 2 : undefined));
      assert.deepEqual(JSON.parse(out), value);
      // (pretty JSON has line feeds of its own, between values)
      assert.doesNotMatch(out, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    }),
  );
});
