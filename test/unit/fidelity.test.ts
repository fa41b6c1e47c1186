// What the model sees, as the real agent builds it (spec Part B §14–16, Part C §11), and the
// header version rules (issue 15 §6, §7, §20). Each test names the rule it checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadSessionFromText } from '../../src/core/formats/xcsh/load';
import { sessionDocumentFromText } from '../reference/document';
import { readHeaderVersion, versionWriteRefusal } from '../../src/core/formats/xcsh/version';
import { fixture } from '../helpers/fixtures';

const H3 = '{"type":"session","version":3,"id":"s","cwd":"/w","timestamp":"2026-01-01T00:00:00.000Z"}';
const line = (o: unknown): string => JSON.stringify(o);
const text = (...records: unknown[]): string => [H3, ...records.map(line)].join('\n') + '\n';

test('Part B §14: custom_message context messages carry attribution and details when the entry has them', () => {
  const doc = sessionDocumentFromText(
    text(
      { type: 'custom_message', id: 'a1', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', customType: 'note', content: 'hi', display: true, details: { k: 1 }, attribution: 'agent' },
      { type: 'custom_message', id: 'a2', parentId: 'a1', timestamp: '2026-01-01T00:00:02.000Z', customType: 'note', content: 'plain', display: false },
    ),
  );
  const [withBoth, plain] = doc.context().messages;
  assert.deepEqual(withBoth, { role: 'custom', customType: 'note', content: 'hi', display: true, details: { k: 1 }, attribution: 'agent', timestamp: Date.parse('2026-01-01T00:00:01.000Z') });
  // absent fields are absent, not present-and-undefined
  assert.deepEqual(Object.keys(plain!).sort(), ['content', 'customType', 'display', 'role', 'timestamp']);
});

test('Part B §14: the real gjc fixtures keep attribution on their custom messages', () => {
  const raw = readFileSync(fixture('real-v3', 'gjc-01-youtube-transcript-extraction.jsonl'), 'utf8');
  const withAttribution = raw.split('\n').filter((l) => l.includes('"custom_message"') && l.includes('"attribution"')).length;
  assert.ok(withAttribution > 0, 'the fixture has custom_message entries with attribution');
  const doc = sessionDocumentFromText(raw);
  const customs = doc.context().messages.filter((m) => m.role === 'custom');
  assert.ok(customs.length > 0);
  for (const m of customs) assert.ok('attribution' in m, 'every custom message of the fixture carries attribution');
});

test('Part B §14: a numeric entry timestamp is taken as epoch ms (upstream: new Date(x).getTime())', () => {
  const doc = sessionDocumentFromText(
    text(
      { type: 'custom_message', id: 'a1', parentId: null, timestamp: 1760000000123, customType: 'n', content: 'x', display: true },
      { type: 'branch_summary', id: 'a2', parentId: 'a1', timestamp: 1760000000456, fromId: 'a1', summary: 'went elsewhere' },
      { type: 'compaction', id: 'a3', parentId: 'a2', timestamp: 1760000000789, summary: 'sum', firstKeptEntryId: 'a2', tokensBefore: 9 },
    ),
  );
  const ms = doc.context().messages.map((m) => m.timestamp);
  assert.deepEqual(ms, [1760000000789, 1760000000456]);
  const first = sessionDocumentFromText(text({ type: 'custom_message', id: 'a1', parentId: null, timestamp: 1760000000123, customType: 'n', content: 'x', display: true }));
  assert.equal(first.context().messages[0]!.timestamp, 1760000000123);
});

test('Part B §15: on load an openaiResponsesHistory assistant loses providerPayload and thinking signatures (the file keeps them)', () => {
  const assistant = {
    role: 'assistant',
    provider: 'openai',
    model: 'gpt-5',
    providerPayload: { type: 'openaiResponsesHistory', items: [{ id: 'rs_1' }] },
    content: [
      { type: 'thinking', thinking: 'hmm', thinkingSignature: 'sig' },
      { type: 'text', text: 'done' },
    ],
  };
  const other = { role: 'assistant', provider: 'anthropic', model: 'c', providerPayload: { type: 'somethingElse' }, content: [{ type: 'thinking', thinking: 'x', thinkingSignature: 'keep' }] };
  const src = text({ type: 'message', id: 'a1', parentId: null, message: assistant }, { type: 'message', id: 'a2', parentId: 'a1', message: other });
  const loaded = loadSessionFromText(src);
  const m = (loaded.entries[0] as unknown as { message: Record<string, unknown> }).message;
  assert.equal('providerPayload' in m, false);
  assert.deepEqual(m.content, [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'done' }]);
  // only that payload type: others keep everything
  assert.deepEqual((loaded.entries[1] as unknown as { message: unknown }).message, other);
  // in memory only: not a change a rewrite would write
  assert.equal(loaded.changed, null);
  const ctx = sessionDocumentFromText(src).context();
  assert.equal('providerPayload' in ctx.messages[0]!, false);
});

