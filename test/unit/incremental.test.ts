// Incremental tail loading (src/core/formats/xcsh/tail.ts, TreeIndex.append, refreshSessionDocument): after any
// sequence of appends — cut at line boundaries or mid-line, mid-character even — the refreshed
// document must equal a full load of the file as it now is, in everything it exposes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { openSessionDocument, refreshSessionDocument, type SessionDocument } from '../reference/document';
import { loadSessionFromText } from '../../src/core/formats/xcsh/load';
import type { SessionEntry } from '../../src/core/formats/xcsh/schemas';
import { buildTreeIndex, type TreeIndex } from '../../src/core/tree/tree';
import { deepRecord, gluedTornLine, junkLines, prettyRecord, tornThenCompleteLine } from '../helpers/damage';
import { fixtureFiles } from '../helpers/fixtures';
import { commonAncestor, deepestLeaf, isAncestor, isShadowed, leavesContaining, pathToRoot } from '../reference/treeQueries';

const dir = mkdtempSync(join(tmpdir(), 'loom-incr-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
const newFile = (): string => join(dir, `s${++fileNo}.jsonl`);

/** Everything a tree index answers, as plain data. */
function observeTree(t: TreeIndex): unknown {
  const ids = [...new Set(t.entries.map((e) => (e as { id?: unknown }).id).filter((x): x is string => typeof x === 'string')), 'no-such-id'];
  const leaves = t.leaves();
  return {
    entries: t.entries.length,
    size: t.size,
    roots: [...t.roots],
    defaultLeafId: t.defaultLeafId,
    labels: [...t.labels],
    diagnostics: [...t.diagnostics],
    leaves,
    deepestLeaf: deepestLeaf(t),
    kinds: [...t.kinds],
    byId: [...t.byId.keys()].map((k) => [k, t.byId.get(k)]),
    shadowed: t.entries.map((_, i) => isShadowed(t, i)),
    perId: ids.map((id) => ({
      id,
      has: t.has(id),
      indexOf: t.indexOf(id),
      parentOf: t.parentOf(id),
      depth: t.depth(id),
      lineOf: t.lineOf(id),
      children: t.children(id).map((e) => (e as { id?: unknown }).id),
      path: [...t.pathIndices(id)],
      pathToRoot: pathToRoot(t, id).length,
      leavesContaining: leavesContaining(t, id),
      isAncestorOfFirstLeaf: leaves.length > 0 ? isAncestor(t, id, leaves[0]!) : null,
      isAncestorOfLastLeaf: leaves.length > 0 ? isAncestor(t, id, leaves[leaves.length - 1]!) : null,
      commonWithLastLeaf: leaves.length > 0 ? commonAncestor(t, id, leaves[leaves.length - 1]!) : null,
    })),
  };
}

function observeDoc(d: SessionDocument): unknown {
  // Ids made for v1 entries depend only on the file's bytes (Part C §10), so two loads agree on them.
  return { loaded: d.loaded, diagnostics: d.diagnostics, tree: observeTree(d.tree), stats: d.stats(), context: d.context() };
}

async function assertEqualsFull(doc: SessionDocument, file: string, what: string): Promise<void> {
  const full = await openSessionDocument(file);
  assert.deepStrictEqual(observeDoc(doc), observeDoc(full), what);
}

/** Writes `bytes` cut at `cuts`, refreshing after each piece; checks equality after every step. */
async function replay(bytes: Buffer, cuts: number[], what: string): Promise<string[]> {
  const file = newFile();
  const points = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b);
  writeFileSync(file, bytes.subarray(0, points[0] ?? bytes.length));
  const doc = await openSessionDocument(file);
  const kinds: string[] = [];
  const ends = [...points.slice(1), bytes.length];
  let at = points[0] ?? bytes.length;
  for (const end of ends) {
    appendFileSync(file, bytes.subarray(at, end));
    at = end;
    const r = await refreshSessionDocument(doc);
    kinds.push(r.kind);
    await assertEqualsFull(doc, file, `${what} after refresh to byte ${end} (${r.kind}${r.reason ? `: ${r.reason}` : ''})`);
  }
  return kinds;
}

// ---- random sessions -------------------------------------------------------------------------

/** The damage shapes of issue 15 (their records are roots or orphans of the tree: no matter). */
const damageArb = fc.oneof(gluedTornLine, tornThenCompleteLine, prettyRecord, deepRecord, junkLines);

const TEXT = fc.constantFrom('hi', 'é', '😀 ok', 'a}{b', 'x\\ny', '');
const lineArb = (i: number) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.record({
      type: fc.constantFrom('message', 'message', 'custom', 'model_change', 'compaction', 'brand_new'),
      id: fc.oneof({ weight: 20, arbitrary: fc.constant(`e${i}`) }, { weight: 1, arbitrary: fc.nat(Math.max(0, i - 1)).map((k) => `e${k}`) }),
      parentId: fc.oneof(
        { weight: 10, arbitrary: fc.constant(i === 0 ? null : `e${i - 1}`) },
        { weight: 3, arbitrary: fc.nat(Math.max(0, i)).map((k) => `e${k}`) },
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom('missing', `e${i + 2}`) },
      ),
      role: fc.constantFrom('user', 'assistant', 'toolResult'),
      text: TEXT,
    }).map((r) => JSON.stringify({ type: r.type, id: r.id, parentId: r.parentId, timestamp: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`, ...(r.type === 'message' ? { message: { role: r.role, content: [{ type: 'text', text: r.text }], provider: 'p', model: 'm', usage: { input: 1, output: 2 } } } : {}), ...(r.type === 'compaction' ? { summary: r.text, firstKeptEntryId: `e${Math.max(0, i - 2)}`, tokensBefore: 5 } : {}) })) },
    { weight: 2, arbitrary: fc.record({ target: fc.nat(i + 1), label: fc.option(TEXT, { nil: undefined }) }).map((r) => JSON.stringify({ type: 'label', id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, targetId: `e${r.target}`, label: r.label })) },
    { weight: 1, arbitrary: fc.constantFrom('', '   ', 'not json', '[1,2]', '{"noType":1}', `{"type":"custom","id":"g${i}a"}{"type":"custom","id":"g${i}b","parentId":"e${i}"}`, '{"torn":"mid') },
    // Issue 15's shapes: several lines each (pretty-printed records, junk runs), glued+torn, torn+complete, deeply nested.
    { weight: 2, arbitrary: damageArb.map((s) => s.lines) },
    { weight: 1, arbitrary: fc.constant(JSON.stringify({ type: 'custom', id: `p${i}`, parentId: `e${i - 1}`, data: { n: i } }, null, 2).split('\n')) },
  );

const sessionArb = fc
  .record({
    title: fc.boolean(),
    bom: fc.boolean(),
    version: fc.constantFrom(3, 3, 3, 2, 4),
    crlf: fc.boolean(),
    finalNewline: fc.boolean(),
    n: fc.integer({ min: 0, max: 25 }),
  })
  .chain((s) => fc.tuple(fc.constant(s), fc.tuple(...Array.from({ length: s.n }, (_, i) => lineArb(i)))));

function sessionBytes([s, lines]: [{ title: boolean; bom: boolean; version: number; crlf: boolean; finalNewline: boolean }, (string | string[])[]]): Buffer {
  const out: string[] = [];
  if (s.title) out.push(JSON.stringify({ type: 'title', title: 't' }).padEnd(256, ' '));
  out.push(JSON.stringify({ type: 'session', version: s.version, id: 'sess', timestamp: '2026-01-01T00:00:00Z', cwd: '/w' }));
  out.push(...lines.flat());
  const eol = s.crlf ? '\r\n' : '\n';
  const text = (s.bom ? '\ufeff' : '') + out.join(eol) + (s.finalNewline ? eol : '');
  return Buffer.from(text, 'utf8');
}

test('random sessions cut anywhere (line boundaries, mid-line, mid-character) and appended: refresh equals a full load', async () => {
  const seen = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(
      sessionArb.map(sessionBytes).chain((bytes) => fc.tuple(fc.constant(bytes), fc.array(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { minLength: 1, maxLength: 4 }))),
      async ([bytes, cuts]) => {
        for (const k of await replay(bytes, cuts, 'random session')) seen.set(k, (seen.get(k) ?? 0) + 1);
      },
    ),
    { numRuns: 250 },
  );
  // The property must not hold vacuously (the next test checks the tail path on clean cuts).
  assert.ok((seen.get('appended') ?? 0) > 50, JSON.stringify([...seen]));
});

test('random sessions cut at line boundaries: refresh takes the tail path for clean v3 files', async () => {
  await fc.assert(
    fc.asyncProperty(
      sessionArb.filter(([s]) => s.version === 3),
      fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
      async (session, picks) => {
        const bytes = sessionBytes(session);
        const starts: number[] = [];
        for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a && i + 1 < bytes.length) starts.push(i + 1);
        // Cut only after the header line, so the header is complete in the first read.
        const headerEnd = starts[session[0].title ? 1 : 0];
        const cuts = picks.map((p) => starts[p % Math.max(1, starts.length)]!).filter((c) => c !== undefined && headerEnd !== undefined && c >= headerEnd);
        if (cuts.length === 0) return;
        const kinds = await replay(bytes, cuts, 'clean cut');
        const points = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b);
        kinds.forEach((k, i) => {
          if (k !== 'reloaded') return;
          // Issue 22 §2: a line whose last glued piece opens a record (`{…}{`) may be the first line of
          // a pretty-printed record glued to the records before it; until more bytes close or abandon
          // it, the read's open end starts at that line, which holds entries: a full reload.
          const prefix = loadSessionFromText(bytes.subarray(0, points[i]));
          const openLine = prefix.resume!.startLine + 1;
          assert.ok(prefix.diagnostics.some((d) => d.line === openLine && d.kind === 'glued-records') && prefix.entryLines.includes(openLine), `reloaded after a clean cut at byte ${points[i]}`);
        });
      },
    ),
    { numRuns: 150 },
  );
});

// ---- real fixtures ----------------------------------------------------------------------------

/** The upstream-full fixtures are v1/v2 (always a full reload); their migrated form is v3. */
function migratedToV3(bytes: Buffer): Buffer | null {
  const l = loadSessionFromText(bytes);
  if (!l.header) return null;
  return Buffer.from([l.header, ...l.entries].map((x) => JSON.stringify(x)).join('\n') + '\n', 'utf8');
}

function lineStarts(bytes: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i < bytes.length - 1; i++) if (bytes[i] === 0x0a) out.push(i + 1);
  return out;
}

const fixtures = [...fixtureFiles('upstream-full'), ...fixtureFiles('real-v3')];
for (const f of fixtures) {
  test(`fixture ${basename(f)} (and its v3 migration) cut at random lines and mid-line, then appended: refresh equals a full load`, async () => {
    const original = readFileSync(f);
    const variants: [string, Buffer][] = [[basename(f), original]];
    const migrated = migratedToV3(original);
    if (migrated && !migrated.equals(original)) variants.push([`${basename(f)} (v3)`, migrated]);
    for (const [name, bytes] of variants) {
      const starts = lineStarts(bytes);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat(starts.length - 1), { minLength: 1, maxLength: 3 }), fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 2 }), async (lineCuts, midCuts) => {
          await replay(bytes, [...lineCuts.map((k) => starts[k]!), ...midCuts], name);
        }),
        { numRuns: 4 },
      );
    }
  });
}

// ---- each fallback, and the tail path's edges --------------------------------------------------

const H3 = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}\n';
const msg = (id: string, parentId: string | null, text = 'x'): string => JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: text } }) + '\n';

async function start(text: string): Promise<{ file: string; doc: SessionDocument }> {
  const file = newFile();
  writeFileSync(file, text);
  return { file, doc: await openSessionDocument(file) };
}

test('unchanged file: refresh reads nothing', async () => {
  const { doc } = await start(H3 + msg('a', null));
  const before = doc.loaded;
  assert.deepEqual(await refreshSessionDocument(doc), { kind: 'unchanged', added: 0 });
  assert.equal(doc.loaded, before);
});

test('appended entries: tail path, positions and offsets continue', async () => {
  const { file, doc } = await start(H3 + msg('a', null));
  appendFileSync(file, msg('b', 'a') + msg('c', 'b'));
  const r = await refreshSessionDocument(doc);
  assert.deepEqual(r, { kind: 'appended', added: 2 });
  assert.deepEqual(doc.loaded.entryLines, [2, 3, 4]);
  assert.equal(doc.tree.defaultLeafId, 'c');
  await assertEqualsFull(doc, file, 'append');
});

test('the file shrank: full reload', async () => {
  const { file, doc } = await start(H3 + msg('a', null) + msg('b', 'a'));
  truncateSync(file, Buffer.byteLength(H3 + msg('a', null)));
  const r = await refreshSessionDocument(doc);
  assert.equal(r.kind, 'reloaded');
  assert.match(r.reason!, /shrank/);
  await assertEqualsFull(doc, file, 'shrink');
});

test('the file was replaced by rename (an atomic rewrite) with the same first bytes: full reload', async () => {
  const { file, doc } = await start(H3 + msg('a', null));
  const tmp = file + '.tmp';
  writeFileSync(tmp, H3 + msg('a', null) + msg('b', 'a'));
  renameSync(tmp, file);
  const r = await refreshSessionDocument(doc);
  assert.equal(r.kind, 'reloaded');
  assert.match(r.reason!, /replaced/);
  await assertEqualsFull(doc, file, 'rename');
});

test('the first bytes changed in place (same inode, longer): full reload', async () => {
  const { file, doc } = await start(H3 + msg('a', null));
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.from('{"type":"session","version":3,"id":"S"'), 0, undefined, 0);
  closeSync(fd);
  appendFileSync(file, msg('b', 'a'));
  const r = await refreshSessionDocument(doc);
  assert.equal(r.kind, 'reloaded');
  assert.match(r.reason!, /changed/);
  await assertEqualsFull(doc, file, 'head change');
});

test('bytes just before the resume point changed in place: full reload', async () => {
  const first = H3 + msg('a', null, 'y'.repeat(6000)) + msg('b', 'a', 'old');
  const { file, doc } = await start(first);
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.from('new'), 0, undefined, first.lastIndexOf('old'));
  closeSync(fd);
  appendFileSync(file, msg('c', 'b'));
  const r = await refreshSessionDocument(doc);
  assert.equal(r.kind, 'reloaded');
  await assertEqualsFull(doc, file, 'seam change');
});

test('sessions that need migration (v1, v2), damaged and too-new sessions: full reload', async () => {
  const cases: [string, RegExp][] = [
    ['{"type":"session","id":"s","timestamp":"t","cwd":"/"}\n{"type":"message","timestamp":"t","message":{"role":"user","content":"a"}}\n', /version 1/],
    ['{"type":"session","version":2,"id":"s"}\n' + msg('a', null), /version 2/],
    ['{"type":"message","id":"a"}\n', /damaged/],
    ['{"type":"session","version":4,"id":"s"}\n' + msg('a', null), /read-only/],
  ];
  for (const [text, reason] of cases) {
    const { file, doc } = await start(text);
    appendFileSync(file, '{"type":"message","timestamp":"t","message":{"role":"hookMessage","content":"b"}}\n');
    const r = await refreshSessionDocument(doc);
    assert.equal(r.kind, 'reloaded', text);
    assert.match(r.reason!, reason);
    await assertEqualsFull(doc, file, text);
  }
});

test('entries without a string id in the tail: full reload, and the made ids equal a full load (Part C §10)', async () => {
  const { file, doc } = await start(H3 + msg('aaaaaaaa', null));
  appendFileSync(file, '{"type":"message","parentId":"aaaaaaaa","timestamp":"t","message":{"role":"user","content":"no id"}}\n');
  const r = await refreshSessionDocument(doc);
  assert.equal(r.kind, 'reloaded');
  await assertEqualsFull(doc, file, 'id-less tail');
  const made = doc.loaded.entries[1]!.id;
  assert.deepEqual([...doc.loaded.syntheticIds!], [made]);
  // Later appends that do not touch the made id are read as a tail, and keep it.
  appendFileSync(file, msg('bbbbbbbb', made));
  assert.deepEqual(await refreshSessionDocument(doc), { kind: 'appended', added: 1 });
  assert.equal(doc.loaded.entries[1]!.id, made);
  assert.equal(doc.tree.parentOf('bbbbbbbb'), made, 'a child written under the shown id finds it again');
  await assertEqualsFull(doc, file, 'after the id-less entry');
  // A new entry whose own id equals the made one: the made id must move (never collide), as a full load does.
  appendFileSync(file, msg(made, 'bbbbbbbb'));
  assert.equal((await refreshSessionDocument(doc)).kind, 'reloaded');
  assert.notEqual(doc.loaded.entries[1]!.id, made);
  await assertEqualsFull(doc, file, 'collision with a made id');
});

test('an empty file that gets its header: full reload', async () => {
  const { file, doc } = await start('');
  appendFileSync(file, H3 + msg('a', null));
  assert.equal((await refreshSessionDocument(doc)).kind, 'reloaded');
  await assertEqualsFull(doc, file, 'empty');
});

test('a torn last line is read again with what follows it (its torn-tail note goes away)', async () => {
  const whole = msg('b', 'a', 'é'.repeat(10));
  const cut = Buffer.from(whole).subarray(0, 25); // mid-line, mid-character
  const { file, doc } = await start(H3 + msg('a', null));
  appendFileSync(file, cut);
  assert.equal((await refreshSessionDocument(doc)).kind, 'appended');
  assert.deepEqual(doc.diagnostics.map((d) => d.kind), ['torn-tail']);
  appendFileSync(file, Buffer.from(whole).subarray(25));
  assert.deepEqual(await refreshSessionDocument(doc), { kind: 'appended', added: 1 });
  assert.deepEqual(doc.diagnostics, []);
  await assertEqualsFull(doc, file, 'torn');
});

test('a complete last line without its newline: resumes when the newline follows, reloads when more bytes glue onto it', async () => {
  const { file, doc } = await start(H3 + msg('a', null).trimEnd());
  appendFileSync(file, '\n' + msg('b', 'a').trimEnd());
  assert.deepEqual(await refreshSessionDocument(doc), { kind: 'appended', added: 1 });
  await assertEqualsFull(doc, file, 'newline follows');
  appendFileSync(file, msg('c', 'b')); // glued onto b's line
  const r = await refreshSessionDocument(doc);
  assert.equal(r.kind, 'reloaded');
  assert.ok(doc.diagnostics.some((d) => d.kind === 'glued-records'));
  await assertEqualsFull(doc, file, 'glued');
});

test('the file is gone: full reload (an empty session), as opening it would give', async () => {
  const { file, doc } = await start(H3 + msg('a', null));
  rmSync(file);
  assert.equal((await refreshSessionDocument(doc)).kind, 'reloaded');
  assert.equal(doc.loaded.entries.length, 0);
});

test('overlapping refreshes are serialised: the tail is applied once', async () => {
  const { file, doc } = await start(H3 + msg('a', null));
  appendFileSync(file, msg('b', 'a'));
  const [r1, r2] = await Promise.all([refreshSessionDocument(doc), refreshSessionDocument(doc)]);
  assert.deepEqual([r1.kind, r2.kind], ['appended', 'unchanged']);
  await assertEqualsFull(doc, file, 'overlap');
});

test('stats computed before an append are extended, not recomputed wrongly', async () => {
  const { file, doc } = await start(H3 + msg('a', null));
  assert.equal(doc.stats().entries, 1);
  appendFileSync(file, msg('b', 'a'));
  await refreshSessionDocument(doc);
  assert.equal(doc.stats().entries, 2);
  await assertEqualsFull(doc, file, 'stats');
});

// ---- TreeIndex.append on its own -----------------------------------------------------------------

const e = (id: string | undefined, parentId: string | null, extra: Record<string, unknown> = {}): SessionEntry => ({ type: 'message', ...(id !== undefined ? { id } : {}), parentId, timestamp: 't', message: { role: 'user', content: 'x' }, ...extra }) as unknown as SessionEntry;

function appendCase(all: SessionEntry[], cut: number): 'appended' | 'rebuilt' {
  const arr = all.slice(0, cut);
  const lines = arr.map((_, i) => i + 2);
  const t = buildTreeIndex(arr, lines);
  observeTree(t); // force the lazy parts, so the append must invalidate them
  for (let i = cut; i < all.length; i++) {
    arr.push(all[i]!);
    lines.push(i + 2);
  }
  const how = t.append(arr, lines);
  assert.deepStrictEqual(observeTree(t), observeTree(buildTreeIndex(all, all.map((_, i) => i + 2))));
  return how;
}

test('TreeIndex.append: each case that changes an indexed node rebuilds, the rest appends', () => {
  const base = [e('a', null), e('b', 'a'), e('o', 'late')];
  assert.equal(appendCase([...base, e('c', 'b'), e('d', 'a'), e(undefined, 'c'), e('r', null)], 3), 'appended');
  assert.equal(appendCase([...base, e('b', 'a')], 3), 'rebuilt'); // duplicate id
  assert.equal(appendCase([...base, e('late', 'a')], 3), 'rebuilt'); // a late parent adopts the orphan
  assert.equal(appendCase([...base, e('x', 'y'), e('y', 'b')], 3), 'rebuilt'); // forward link
  assert.equal(appendCase([...base, e('s', 's')], 3), 'rebuilt'); // self parent
  assert.equal(appendCase([...base, e('x', 'y'), e('y', 'x')], 3), 'rebuilt'); // cycle
  assert.equal(appendCase([...base, e('n', 'nowhere'), e('m', 'nowhere')], 3), 'appended'); // new orphans
  assert.equal(appendCase([...base, { type: 'label', id: 'l', parentId: 'b', targetId: 'a', label: 'A' } as unknown as SessionEntry], 3), 'appended');
  assert.equal(appendCase(base, 3), 'appended'); // nothing new
});

test('TreeIndex.append: random trees, random cuts, repeated appends equal a full build', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ id: fc.option(fc.nat(40), { nil: undefined }), parent: fc.option(fc.nat(40), { nil: null }), label: fc.boolean() }), { maxLength: 40 }),
      fc.array(fc.nat(40), { maxLength: 4 }),
      (spec, cutsRaw) => {
        const all = spec.map((s, i) => (s.label ? ({ type: 'label', id: `l${i}`, parentId: null, targetId: `n${s.parent ?? 0}`, label: s.id === undefined ? undefined : 'L' } as unknown as SessionEntry) : e(s.id === undefined ? undefined : `n${s.id}`, s.parent === null ? null : `n${s.parent}`)));
        const cuts = [...new Set(cutsRaw.map((c) => c % (all.length + 1)))].sort((a, b) => a - b);
        const arr: SessionEntry[] = all.slice(0, cuts[0] ?? all.length);
        const lines = arr.map((_, i) => i + 2);
        const t = buildTreeIndex(arr, lines);
        for (const c of [...cuts.slice(1), all.length]) {
          for (let i = arr.length; i < c; i++) {
            arr.push(all[i]!);
            lines.push(i + 2);
          }
          t.append(arr, lines);
          assert.deepStrictEqual(observeTree(t), observeTree(buildTreeIndex(arr.slice(), lines.slice())));
        }
      },
    ),
    { numRuns: 400 },
  );
});

// ---- issue 15: what more bytes can still change is read again ------------------------------------

test('a run of unreadable or blank lines at the end is read again with what is appended: it stays one finding, on the tail path', async () => {
  for (const [first, more, kind] of [['junk\n', 'junk\n[1]\n\njunk\n', 'invalid-json'], ['\n\n', '\n   \n', 'blank']] as const) {
    const { file, doc } = await start(H3 + msg('a', null) + first);
    appendFileSync(file, more);
    assert.deepEqual(await refreshSessionDocument(doc), { kind: 'appended', added: 0 });
    assert.deepEqual(doc.diagnostics.map((d) => [d.line, d.kind]), [[3, kind]]);
    appendFileSync(file, msg('b', 'a') + first);
    assert.deepEqual(await refreshSessionDocument(doc), { kind: 'appended', added: 1 });
    await assertEqualsFull(doc, file, kind);
    assert.equal(doc.diagnostics.length, 2);
  }
});

test('a pretty-printed record written line by line: every refresh equals a full load, on the tail path, and it ends as one entry', async () => {
  const pretty = JSON.stringify({ type: 'custom', id: 'p', parentId: 'a', data: { list: [1, { x: 'y' }], s: '}{' } }, null, 2).split('\n');
  const { file, doc } = await start(H3 + msg('a', null));
  for (const l of pretty) {
    appendFileSync(file, l + '\n');
    const r = await refreshSessionDocument(doc);
    assert.equal(r.kind, 'appended', l);
    await assertEqualsFull(doc, file, `after ${JSON.stringify(l)}`);
  }
  assert.deepEqual(doc.loaded.entries.map((e) => e.id), ['a', 'p']);
  assert.deepEqual(doc.diagnostics.map((d) => [d.line, d.lastLine, d.kind]), [[3, 2 + pretty.length, 'multi-line-record']]);
  appendFileSync(file, msg('b', 'p'));
  assert.deepEqual(await refreshSessionDocument(doc), { kind: 'appended', added: 1 });
  await assertEqualsFull(doc, file, 'after the record');
});

test('a torn last line, then the resumed writer appends a whole record to it: the record is read on the tail path', async () => {
  const { file, doc } = await start(H3 + msg('a', null) + '{"type":"message","id":"b","mess');
  assert.deepEqual(doc.diagnostics.map((d) => d.kind), ['torn-tail']);
  appendFileSync(file, msg('c', 'a'));
  assert.deepEqual(await refreshSessionDocument(doc), { kind: 'appended', added: 1 });
  assert.deepEqual(doc.diagnostics.map((d) => d.kind), ['glued-records', 'torn-record']);
  await assertEqualsFull(doc, file, 'torn then complete');
});
