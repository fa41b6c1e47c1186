import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseJsonlLenient, type JsonlParseResult } from '../../src/core/formats/xcsh/jsonl';
import { sessionDocumentFromText } from '../reference/document';
import { deepLine, junkLines, sessionOf, shapeArb } from '../helpers/damage';
import { loadSessionFile, loadSessionFromText } from '../../src/core/formats/xcsh/load';
import { migrateSession } from '../../src/core/formats/xcsh/migrate';
import { MAX_PERSIST_CHARS, truncateForPersist } from '../../src/core/formats/xcsh/persist';
import { rewriteSessionFile, writeNewSessionFile } from '../../src/core/store/rewrite';
import type { SessionEntry, SessionHeader } from '../../src/core/formats/xcsh/schemas';

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const TYPES = ['message', 'custom', 'label', 'compaction', 'model_change', 'brand_new_type'];

const entryArb = fc.record({
  type: fc.constantFrom(...TYPES),
  timestamp: fc.string(),
  message: fc.record({ role: fc.constantFrom('user', 'assistant', 'hookMessage', 'toolResult'), content: fc.oneof(fc.string(), fc.array(fc.record({ type: fc.constant('text'), text: fc.string() }, { noNullPrototype: true }))) }, { noNullPrototype: true }),
  extra: jsonValue,
}, { requiredKeys: ['type'], noNullPrototype: true });

const headerArb = fc.record({ type: fc.constant('session'), id: fc.string(), version: fc.constantFrom(undefined, 1, 2, 3) }, { noNullPrototype: true }).map((h) => {
  const o: Record<string, unknown> = { type: h.type, id: h.id };
  if (h.version !== undefined) o.version = h.version;
  return o as SessionHeader;
});

test('migrate is idempotent and never mutates its input', () => {
  fc.assert(
    fc.property(headerArb, fc.array(entryArb, { maxLength: 20 }), (header, raw) => {
      const entries = raw as unknown as SessionEntry[];
      const snapshot = structuredClone({ header, entries });
      const once = migrateSession(header, entries);
      assert.deepEqual({ header, entries }, snapshot);
      const twice = migrateSession(once.header, once.entries);
      assert.deepEqual(twice.entries, once.entries);
      assert.deepEqual(twice.header, once.header);
      assert.equal(twice.report.entriesTouched, 0);
      assert.equal(once.header.version, 3);
      if ((header.version ?? 1) < 2) assert.equal(new Set(once.entries.map((e) => e.id)).size, once.entries.length);
    }),
    { numRuns: 200 },
  );
});

test('read(write(entries)) deep-equals entries (prepared for persistence)', () => {
  fc.assert(
    fc.property(fc.array(entryArb, { maxLength: 20 }), (raw) => {
      const header = { type: 'session', version: 3, id: 's' };
      const entries = raw.map((e, i) => ({ ...e, id: `${i}`.padStart(8, '0'), parentId: i === 0 ? null : `${i - 1}`.padStart(8, '0') }));
      const prepared = entries.map((e) => truncateForPersist(e));
      const text = [header, ...prepared].map((x) => JSON.stringify(x)).join('\n') + '\n';
      const l = loadSessionFromText(text);
      assert.deepEqual(l.entries, JSON.parse(JSON.stringify(prepared)));
      assert.equal(l.changed, null);
      assert.equal(l.diagnostics.length, 0);
    }),
    { numRuns: 200 },
  );
});

test('truncation keeps every string within the limit', () => {
  fc.assert(
    fc.property(fc.integer({ min: MAX_PERSIST_CHARS - 2, max: MAX_PERSIST_CHARS + 3 }), fc.constantFrom('a', '😀', 'é'), (n, ch) => {
      const s = ch.repeat(Math.ceil(n / ch.length)).slice(0, n);
      const out = truncateForPersist({ s }).s;
      assert.ok(out.length <= MAX_PERSIST_CHARS);
      if (s.length <= MAX_PERSIST_CHARS) assert.equal(out, s);
    }),
    { numRuns: 30 },
  );
});

