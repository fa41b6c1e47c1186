// Issue 22, the model's points: timestamps that are not strings or numbers (26, Part B §20), a
// header version 0 or null (27, §21), numeric ids and a v1 compaction with both kept-entry
// fields (28, §23), wrongly typed fields (30, Part C §11). The eager model and the lazy index
// answer alike wherever the file is in the lazy scope.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSessionFile, loadSessionFromText } from '../../src/core/formats/xcsh/load';
import { sessionDocumentFromText } from '../reference/document';
import { rewriteSessionFile } from '../../src/core/store/rewrite';
import { XcshModel } from '../reference/xcshModel';
import { buildLazyIndex } from '../../src/core/engine/xcsh/lazy/lazyIndex';
import { BlobStore } from '../../src/core/formats/xcsh/blobs';
import { assertTextParity, oldSessionFile } from '../helpers/modelParity';

const tmp = () => mkdtempSync(join(tmpdir(), 'loom-odd-'));
const H3 = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}';
const rec = (o: Record<string, unknown>) => JSON.stringify({ timestamp: '2026-01-01T00:00:00Z', ...o });
const user = (id: unknown, parentId: unknown, text = 'x') => rec({ type: 'message', id, parentId, message: { role: 'user', content: text } });

const oldFile = (text: string): string => oldSessionFile(text, 'loom-odd-');
const assertParity = async (text: string): Promise<void> => void (await assertTextParity(text));

// ---- point 26: timestamps -----------------------------------------------------------------------

test('issue 22 §26 (Part B §20): an entry timestamp of null, true or [1] is coerced as JavaScript does (new Date(x).getTime()) in the message it makes', async () => {
  for (const [ts, ms] of [
    [null, 0],
    [true, 1],
    [[1], new Date([1] as unknown as string).getTime()],
    [{}, NaN],
  ] as const) {
    const text = [
      H3,
      user('aaaaaaaa', null),
      JSON.stringify({ type: 'custom_message', id: 'bbbbbbbb', parentId: 'aaaaaaaa', timestamp: ts, customType: 'n', content: 'c', display: true }),
      JSON.stringify({ type: 'branch_summary', id: 'cccccccc', parentId: 'bbbbbbbb', timestamp: ts, fromId: 'aaaaaaaa', summary: 's' }),
      JSON.stringify({ type: 'compaction', id: 'dddddddd', parentId: 'cccccccc', timestamp: ts, summary: 'so far', tokensBefore: 5, firstKeptEntryId: 'bbbbbbbb' }),
      '',
    ].join('\n');
    const ctx = sessionDocumentFromText(text).context();
    assert.deepEqual(
      ctx.messages.map((m) => [m.role, m.timestamp]),
      [
        ['compactionSummary', ms],
        ['custom', ms],
        ['branchSummary', ms],
      ],
      JSON.stringify(ts),
    );
    await assertParity(text);
  }
});

// ---- point 27: header version 0 / null --------------------------------------------------------

test('issue 22 §27 (Part B §21): a header version of 0 or null is read as v1: ids assigned, a linear chain, writable, and `migrate` writes version 3', async () => {
  const branched = [user(undefined, undefined, 'a'), user(undefined, undefined, 'b'), user(undefined, undefined, 'c')].join('\n');
  for (const v of ['0', 'null']) {
    const text = `{"type":"session","version":${v},"id":"s"}\n${branched}\n`;
    const l = loadSessionFromText(text);
    assert.equal(l.originalVersion, 1, `version ${v}`);
    assert.equal(l.readOnlyReason, null, `version ${v} is writable`);
    assert.equal(l.migration.idsAssigned, 3);
    assert.deepEqual(l.entries.map((e) => e.parentId), [null, l.entries[0]!.id, l.entries[1]!.id]);
    assert.ok(l.diagnostics.some((d) => d.kind === 'invalid-version' && /read as version 1/.test(d.message)));
    const p = oldFile(text);
    const loaded = await loadSessionFile(p);
    await rewriteSessionFile(p, loaded, { expected: loaded.stat!, force: true });
    const after = await loadSessionFile(p);
    assert.equal(JSON.parse(readFileSync(p, 'utf8').split('\n')[0]!).version, 3);
    assert.deepEqual(after.entries, l.entries, 'the ids and links the viewer showed');
  }
  // a dsh header (version 0 with an integer createdAt) is still a dsh log, never migrated
  const dsh = loadSessionFromText('{"type":"session","version":0,"id":"d","createdAt":1785498791421,"cwd":"/w"}\n');
  assert.match(dsh.readOnlyReason ?? '', /deepseek-harness/);
});

