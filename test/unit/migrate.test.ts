import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrateSession } from '../../src/core/formats/xcsh/migrate';
import { stableEntryId } from '../../src/core/formats/xcsh/ids';
import type { SessionEntry, SessionHeader } from '../../src/core/formats/xcsh/schemas';

const v1Header = (): SessionHeader => ({ type: 'session', id: 's1', timestamp: '2025-01-01T00:00:00Z', cwd: '/w' });
const msg = (role: string, text = 'x') => ({ type: 'message', timestamp: 't', message: { role, content: text } }) as unknown as SessionEntry;

test('v1 → v3: ids (8 hex, unique), linear chain from file order, header version 3', () => {
  const entries = [msg('user'), msg('assistant'), msg('user')];
  const r = migrateSession(v1Header(), entries);
  assert.equal(r.header.version, 3);
  assert.equal(r.report.fromVersion, 1);
  assert.equal(r.report.toVersion, 3);
  const ids = r.entries.map((e) => e.id);
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}$/);
  assert.equal(new Set(ids).size, 3);
  assert.deepEqual(r.entries.map((e) => e.parentId), [null, ids[0], ids[1]]);
  assert.equal(r.report.idsAssigned, 3);
  assert.equal(r.report.parentsLinked, 3);
  assert.deepEqual(r.report.changedIndices, [0, 1, 2]);
});

test('inputs are never mutated; unchanged entries keep identity', () => {
  const entries = [msg('user')];
  const header = v1Header();
  const snapshot = structuredClone({ header, entries });
  const r = migrateSession(header, entries);
  assert.deepEqual({ header, entries }, snapshot);
  assert.notEqual(r.entries[0], entries[0]);
  // v2 → v3 touches only hookMessage entries
  const v2 = [
    { type: 'message', id: 'aaaaaaaa', parentId: null, message: { role: 'user', content: 'a' } },
    { type: 'message', id: 'bbbbbbbb', parentId: 'aaaaaaaa', message: { role: 'hookMessage', customType: 'x', content: 'h' } },
  ] as unknown as SessionEntry[];
  const r2 = migrateSession({ ...v1Header(), version: 2 }, v2);
  assert.equal(r2.entries[0], v2[0]);
  assert.notEqual(r2.entries[1], v2[1]);
  assert.equal((v2[1] as { message: { role: string } }).message.role, 'hookMessage');
  assert.equal((r2.entries[1] as { message: { role: string } }).message.role, 'custom');
  assert.equal(r2.report.rolesRewritten, 1);
  assert.deepEqual(r2.report.changedIndices, [1]);
  assert.equal(r2.report.idsAssigned, 0);
});

test('hookMessage in a v1 file is rewritten too (v1 → v2 → v3)', () => {
  const r = migrateSession(v1Header(), [msg('hookMessage')]);
  assert.equal((r.entries[0] as { message: { role: string } }).message.role, 'custom');
});

test('firstKeptEntryIndex counts with the header at index 0', () => {
  const entries = [msg('user', 'a'), msg('assistant', 'b'), msg('user', 'c'), { type: 'compaction', summary: 's', firstKeptEntryIndex: 2, tokensBefore: 1 } as unknown as SessionEntry];
  const r = migrateSession(v1Header(), entries);
  const c = r.entries[3] as Record<string, unknown>;
  assert.equal(c.firstKeptEntryId, r.entries[1]!.id); // index 2 → entries[1] ("b")
  assert.equal('firstKeptEntryIndex' in c, false);
  assert.equal(r.report.compactionsMigrated, 1);
});

test('firstKeptEntryIndex out of range or naming the header: kept, reported, no id invented', () => {
  for (const k of [0, 99, -1, 'x']) {
    const entries = [msg('user'), { type: 'compaction', summary: 's', firstKeptEntryIndex: k } as unknown as SessionEntry];
    const r = migrateSession(v1Header(), entries);
    const c = r.entries[1] as Record<string, unknown>;
    assert.equal(c.firstKeptEntryIndex, k);
    assert.equal(c.firstKeptEntryId, undefined);
    assert.equal(r.report.unresolvedCompactions.length, 1);
    assert.equal(r.report.compactionsMigrated, 0);
  }
});

test('idempotent: migrating the result changes nothing', () => {
  const r1 = migrateSession(v1Header(), [msg('user'), msg('assistant')]);
  const r2 = migrateSession(r1.header, r1.entries);
  assert.deepEqual(r2.entries, r1.entries);
  assert.equal(r2.report.entriesTouched, 0);
  r2.entries.forEach((e, i) => assert.equal(e, r1.entries[i]));
});