const nastyBytes = fc
  .array(fc.oneof(fc.constantFrom('{', '}', '\n', '\r', '"', '\\', '\ufeff', '[', ']', ':', ',', '{"type":"session","id":"x"}', '{"a":1}', '😀', 'é', ' '), fc.string()), { maxLength: 60 })
  .map((parts) => parts.join(''));

/**
 * No byte lost (issue 15): every byte is in exactly one record (or the title line), or in exactly
 * one unparsed range, or is whitespace or the BOM — so a rewrite that copies what lies between
 * records keeps it, and a diagnostic names it.
 */
function assertEveryByteAccounted(buf: Buffer, r: JsonlParseResult): void {
  const owner = new Uint8Array(buf.length);
  const claim = (start: number, end: number, what: string): void => {
    assert.ok(start >= 0 && start <= end && end <= buf.length, `${what} [${start}, ${end}) out of bounds`);
    for (let i = start; i < end; i++) {
      assert.equal(owner[i], 0, `byte ${i} claimed twice (${what})`);
      owner[i] = 1;
    }
  };
  for (const rec of r.records) claim(rec.start, rec.end, `record line ${rec.line}`);
  if (r.title) claim(r.title.start, r.title.end, 'title');
  for (const u of r.unparsed) claim(u.start, u.end, `unparsed line ${u.line}`);
  // A BOM at the start of a later line (files joined end to end, issue 22 §3) is reported as one.
  const bomLines = new Set(r.diagnostics.filter((d) => d.kind === 'bom').map((d) => d.line));
  for (let i = 0, line = 1; i < buf.length; i++) {
    if (i === 0 || buf[i - 1] === 0x0a) {
      if (i > 0) line++;
      if (bomLines.has(line) && buf[i] === 0xef && buf[i + 1] === 0xbb && buf[i + 2] === 0xbf) claim(i, i + 3, `BOM line ${line}`);
    }
  }
  for (let i = 0; i < buf.length; i++) {
    if (owner[i]) continue;
    const c = buf[i];
    assert.ok(c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a, `byte ${i} (${c}) is in no record and no unparsed range`);
  }
  for (let k = 1; k < r.unparsed.length; k++) assert.ok(r.unparsed[k - 1]!.start < r.unparsed[k]!.start, 'unparsed ranges are in file order');
}

test('the parser and loader never throw on arbitrary input, and lose no byte of it', () => {
  fc.assert(
    fc.property(fc.oneof(nastyBytes, fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b))), (input) => {
      const r = parseJsonlLenient(input);
      const buf = typeof input === 'string' ? Buffer.from(input) : input;
      for (const rec of r.records) {
        assert.ok(rec.start >= 0 && rec.end <= buf.length && rec.start <= rec.end);
        assert.deepEqual(JSON.parse(buf.toString('utf8', rec.start, rec.end)), rec.value);
      }
      assertEveryByteAccounted(buf, r);
      loadSessionFromText(input);
    }),
    { numRuns: 1000 },
  );
});

const READER_RUN_KINDS = new Set(['blank', 'invalid-json', 'not-an-object']);

