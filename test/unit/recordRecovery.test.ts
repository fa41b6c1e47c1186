// Issue 22, the reader's points: a complete record with more text after it on its line (24), a
// pretty-printed record glued to a neighbour (2), a UTF-8 BOM at the start of a line in the middle
// of a file (3) — each record is read (as the agent reads it), its children are not orphaned, the
// bytes stay verbatim on rewrite, a migration never links an entry past a record the reader could
// not place, and the lazy index answers as the eager model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJsonlLenient, readJsonlFile, type JsonlParseResult } from '../../src/core/formats/xcsh/jsonl';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { openSessionDocument, refreshSessionDocument, sessionDocumentFromText } from '../reference/document';
import { rewriteSessionFile } from '../../src/core/store/rewrite';
import { XcshModel } from '../reference/xcshModel';
import { LazyXcshModel } from '../../src/core/engine/xcsh/lazy/lazyModel';
import { assertTextParity, oldSessionFile } from '../helpers/modelParity';

const tmp = () => mkdtempSync(join(tmpdir(), 'loom-recover-'));
const H3 = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}';
const H1 = '{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}';
const msg = (id: string, parentId: string | null, text = 'x') => JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: text } });
const v1 = (text: string) => JSON.stringify({ type: 'message', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: text } });
const pretty = (id: string, parentId: string | null, text = 'p') => JSON.stringify({ type: 'message', id, parentId, message: { role: 'assistant', content: [{ type: 'text', text }], provider: 'p', model: 'm' } }, null, 2);
const kinds = (r: { diagnostics: { line: number; kind: string }[] }) => r.diagnostics.map((d) => [d.line, d.kind]);
const slices = (text: string, r: JsonlParseResult) => {
  const buf = Buffer.from(text);
  return { records: r.records.map((x) => [x.line, buf.toString('utf8', x.start, x.end)]), unparsed: r.unparsed.map((u) => [u.line, buf.toString('utf8', u.start, u.end)]) };
};

const oldFile = (text: string): string => oldSessionFile(text, 'loom-recover-');

/** The eager and the lazy model of a v3 text: they give the same answers. */
async function assertParity(text: string): Promise<void> {
  const p = await assertTextParity(text);
  // (and the streaming reader gives what the in-memory one gives)
  assert.deepEqual(await readJsonlFile(p), parseJsonlLenient(text));
}

/** No orphan, no missing parent: every entry's parent chain reaches the root. */
function assertNoOrphans(text: string, messages: number): void {
  const doc = sessionDocumentFromText(text);
  assert.deepEqual(doc.diagnostics.filter((d) => d.kind === 'missing-parent'), [], 'no orphan');
  assert.equal(doc.context().messages.length, messages, 'the whole chain is in the context');
}

// ---- point 24: a complete record followed by more text on its line ---------------------------

test('issue 22 §24 (Part B §18, as the agent): a complete record followed by more text on its line (` xyz`, `,`, `}`, ` 7`, ` null`) is read; the text after it is a trailing-text diagnostic and kept verbatim', async () => {
  for (const rest of [' xyz', ',', '}', ' 7', ' null', '  ]  ']) {
    const b = msg('bbbbbbbb', 'aaaaaaaa');
    const text = `${H3}\n${msg('aaaaaaaa', null)}\n${b}${rest}\n${msg('cccccccc', 'bbbbbbbb')}\n`;
    const r = parseJsonlLenient(text);
    assert.deepEqual(slices(text, r).records.slice(2), [[3, b], [4, msg('cccccccc', 'bbbbbbbb')]], rest);
    assert.deepEqual(slices(text, r).unparsed, [[3, rest.trim()]], rest);
    assert.deepEqual(kinds(r), [[3, 'trailing-text']], rest);
    assertNoOrphans(text, 3);
    await assertParity(text);
  }
});

test('issue 22 §24: a glued pair followed by trailing text keeps both records; a rewrite keeps the trailing text in place', async () => {
  const a = msg('aaaaaaaa', null);
  const b = msg('bbbbbbbb', 'aaaaaaaa');
  const text = `{"type":"session","version":2,"id":"s"}\n${a}${b} trailing\n${msg('cccccccc', 'bbbbbbbb')}\n`;
  const r = parseJsonlLenient(text);
  assert.deepEqual(slices(text, r).records.slice(1, 3), [[2, a], [2, b]]);
  assert.deepEqual(kinds(r), [[2, 'glued-records'], [2, 'trailing-text']]);
  const p = oldFile(text);
  const l = await loadSessionFile(p);
  assert.equal(l.entries.length, 3);
  await rewriteSessionFile(p, l, { expected: l.stat!, force: true });
  assert.equal(readFileSync(p, 'utf8'), text.replace('"version":2', '"version":3').replace(`${a}${b} trailing`, `${a}\n${b} trailing`));
});