test('v3 and newer are untouched', () => {
  const e = [{ type: 'message', id: 'x', parentId: null, message: { role: 'hookMessage' } }] as unknown as SessionEntry[];
  for (const version of [3, 4]) {
    const r = migrateSession({ ...v1Header(), version }, e);
    assert.equal(r.entries[0], e[0]);
    assert.equal(r.header.version, version);
  }
});

test('existing unique ids in a v1 file are kept; duplicates are replaced', () => {
  const entries = [
    { type: 'message', id: 'keepme01', message: { role: 'user' } },
    { type: 'message', id: 'keepme01', message: { role: 'user' } },
  ] as unknown as SessionEntry[];
  const r = migrateSession(v1Header(), entries);
  assert.equal(r.entries[0]!.id, 'keepme01');
  assert.notEqual(r.entries[1]!.id, 'keepme01');
  assert.equal(r.entries[1]!.parentId, 'keepme01');
});

test('Part C §10: made ids depend only on the entries (same input, same ids, in every run); 8 hex like real ids', () => {
  const entries = () => [msg('user', 'a'), msg('assistant', 'b'), msg('user', 'a')];
  const a = migrateSession(v1Header(), entries()).entries.map((e) => e.id);
  const b = migrateSession(v1Header(), entries()).entries.map((e) => e.id);
  assert.deepEqual(a, b);
  assert.notEqual(a[0], a[2], 'equal records at different positions get different ids');
  // Pinned: a change of the rule would change the ids users have seen (and scripts kept).
  assert.deepEqual(a, [stableEntryId(entries()[0], 0, new Set()), stableEntryId(entries()[1], 1, new Set([a[0]!])), stableEntryId(entries()[2], 2, new Set([a[0]!, a[1]!]))]);
  assert.equal(stableEntryId({ type: 'message' }, 0, new Set()), 'fd9bf073');
});

test('Part C §10: a made id never collides with an id already in the file (it is re-hashed)', () => {
  const first = msg('user', 'a');
  const wouldBe = stableEntryId(first, 0, new Set());
  const r = migrateSession(v1Header(), [first, { type: 'message', id: wouldBe, message: { role: 'user' } } as unknown as SessionEntry]);
  assert.notEqual(r.entries[0]!.id, wouldBe);
  assert.match(r.entries[0]!.id, /^[0-9a-f]{8}$/);
  assert.equal(r.entries[1]!.id, wouldBe, 'the id on disk is kept');
});

test('the migration says which edits it made, and builds its entries with them (ids and parents after "type", as upstream writes)', () => {
  const entries = [msg('hookMessage', 'a'), { type: 'compaction', summary: 's', firstKeptEntryIndex: 1, tokensBefore: 1 } as unknown as SessionEntry];
  const r = migrateSession(v1Header(), entries);
  const [id0, id1] = r.entries.map((e) => e.id);
  assert.deepEqual(r.edits.get(0), [
    { op: 'set', path: ['id'], value: id0, after: ['type'] },
    { op: 'set', path: ['parentId'], value: null, after: ['id', 'type'] },
    { op: 'set', path: ['message', 'role'], value: 'custom' },
  ]);
  assert.deepEqual(r.edits.get(1), [
    { op: 'set', path: ['id'], value: id1, after: ['type'] },
    { op: 'set', path: ['parentId'], value: id0, after: ['id', 'type'] },
    { op: 'rename', from: 'firstKeptEntryIndex', to: 'firstKeptEntryId', value: id0 },
  ]);
  assert.deepEqual(Object.keys(r.entries[1]!), ['type', 'id', 'parentId', 'summary', 'firstKeptEntryId', 'tokensBefore']);
  assert.deepEqual(Object.keys(r.header), ['type', 'version', 'id', 'timestamp', 'cwd']);
});

test('a v1 compaction that already has firstKeptEntryId takes the id its index names (Part B §23, issue 22 §28); an index naming nothing keeps the id', () => {
  const r = migrateSession(v1Header(), [msg('user'), { type: 'compaction', firstKeptEntryIndex: 1, firstKeptEntryId: 'zz' } as unknown as SessionEntry]);
  const c = r.entries[1] as Record<string, unknown>;
  assert.equal(c.firstKeptEntryId, r.entries[0]!.id);
  assert.equal(c.firstKeptEntryIndex, 1, 'the index is kept beside it');
  assert.deepEqual(r.report.unresolvedCompactions, []);
  assert.equal(r.report.compactionsMigrated, 1);
  const out = migrateSession(v1Header(), [msg('user'), { type: 'compaction', firstKeptEntryIndex: 9, firstKeptEntryId: 'zz' } as unknown as SessionEntry]);
  assert.equal((out.entries[1] as Record<string, unknown>).firstKeptEntryId, 'zz');
  assert.match(out.report.unresolvedCompactions[0]!.reason, /names no entry/);
});