// ---- point 28: numeric ids, and a v1 compaction with both kept-entry fields --------------------

test('issue 22 §28 (Part B §23, as the agent\'s Map): a numeric id links the children whose parentId is the same number (not the string "5"); the entry keeps a made id', async () => {
  const text = [
    H3,
    user(5, null, 'five'),
    rec({ type: 'message', id: 'bbbbbbbb', parentId: 5, message: { role: 'assistant', content: [{ type: 'text', text: 'b' }], provider: 'p', model: 'm' } }),
    user('cccccccc', 'bbbbbbbb'),
    user('dddddddd', '5'),
    '',
  ].join('\n');
  const doc = sessionDocumentFromText(text);
  const made = doc.loaded.entries[0]!.id;
  assert.equal(doc.loaded.syntheticIds?.has(made), true);
  assert.equal(doc.loaded.entries[1]!.parentId, made);
  assert.equal(doc.context('cccccccc').messages.length, 3, 'the chain reaches the numeric-id root');
  assert.deepEqual(doc.diagnostics.filter((d) => d.kind === 'missing-parent').map((d) => d.line), [5], 'the string "5" names no entry');
  // the engine reads such a file through the loader (its made ids depend on the whole file)
  const p = oldFile(text);
  assert.notEqual((await buildLazyIndex(p)).reshape, null);
  // and a tail that names the number is linked as a full read links it
  const m = await XcshModel.open(p);
  appendFileSync(p, `${user('eeeeeeee', 5, 'late child')}\n`);
  await m.refresh();
  const fresh = await XcshModel.open(p);
  assert.deepEqual(await m.context('eeeeeeee'), { ...(await fresh.context('eeeeeeee')), revision: (await m.context('eeeeeeee')).revision });
  assert.equal((await fresh.context('eeeeeeee')).messageCount, 2);
});

test('issue 22 §28 (Part B §23): a v1 compaction with both firstKeptEntryIndex and firstKeptEntryId keeps from the entry the index names, and `migrate` writes that id', async () => {
  const v1 = (o: Record<string, unknown>) => rec(o);
  const text = [
    '{"type":"session","id":"s"}',
    v1({ type: 'message', message: { role: 'user', content: 'a' } }),
    v1({ type: 'message', message: { role: 'user', content: 'b' } }),
    v1({ type: 'message', message: { role: 'user', content: 'c' } }),
    v1({ type: 'compaction', summary: 'so far', tokensBefore: 5, firstKeptEntryIndex: 2, firstKeptEntryId: 'zzzzzzzz' }),
    '',
  ].join('\n');
  const doc = sessionDocumentFromText(text);
  const ids = doc.loaded.entries.map((e) => e.id);
  const ctx = doc.context();
  assert.equal(ctx.compaction?.firstKeptEntryId, ids[1], 'index 2 names the second entry (the header is index 0)');
  assert.deepEqual(ctx.messageSources, [ids[3], ids[1], ids[2]]);
  assert.deepEqual(doc.diagnostics.filter((d) => d.kind === 'unresolved-compaction'), []);
  const p = oldFile(text);
  const l = await loadSessionFile(p);
  await rewriteSessionFile(p, l, { expected: l.stat!, force: true });
  const written = JSON.parse(readFileSync(p, 'utf8').split('\n')[4]!) as Record<string, unknown>;
  assert.equal(written.firstKeptEntryId, ids[1]);
  assert.deepEqual((await loadSessionFile(p)).entries, l.entries);
});

// ---- point 30: wrongly typed fields -------------------------------------------------------------