test('Part B §16: a remote compaction emits the summary with providerPayload and no kept messages before it', () => {
  const user = (id: string, parentId: string | null, t: string) => ({ type: 'message', id, parentId, message: { role: 'user', content: t } });
  const history = [{ type: 'message', role: 'user', content: 'compacted' }];
  const doc = sessionDocumentFromText(
    text(
      user('u1', null, 'one'),
      user('u2', 'u1', 'two'),
      { type: 'compaction', id: 'c1', parentId: 'u2', timestamp: '2026-01-01T00:00:03.000Z', summary: 'S', firstKeptEntryId: 'u2', tokensBefore: 5, preserveData: { openaiRemoteCompaction: { provider: 'openai', replacementHistory: history } } },
      user('u3', 'c1', 'three'),
    ),
  );
  const ctx = doc.context();
  assert.deepEqual(
    ctx.messages.map((m) => m.role),
    ['compactionSummary', 'user'],
  );
  assert.deepEqual(ctx.messages[0]!.providerPayload, { type: 'openaiResponsesHistory', provider: 'openai', items: history });
  assert.deepEqual(ctx.messageSources, ['c1', 'u3']);
  assert.deepEqual(ctx.cutEntryIds, ['u1', 'u2']);
  assert.equal(ctx.compaction?.remote, true);
});

test('Part B §16: without a provider string or an array history the compaction is a plain one (kept messages emitted)', () => {
  for (const bad of [{ provider: '', replacementHistory: [] }, { provider: 'openai', replacementHistory: 'x' }, { replacementHistory: [] }]) {
    const doc = sessionDocumentFromText(
      text(
        { type: 'message', id: 'u1', parentId: null, message: { role: 'user', content: 'one' } },
        { type: 'message', id: 'u2', parentId: 'u1', message: { role: 'user', content: 'two' } },
        { type: 'compaction', id: 'c1', parentId: 'u2', summary: 'S', firstKeptEntryId: 'u2', tokensBefore: 5, preserveData: { openaiRemoteCompaction: bad } },
      ),
    );
    const ctx = doc.context();
    assert.deepEqual(ctx.messageSources, ['c1', 'u2']);
    assert.equal('providerPayload' in ctx.messages[0]!, false);
    assert.equal(ctx.compaction?.remote, false);
  }
});

test('Part C §11: a header version that is a numeric string is read as that number, with a diagnostic, read-only', () => {
  const l = loadSessionFromText('{"type":"session","version":"2","id":"s"}\n{"type":"message","id":"aaaaaaaa","parentId":null,"message":{"role":"hookMessage","content":"x"}}\n');
  assert.equal(l.originalVersion, 2);
  assert.equal(l.migration.rolesRewritten, 1, 'read as v2: the v2→v3 role rename applies in memory');
  assert.ok(l.diagnostics.some((d) => d.kind === 'invalid-version' && d.line === 1));
  assert.match(l.readOnlyReason ?? '', /string "2"/);
});

test('issue 15 §6: a version that is not exactly 1, 2, 3 or absent (nor 0 / null, read as v1: issue 22 §27) is never writable and never migrated as v1', () => {
  const branched = '{"type":"message","id":"aaaaaaaa","parentId":null,"message":{"role":"user","content":"a"}}\n{"type":"message","id":"bbbbbbbb","parentId":"aaaaaaaa","message":{"role":"user","content":"b"}}\n{"type":"message","id":"cccccccc","parentId":"aaaaaaaa","message":{"role":"user","content":"c"}}\n';
  for (const v of ['1e400', '"4"', '"three"', '[3]', '4', '3.5', '-1']) {
    const l = loadSessionFromText(`{"type":"session","version":${v},"id":"s"}\n${branched}`);
    assert.notEqual(l.readOnlyReason, null, `version ${v} is read-only`);
    assert.equal(l.migration.idsAssigned + l.migration.parentsLinked, 0, `version ${v} is not migrated as v1`);
    assert.equal((l.entries[2] as { parentId?: unknown }).parentId, 'aaaaaaaa', `version ${v}: the branch stays a branch`);
  }
  for (const v of ['1', '2', '3']) assert.equal(loadSessionFromText(`{"type":"session","version":${v},"id":"s"}\n`).readOnlyReason, null, `version ${v} is writable`);
  assert.equal(loadSessionFromText('{"type":"session","id":"s"}\n').readOnlyReason, null, 'absent (v1) is writable');
});

test('version rules: readHeaderVersion / versionWriteRefusal', () => {
  assert.deepEqual(readHeaderVersion({}), { version: 1, note: null, writable: true });
  assert.deepEqual(readHeaderVersion({ version: 3 }), { version: 3, note: null, writable: true });
  assert.equal(readHeaderVersion({ version: Infinity }).writable, false);
  assert.ok(Number.isNaN(readHeaderVersion({ version: Infinity }).version));
  assert.equal(readHeaderVersion({ version: '3' }).version, 3);
  assert.equal(readHeaderVersion({ version: '3' }).writable, false);
  assert.equal(versionWriteRefusal({ version: 2 }), null);
  assert.match(versionWriteRefusal({ version: 4 })!, /newer than 3/);
  // Part B §21 (issue 22 §27): 0 and null are read, migrated and written as v1
  assert.equal(versionWriteRefusal({ version: 0 }), null);
  assert.equal(versionWriteRefusal({ version: null }), null);
  assert.equal(readHeaderVersion({ version: null }).version, 1);
  assert.match(versionWriteRefusal({ version: -1 })!, /not 1, 2 or 3/);
  assert.match(versionWriteRefusal({ version: false })!, /not a number/);
});

test('issue 15 §7: a dsh log read through the xcsh loader is recognised, not migrated, and read-only', () => {
  const raw = readFileSync(fixture('dsh', 'dsh-cancel-aborted.session.jsonl'), 'utf8');
  const l = loadSessionFromText(raw);
  assert.equal(l.originalVersion, 0);
  assert.equal(l.migration.idsAssigned, 0);
  assert.equal(l.changed, null);
  assert.match(l.readOnlyReason ?? '', /deepseek-harness \(dsh\)/);
  assert.ok(l.diagnostics.some((d) => d.kind === 'dsh-log'));
});