// ---- point 2: a pretty-printed record glued to a neighbour ------------------------------------

const GLUED_PRETTY: Record<string, { text: string; lines: [number, string][] }> = (() => {
  const a = msg('aaaaaaaa', null);
  const pb = pretty('bbbbbbbb', 'aaaaaaaa');
  const c = msg('cccccccc', 'bbbbbbbb');
  const pc = pretty('cccccccc', 'bbbbbbbb');
  const nb = pb.split('\n').length;
  return {
    // a one-line record, then the next (pretty-printed) record's opening `{` on the same line
    'a record glued to the opening `{` of a pretty-printed one': { text: `${H3}\n${a}${pb}\n${c}\n`, lines: [[2, a], [2, pb], [2 + nb, c]] },
    // a pretty-printed record, the next record glued to its closing `}`
    '`}{…}` on the last line of a pretty-printed record': { text: `${H3}\n${a}\n${pb}${c}\n${msg('dddddddd', 'cccccccc')}\n`, lines: [[2, a], [3, pb], [2 + nb, c], [3 + nb, msg('dddddddd', 'cccccccc')]] },
    // two pretty-printed records, the second's `{` glued to the first's `}`
    '`}{` joining two pretty-printed records': { text: `${H3}\n${a}\n${pb}${pc}\n${msg('dddddddd', 'cccccccc')}\n`, lines: [[2, a], [3, pb], [2 + nb, pc], [2 + 2 * nb, msg('dddddddd', 'cccccccc')]] },
  };
})();

for (const [name, { text, lines }] of Object.entries(GLUED_PRETTY)) {
  test(`issue 22 §2: ${name}: both records are read with their exact bytes, nothing is orphaned, and the lazy index agrees`, async () => {
    for (const eol of ['\n', '\r\n']) {
      const t = text.split('\n').join(eol);
      const r = parseJsonlLenient(t);
      assert.deepEqual(slices(t, r).records.slice(1), lines.map(([l, s]) => [l, s.split('\n').join(eol)]), eol);
      assert.deepEqual(r.unparsed, []);
      assert.ok(kinds(r).every(([, k]) => k === 'glued-records' || k === 'multi-line-record'), JSON.stringify(kinds(r)));
      assertNoOrphans(t, lines.length);
      await assertParity(t);
    }
  });
}

test('issue 22 §2 (Part B §18 for a record over several lines): text after the closing `}` of a pretty-printed record is a trailing-text diagnostic; the record is read', () => {
  const pb = pretty('bbbbbbbb', 'aaaaaaaa');
  const text = `${H3}\n${msg('aaaaaaaa', null)}\n${pb} xyz\n${msg('cccccccc', 'bbbbbbbb')}\n`;
  const r = parseJsonlLenient(text);
  const nb = pb.split('\n').length;
  assert.deepEqual(slices(text, r).records.slice(2), [[3, pb], [3 + nb, msg('cccccccc', 'bbbbbbbb')]]);
  assert.deepEqual(slices(text, r).unparsed, [[2 + nb, 'xyz']]);
  assert.deepEqual(kinds(r), [[3, 'multi-line-record'], [2 + nb, 'trailing-text']]);
  assertNoOrphans(text, 3);
});

test('issue 22 §2: a glued `{` that opens no record (the join never closes) is reported as before: the lines after it are read one by one', () => {
  const a = msg('aaaaaaaa', null);
  const text = `${H3}\n${a}{\n  "type": "message",\n${msg('cccccccc', 'aaaaaaaa')}\n`;
  const r = parseJsonlLenient(text);
  assert.deepEqual(slices(text, r).records.slice(1), [[2, a], [4, msg('cccccccc', 'aaaaaaaa')]]);
  assert.deepEqual(slices(text, r).unparsed, [[2, '{'], [3, '  "type": "message",']]);
  assert.deepEqual(kinds(r), [[2, 'glued-records'], [2, 'torn-record'], [3, 'invalid-json']]);
});

test('issue 22 §2: `migrate` of a v1 file with a pretty-printed record glued to its neighbours keeps every record in its chain', async () => {
  const prettyV1 = JSON.stringify({ type: 'message', timestamp: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: [{ type: 'text', text: 'p' }], provider: 'p', model: 'm' } }, null, 2);
  const text = `${H1}\n${v1('a')}${prettyV1}${v1('c')}\n${v1('d')}\n`;
  const p = oldFile(text);
  const l = await loadSessionFile(p);
  assert.equal(l.readOnlyReason, null);
  assert.equal(l.entries.length, 4);
  await rewriteSessionFile(p, l, { expected: l.stat!, force: true });
  const after = await loadSessionFile(p);
  assert.equal(after.originalVersion, 3);
  assert.deepEqual(after.entries.map((e) => e.id), l.entries.map((e) => e.id), 'the ids the viewer showed');
  let prev: string | null = null;
  for (const e of after.entries) {
    assert.equal(e.parentId, prev, 'a linear chain through every record');
    prev = e.id;
  }
  assert.deepEqual(after.diagnostics.filter((d) => d.kind === 'missing-parent' || d.kind === 'invalid-json'), []);
});