test('issue 22 §30 (Part C §11): wrongly typed fields are ignored with an invalid-field diagnostic — a thinking level of true is not read as "off", a mode_change without a mode changes nothing', async () => {
  const text = [
    H3,
    rec({ type: 'thinking_level_change', id: 't1', parentId: null, thinkingLevel: 'high' }),
    rec({ type: 'mode_change', id: 'm1', parentId: 't1', mode: 'plan', data: { step: 1 } }),
    rec({ type: 'thinking_level_change', id: 't2', parentId: 'm1', thinkingLevel: true }),
    rec({ type: 'mode_change', id: 'm2', parentId: 't2', data: { step: 2 } }),
    rec({ type: 'model_change', id: 'mc', parentId: 'm2', model: 7, role: 'default' }),
    rec({ type: 'model_change', id: 'mr', parentId: 'mc', model: 'p/m', role: 3 }),
    rec({ type: 'ttsr_injection', id: 'tr', parentId: 'mr', injectedRules: ['r1', 5] }),
    rec({ type: 'ttsr_injection', id: 'tn', parentId: 'tr', injectedRules: 'r2' }),
    rec({ type: 'message', id: 'a1', parentId: 'tn', message: { role: 'assistant', content: [], provider: 'p' } }),
    rec({ type: 'message', id: 'u1', parentId: 'a1', message: { role: 9, content: 'x' } }),
    '',
  ].join('\n');
  const doc = sessionDocumentFromText(text);
  const ctx = doc.context();
  assert.equal(ctx.thinkingLevel, 'high');
  assert.equal(ctx.mode, 'plan');
  assert.deepEqual(ctx.modeData, { step: 1 });
  assert.deepEqual(ctx.models, { default: 'p/m' });
  assert.deepEqual(ctx.injectedTtsrRules, ['r1']);
  const bad = doc.diagnostics.filter((d) => d.kind === 'invalid-field');
  assert.deepEqual(
    bad.map((d) => [d.line, d.entryId]),
    [
      [4, 't2'],
      [5, 'm2'],
      [6, 'mc'],
      [7, 'mr'],
      [8, 'tr'],
      [9, 'tn'],
      [10, 'a1'],
      [11, 'u1'],
    ],
  );
  assert.match(bad[0]!.message, /"thinkingLevel" is the boolean true, not a string/);
  await assertParity(text);
  // a file whose fields are all right has none
  assert.deepEqual(sessionDocumentFromText(`${H3}\n${user('aaaaaaaa', null)}\n`).diagnostics, []);
});

// ---- point 25: blob references outside image blocks ---------------------------------------------

test('issue 22 §25 (Part B §19): blob references the agent resolves wherever they stand — an image_url in a user providerPayload, in a remote compaction\'s replacementHistory, an image block in any nested field — are checked like those in content', async () => {
  const h = (c: string) => c.repeat(64);
  const text = [
    H3,
    rec({ type: 'message', id: 'aaaaaaaa', parentId: null, message: { role: 'user', content: [{ type: 'image', data: `blob:sha256:${h('1')}`, mimeType: 'image/png' }], providerPayload: { type: 'openaiResponsesHistory', items: [{ type: 'input_image', image_url: `blob:sha256:${h('2')}` }] } } }),
    rec({ type: 'compaction', id: 'bbbbbbbb', parentId: 'aaaaaaaa', summary: 's', tokensBefore: 1, preserveData: { openaiRemoteCompaction: { provider: 'openai', replacementHistory: [{ role: 'user', content: [{ type: 'input_image', image_url: `blob:sha256:${h('3')}` }] }] } } }),
    rec({ type: 'custom', id: 'cccccccc', parentId: 'bbbbbbbb', customType: 'x', data: { nested: [{ type: 'image', data: `blob:sha256:${h('4')}` }, { image_url: { url: `blob:sha256:${h('5')}` } }, { image_url: 'blob:sha256:NOT-HEX' }] } }),
    '',
  ].join('\n');
  const p = oldFile(text);
  const l = await loadSessionFile(p, { blobs: new BlobStore(tmp()) });
  assert.deepEqual(
    l.diagnostics.filter((d) => d.kind.endsWith('blob') || d.kind === 'invalid-blob-ref').map((d) => [d.line, d.kind, d.entryId, /blob ([0-9a-f])\1{63}/.exec(d.message)?.[1] ?? null]),
    [
      [2, 'missing-blob', 'aaaaaaaa', '1'],
      [2, 'missing-blob', 'aaaaaaaa', '2'],
      [3, 'missing-blob', 'bbbbbbbb', '3'],
      [4, 'missing-blob', 'cccccccc', '4'],
      [4, 'missing-blob', 'cccccccc', '5'],
      [4, 'invalid-blob-ref', 'cccccccc', null],
    ],
  );
});