test('damaged shapes (glued+torn, torn+complete, pretty-printed, deeply nested, junk-heavy): every complete record is read with its exact bytes and line, nothing else is, no byte is lost, and runs of bad lines are one finding each', () => {
  fc.assert(
    fc.property(fc.array(shapeArb, { maxLength: 12 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), (shapes, eol, finalEol) => {
      const laid = sessionOf([], shapes, eol, finalEol);
      const r = parseJsonlLenient(laid.bytes);
      assert.deepEqual(r.records.map((x) => ({ value: x.value, line: x.line, start: x.start, end: x.end })), laid.records, shapes.map((s) => s.kind).join(', '));
      assertEveryByteAccounted(laid.bytes, r);
      // Bounded findings: a shape gives at most three (a glued line: glued-records, torn-record,
      // too-deep; junk: blank lines before, the unreadable run, blank lines after), however many lines;
      // a file that does not end with a line break adds one: its last line is a torn tail (seed
      // 1330824800: junk ["", "not json", "", "not json"] with no final EOL is blank, unreadable,
      // blank, torn tail).
      assert.ok(r.diagnostics.length <= 3 * shapes.length + (finalEol ? 0 : 1), `${r.diagnostics.length} diagnostics for ${shapes.length} shapes`);
      // Runs are maximal: no finding of a run kind follows one of the same kind on the very next line.
      const gluedLines = new Set(r.diagnostics.filter((d) => d.kind === 'glued-records').map((d) => d.line));
      const runs = r.diagnostics.filter((d) => READER_RUN_KINDS.has(d.kind) && !gluedLines.has(d.line));
      for (let k = 1; k < runs.length; k++) {
        const a = runs[k - 1]!;
        const b = runs[k]!;
        const sameRun = (a.kind === 'blank') === (b.kind === 'blank');
        assert.ok(!(sameRun && (a.lastLine ?? a.line) + 1 === b.line), `runs at lines ${a.line} and ${b.line} should be one`);
      }
      for (const d of r.diagnostics) if (d.count !== undefined) assert.ok(d.lastLine !== undefined && d.lastLine > d.line && d.count >= 2);
    }),
    { numRuns: 400 },
  );
});

test('a session with damaged shapes loads, and its entries and context serialise (no record deeper than the limit gets through)', () => {
  const header = JSON.stringify({ type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00Z', cwd: '/w' });
  fc.assert(
    fc.property(fc.array(shapeArb, { maxLength: 10 }), (shapes) => {
      const laid = sessionOf([header], [...shapes, deepLine(5000, false), deepLine(5000, true)], '\n', true);
      const doc = sessionDocumentFromText(laid.bytes);
      assert.equal(doc.loaded.entries.length + doc.loaded.diagnostics.filter((d) => d.kind === 'invalid-entry').length, laid.records.length);
      JSON.stringify(doc.loaded.entries);
      JSON.stringify(doc.context());
      assert.equal(doc.loaded.diagnostics.filter((d) => d.kind === 'too-deep').length, 2 + shapes.filter((s) => /^deep (100[1-9]|[2-9]\d{3})$/.test(s.kind)).length);
    }),
    { numRuns: Number(process.env.PROP_RUNS ?? 100) },
  );
});

test('junk-heavy input: the findings do not grow with the number of junk lines', () => {
  fc.assert(
    fc.property(junkLines, fc.integer({ min: 1, max: 50 }), (shape, times) => {
      const lines = Array.from({ length: times }, () => shape.lines).flat();
      const r = parseJsonlLenient(lines.join('\n') + '\n');
      assert.ok(r.diagnostics.length <= 3, `${r.diagnostics.length} diagnostics for ${lines.length} lines`);
      assert.ok(r.unparsed.length <= 1);
    }),
    { numRuns: 200 },
  );
});

test('through the real write paths: loadSessionFile(writeNewSessionFile(entries)) deep-equals the prepared entries, and a full rewrite keeps every byte', async () => {
  const { mkdtempSync, readFileSync, rmSync, statSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'loom-prop-'));
  let n = 0;
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(entryArb, { maxLength: 15 }), async (raw) => {
        const file = join(dir, `s${n++}.jsonl`);
        const header = { type: 'session', version: 3, id: `s${n}` } as SessionHeader;
        const entries = raw.map((e, i) => ({ ...e, id: `${i}`.padStart(8, '0'), parentId: i === 0 ? null : `${i - 1}`.padStart(8, '0') })) as unknown as SessionEntry[];
        await writeNewSessionFile(file, header, entries);
        const loaded = await loadSessionFile(file);
        assert.deepEqual(loaded.header, header);
        assert.deepEqual(loaded.entries, JSON.parse(JSON.stringify(entries.map((e) => truncateForPersist(e)))));
        assert.equal(loaded.diagnostics.length, 0);
        // A full rewrite of an unchanged session is byte-identical (Part C §7: keep what we do not change).
        const before = readFileSync(file);
        const st = statSync(file);
        await rewriteSessionFile(file, loaded, { expected: { size: st.size, mtimeMs: st.mtimeMs }, force: true });
        assert.ok(readFileSync(file).equals(before));
      }),
      { numRuns: 60 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- id-less shapes (issue 15 points 10 and 19; Part C §5, §10) ----

/** An entry's id as real files have it, and as they should not: a string, missing, null, a number, a repeat. */
const idShape = fc.oneof(
  fc.constantFrom('a0000001', 'a0000002', 'a0000003').map((id) => ({ id })),
  fc.constant({}),
  fc.constantFrom(null, 0, 7, -1, true, [], {}).map((id) => ({ id })),
);
const parentShape = fc.oneof(fc.constantFrom('a0000001', 'a0000002', 'missing!', null).map((parentId) => ({ parentId })), fc.constant({}));
const idLessSession = fc.tuple(fc.constantFrom(1, 2, 3), fc.array(fc.tuple(entryArb, idShape, parentShape), { maxLength: 12 })).map(([version, rows]) => {
  const header = version === 1 ? { type: 'session', id: 's' } : { type: 'session', version, id: 's' };
  const lines = rows.map(([e, id, parent]) => JSON.stringify({ type: e.type, ...id, ...parent, timestamp: e.timestamp, message: e.message }));
  return [JSON.stringify(header), ...lines].join('\n') + '\n';
});

test('id-less entries: loading never throws; every entry gets a string id, stable across loads, never an id already in the file; one missing-id note each (v2/v3)', () => {
  fc.assert(
    fc.property(idLessSession, (text) => {
      const a = sessionDocumentFromText(text);
      const b = sessionDocumentFromText(text);
      const ids = a.loaded.entries.map((e) => e.id);
      assert.deepEqual(b.loaded.entries.map((e) => e.id), ids, 'same bytes, same ids');
      for (const id of ids) assert.equal(typeof id, 'string');
      const raw = text.split('\n').slice(1, -1).map((l) => JSON.parse(l) as { id?: unknown });
      const onDisk = new Set(raw.map((r) => r.id).filter((x): x is string => typeof x === 'string'));
      const made = a.loaded.syntheticIds ?? new Set<string>();
      for (const id of made) assert.ok(!onDisk.has(id), 'a made id is never one in the file');
      if (a.loaded.originalVersion >= 2) {
        const idLess = raw.filter((r) => typeof r.id !== 'string').length;
        assert.equal(made.size, idLess);
        assert.equal(a.diagnostics.filter((d) => d.kind === 'missing-id').length, idLess);
      }
      // the tree and the context work on any of them (no TypeError, no empty conversation)
      const t = a.tree;
      for (const id of t.roots) for (const c of t.children(id)) assert.equal(typeof t.get(c.id)?.type, 'string');
      if (ids.length > 0) {
        const ctx = a.context();
        assert.equal(ctx.leafId, ids[ids.length - 1]);
      }
    }),
    { numRuns: 300 },
  );
});

test('v1/v2 sessions with id-less entries: the ids shown before migrating are the ids migrate writes, and a second migrate changes nothing', async () => {
  const { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'loom-prop-ids-'));
  let k = 0;
  try {
    await fc.assert(
      fc.asyncProperty(idLessSession, async (text) => {
        const file = join(dir, `s${k++}.jsonl`);
        writeFileSync(file, text);
        const old = new Date(Date.now() - 60_000);
        utimesSync(file, old, old);
        const before = await loadSessionFile(file);
        if (before.originalVersion >= 3) return;
        await rewriteSessionFile(file, before, { expected: before.stat!, breadcrumbsDir: join(dir, 'none') });
        const after = await loadSessionFile(file);
        assert.deepEqual(after.entries.map((e) => e.id), before.entries.map((e) => e.id));
        assert.equal(JSON.stringify(after.entries), JSON.stringify(before.entries));
        const bytes = readFileSync(file);
        utimesSync(file, old, old);
        const st = statSync(file);
        await rewriteSessionFile(file, after, { expected: { size: st.size, mtimeMs: st.mtimeMs }, breadcrumbsDir: join(dir, 'none') });
        assert.ok(readFileSync(file).equals(bytes), 'migrating a migrated file is a byte-identical no-op');
      }),
      { numRuns: 150 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
