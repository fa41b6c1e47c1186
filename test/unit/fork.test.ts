// The fork writer (issue 13, "New Session from Here"): a new v3 file with the root → entry path,
// the source never touched, and none of the upstream defects (pi #5669 labels, #9950 legacy).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { forkSessionFile, ForkRefusedError } from '../../src/core/fork/forkSession';
import { openSessionDocument } from '../reference/document';
import { severityOf } from '../../src/core/diagnostics';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { fixture } from '../helpers/fixtures';
import { pathToRoot } from '../reference/treeQueries';

const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');
const tmp = (): string => mkdtempSync(join(tmpdir(), 'sl-fork-'));
const line = (o: unknown): string => JSON.stringify(o);
const T = '2026-01-01T00:00:00.000Z';

function msg(id: string, parentId: string | null, role: string, text: string): string {
  const m = role === 'assistant' ? { role, content: [{ type: 'text', text }], provider: 'p', model: 'm', usage: { input: 1, output: 1 } } : { role, content: [{ type: 'text', text }] };
  return line({ type: 'message', id, parentId, timestamp: T, message: m });
}

/** Every parentId names an entry of the file or is null, and the tree reports no anomaly. */
async function assertWholeChain(file: string): Promise<void> {
  const doc = await openSessionDocument(file);
  const ids = new Set(doc.loaded.entries.map((e) => e.id));
  for (const e of doc.loaded.entries) {
    const p = (e as { parentId?: unknown }).parentId;
    assert.ok(p === null || ids.has(p as string), `entry ${e.id} names a missing parent ${String(p)}`);
  }
  assert.deepEqual(doc.diagnostics.filter((d) => severityOf(d.kind) !== 'info'), []);
}

test('a fork of a path with label entries keeps every parentId inside the file (pi #5669 filtered labels and orphaned their children)', async () => {
  const dir = tmp();
  const src = join(dir, 'src.jsonl');
  writeFileSync(
    src,
    [
      line({ type: 'session', version: 3, id: 'srcsession', timestamp: T, cwd: '/w', title: 'Parser work' }),
      msg('a1', null, 'user', 'fix the parser'),
      msg('a2', 'a1', 'assistant', 'on it'),
      line({ type: 'label', id: 'l1', parentId: 'a2', timestamp: T, targetId: 'a1', label: 'grill done' }),
      msg('a3', 'l1', 'user', 'now the tests'),
      msg('a4', 'a3', 'assistant', 'done'),
      // another branch labels a path entry: the fork must carry that label too
      msg('b1', 'a2', 'user', 'other idea'),
      line({ type: 'label', id: 'l2', parentId: 'b1', timestamp: T, targetId: 'a3', label: 'tests' }),
      '',
    ].join('\n'),
  );
  const before = sha(src);
  const r = await forkSessionFile(src, 'a4', { sessionId: 'forkid0000000001', now: new Date(T) });
  assert.equal(sha(src), before, 'the source is never touched');
  assert.equal(r.path, join(dir, '2026-01-01T00-00-00-000Z_forkid0000000001.jsonl'));
  await assertWholeChain(r.path);
  const fork = await openSessionDocument(r.path);
  assert.deepEqual(fork.loaded.entries.slice(0, 5).map((e) => e.id), ['a1', 'a2', 'l1', 'a3', 'a4']);
  assert.deepEqual(Object.fromEntries(fork.tree.labels), { a1: 'grill done', a3: 'tests' });
  const source = await openSessionDocument(src);
  assert.deepEqual(fork.context().messages, source.context('a4').messages, 'the fork sends what the source sent at a4');
  assert.equal(fork.loaded.header?.parentSession, 'srcsession');
  assert.equal(fork.loaded.header?.title, 'Fork of Parser work');
  assert.equal(fork.loaded.header?.titleSource, 'user');
  assert.equal(fork.loaded.header?.version, 3);
});

test('a fork at an entry before a label keeps that label entry only when it is on the path', async () => {
  const dir = tmp();
  const src = join(dir, 'src.jsonl');
  writeFileSync(src, [line({ type: 'session', version: 3, id: 's', timestamp: T, cwd: '/w' }), msg('a1', null, 'user', 'hello there'), msg('a2', 'a1', 'assistant', 'hi'), line({ type: 'label', id: 'l1', parentId: 'a2', timestamp: T, targetId: 'a1', label: 'x' }), ''].join('\n'));
  const r = await forkSessionFile(src, 'a2');
  const fork = await openSessionDocument(r.path);
  // the label of a1 lives on the path's continuation, not on it: carried as a new, chained entry
  assert.equal(fork.loaded.entries.length, 3);
  assert.equal(fork.loaded.entries[2]!.type, 'label');
  assert.equal((fork.loaded.entries[2] as { parentId?: unknown }).parentId, 'a2');
  assert.equal(fork.tree.labels.get('a1'), 'x');
  assert.equal(fork.loaded.header?.title, 'Fork of hello there', 'an untitled source is named by its first prompt');
  await assertWholeChain(r.path);
});

test('a fork through a compaction sends the same summary, kept range and cut entries as the source (real upstream file)', async () => {
  const dir = tmp();
  const src = join(dir, 'pi-before-compaction.jsonl');
  copyFileSync(fixture('upstream-full', 'pi-before-compaction.jsonl'), src);
  const before = sha(src);
  const source = await openSessionDocument(src);
  const leaf = source.tree.defaultLeafId!;
  const r = await forkSessionFile(src, leaf);
  assert.equal(sha(src), before);
  const fork = await openSessionDocument(r.path);
  const a = source.context(leaf);
  const b = fork.context();
  assert.ok(a.compaction && a.cutEntryIds.length > 0, 'the fixture has a compaction on its default path');
  assert.deepEqual(b.messages, a.messages);
  assert.deepEqual(b.cutEntryIds, a.cutEntryIds);
  assert.deepEqual(b.compaction, a.compaction);
  await assertWholeChain(r.path);
});