test('issue 22 §2/§3 (Part C §7, §10): a v1 file with a record the reader cannot place before other entries is not migrated: a rewrite would link the entries after it past it', async () => {
  const bad = '{"type":"message","message":{"role":"user","content":"bad \\x escape"}}';
  const p = oldFile(`${H1}\n${v1('a')}\n${bad}\n${v1('c')}\n`);
  const before = readFileSync(p);
  const l = await loadSessionFile(p);
  assert.match(l.readOnlyReason ?? '', /line 3/);
  await assert.rejects(rewriteSessionFile(p, l, { expected: l.stat!, force: true }), /line 3/);
  assert.deepEqual(readFileSync(p), before);
  // a torn last line (nothing after it) does not stop a migration
  const q = oldFile(`${H1}\n${v1('a')}\n${v1('c')}\n{"type":"mess`);
  assert.equal((await loadSessionFile(q)).readOnlyReason, null);
});

// ---- point 3: a UTF-8 BOM at the start of a line in the middle of a file ----------------------

test('issue 22 §3: a line starting with a UTF-8 BOM in the middle of a file (`cat a.jsonl b.jsonl`) is read; the BOM is a diagnostic and kept verbatim on rewrite', async () => {
  const b = msg('bbbbbbbb', 'aaaaaaaa');
  const text = `${H3}\n${msg('aaaaaaaa', null)}\n\ufeff${b}\n${msg('cccccccc', 'bbbbbbbb')}\n`;
  const r = parseJsonlLenient(text);
  assert.deepEqual(slices(text, r).records.slice(2), [[3, b], [4, msg('cccccccc', 'bbbbbbbb')]]);
  assert.deepEqual(kinds(r), [[3, 'bom']]);
  assert.equal(r.bom, false, '`bom` is about line 1');
  assertNoOrphans(text, 3);
  await assertParity(text);
  await assertParity(text.replace(`\ufeff${b}`, `\ufeff${b}${msg('dddddddd', 'bbbbbbbb')}`));
});

test('issue 22 §3: `migrate` of a v1 file with a BOM-prefixed line keeps the record in its chain and the BOM bytes in place', async () => {
  const text = `\ufeff${H1}\n${v1('a')}\n\ufeff${v1('b')}\n${v1('c')}\n`;
  const p = oldFile(text);
  const l = await loadSessionFile(p);
  assert.equal(l.readOnlyReason, null);
  assert.equal(l.entries.length, 3);
  await rewriteSessionFile(p, l, { expected: l.stat!, force: true });
  const out = readFileSync(p, 'utf8');
  assert.equal(out.split('\n')[2]!.charCodeAt(0), 0xfeff, 'the BOM stays');
  const after = await loadSessionFile(p);
  assert.deepEqual(after.entries.map((e) => [e.id, e.parentId]), [
    [l.entries[0]!.id, null],
    [l.entries[1]!.id, l.entries[0]!.id],
    [l.entries[2]!.id, l.entries[1]!.id],
  ]);
});

test('issue 22 §2: a live file cut anywhere inside records glued to a pretty-printed one, then grown, is read by tail reads exactly as a full read (eager document and lazy index)', async () => {
  const text = `${H3}\n${msg('aaaaaaaa', null)}${pretty('bbbbbbbb', 'aaaaaaaa')}${pretty('cccccccc', 'bbbbbbbb')}${msg('dddddddd', 'cccccccc')}\n${msg('eeeeeeee', 'dddddddd')}\n`;
  const bytes = Buffer.from(text);
  const dir = tmp();
  const from = H3.length + 1;
  for (let cut = from; cut < bytes.length; cut += 7) {
    const p = join(dir, `live-${cut}.jsonl`);
    writeFileSync(p, bytes.subarray(0, cut));
    const doc = await openSessionDocument(p);
    const lazy = await LazyXcshModel.open(p);
    assert.ok(lazy);
    appendFileSync(p, bytes.subarray(cut));
    await refreshSessionDocument(doc);
    await lazy.refresh();
    const full = await openSessionDocument(p);
    assert.deepEqual(doc.loaded.entries, full.loaded.entries, `cut at ${cut}`);
    assert.deepEqual(doc.diagnostics, full.diagnostics, `cut at ${cut}`);
    assert.equal(full.loaded.entries.length, 5);
    const eager = await XcshModel.open(p, {}, (await lazy.summary()).revision);
    assert.deepEqual(await lazy.summary(), await eager.summary(), `lazy at cut ${cut}`);
    assert.deepEqual(await lazy.context(null), await eager.context(null), `lazy context at cut ${cut}`);
  }
});