test('blob references in the forked path stay references (no image bytes inlined), and records keep their bytes', async () => {
  const dir = tmp();
  const src = join(dir, 's.jsonl');
  const ref = 'blob:sha256:' + 'ab'.repeat(32);
  const img = line({ type: 'message', id: 'a2', parentId: 'a1', timestamp: T, message: { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'image', data: ref, mimeType: 'image/png' }] } });
  // a record JSON cannot give back (an unsafe integer, 1.50, key order): copied as its bytes
  const odd = '{"parentId":"a2","type":"custom","id":"c9","timestamp":"' + T + '","customType":"x","data":{"n":12345678901234567890,"f":1.50}}';
  writeFileSync(src, [line({ type: 'session', version: 3, id: 's', timestamp: T }), msg('a1', null, 'user', 'look'), img, odd, msg('a3', 'c9', 'assistant', 'seen'), ''].join('\n'));
  const r = await forkSessionFile(src, 'a3');
  const text = readFileSync(r.path, 'utf8');
  assert.equal(text.split(ref).length - 1, 1);
  assert.equal(text.split('\n')[2], img, 'the entry with the reference is written as it was');
  assert.equal(text.split('\n')[3], odd, 'a record is copied byte for byte');
});

test('a fork of a legacy v1 session is migrated first and carries exactly the ids the viewer showed (pi #9950 forked unmigrated history)', async () => {
  const dir = tmp();
  const src = join(dir, 'pi-compact.jsonl');
  copyFileSync(fixture('upstream-full', 'pi-compact.jsonl'), src);
  const before = sha(src);
  const shown = await openSessionDocument(src);
  assert.equal(shown.loaded.originalVersion, 1);
  const leaf = shown.tree.defaultLeafId!;
  const r = await forkSessionFile(src, leaf);
  assert.equal(sha(src), before);
  const fork = await loadSessionFile(r.path);
  assert.equal(fork.originalVersion, 3);
  assert.equal(fork.changed, null, 'nothing left to migrate in the fork');
  assert.deepEqual(
    fork.entries.map((e) => e.id),
    pathToRoot(shown.tree, leaf).map((e) => e.id),
  );
  assert.ok(fork.entries.length > 100, 'the history is forked, not an empty session');
  const forkDoc = await openSessionDocument(r.path);
  assert.deepEqual(forkDoc.context().messages, shown.context(leaf).messages);
  await assertWholeChain(r.path);
});

test('a damaged source (no valid header) is refused and nothing is written', async () => {
  const dir = tmp();
  const src = join(dir, 'damaged.jsonl');
  writeFileSync(src, [msg('a1', null, 'user', 'hi'), msg('a2', 'a1', 'assistant', 'yo'), ''].join('\n'));
  const before = sha(src);
  await assert.rejects(forkSessionFile(src, 'a2'), (e: unknown) => e instanceof ForkRefusedError && e.reason === 'damaged');
  assert.equal(sha(src), before);
  assert.deepEqual(readdirSync(dir), ['damaged.jsonl']);
});

test('a path broken by an unreadable line is refused (the fork would start at an orphan)', async () => {
  const dir = tmp();
  const src = join(dir, 'broken.jsonl');
  writeFileSync(src, [line({ type: 'session', version: 3, id: 's', timestamp: T }), msg('a1', null, 'user', 'hi'), '{"type":"message","id":"a2","parentId":"a1","bad\\q', msg('a3', 'a2', 'user', 'more'), ''].join('\n'));
  await assert.rejects(forkSessionFile(src, 'a3'), (e: unknown) => e instanceof ForkRefusedError && e.reason === 'broken-path');
  await assert.rejects(forkSessionFile(src, 'nope'), (e: unknown) => e instanceof ForkRefusedError && e.reason === 'unknown-entry');
  assert.deepEqual(readdirSync(dir), ['broken.jsonl']);
});

test('a fork never overwrites: an existing target is refused', async () => {
  const dir = tmp();
  const src = join(dir, 's.jsonl');
  writeFileSync(src, [line({ type: 'session', version: 3, id: 's', timestamp: T }), msg('a1', null, 'user', 'hi'), ''].join('\n'));
  const out = join(dir, 'taken.jsonl');
  writeFileSync(out, 'mine\n');
  await assert.rejects(forkSessionFile(src, 'a1', { outPath: out }));
  assert.equal(readFileSync(out, 'utf8'), 'mine\n');
});

test('issue 22 §7: a fork is a new file the user alone can read (0600), whatever the umask', async () => {
  const dir = tmp();
  const src = join(dir, 'src.jsonl');
  writeFileSync(src, [line({ type: 'session', version: 3, id: 'srcsession', timestamp: T, cwd: '/w' }), msg('a1', null, 'user', 'a secret'), msg('a2', 'a1', 'assistant', 'kept'), ''].join('\n'));
  const old = process.umask(0);
  try {
    const out = join(dir, 'fork.jsonl');
    await forkSessionFile(src, 'a2', { outPath: out });
    assert.equal((statSync(out).mode & 0o777).toString(8), '600');
  } finally {
    process.umask(old);
  }
});
