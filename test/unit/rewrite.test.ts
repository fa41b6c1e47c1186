import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSessionFile, type LoadedSession } from '../../src/core/formats/xcsh/load';
import { appendEntries, rewriteHeaderLine, rewriteSessionFile, RewriteRefusedError, writeNewSessionFile } from '../../src/core/store/rewrite';
import type { SessionEntry } from '../../src/core/formats/xcsh/schemas';
import { fixture } from '../helpers/fixtures';

const dirs = () => {
  const d = mkdtempSync(join(tmpdir(), 'loom-rw-'));
  const crumbs = join(d, 'crumbs');
  mkdirSync(crumbs);
  return { d, crumbs };
};
/** A file that is not live: mtime a minute ago. */
function put(path: string, text: string | Buffer): void {
  writeFileSync(path, text);
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
}
const guard = (l: LoadedSession, crumbs: string) => ({ expected: l.stat!, breadcrumbsDir: crumbs });
const refused = (reason: string) => (e: unknown) => e instanceof RewriteRefusedError && e.reason === reason;

const H3 = '{"type":"session","version":3,"id":"s"}';
const E = (id: string, parent: string | null, text = id) => JSON.stringify({ type: 'message', id, parentId: parent, message: { role: 'user', content: text } });

test('nothing changed → byte-identical rewrite', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  const text = `\ufeff${H3}\r\n${E('aaaaaaaa', null)}\n\nnot json\n{"k":1}\n${E('bbbbbbbb', 'aaaaaaaa')}\n{"torn":`;
  put(p, text);
  const l = await loadSessionFile(p);
  const r = await rewriteSessionFile(p, l, guard(l, crumbs));
  assert.equal(readFileSync(p, 'utf8'), text);
  assert.equal(r.copied, 2);
  assert.equal(r.reserialised, 0);
});

test('v1 migration rewrite: changed entries re-serialised, unparseable lines kept in place, glued split', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  const lines = ['{"type":"session","id":"s"}', '{"type":"message","message":{"role":"user","content":"a"}}', 'broken {', '{"type":"message","message":{"role":"assistant","content":[]}}{"type":"message","message":{"role":"user","content":"b"}}'];
  put(p, lines.join('\n') + '\n');
  const l = await loadSessionFile(p);
  await rewriteSessionFile(p, l, guard(l, crumbs));
  const out = readFileSync(p, 'utf8').split('\n');
  assert.equal(out.length, 6); // header, a, broken, assistant, user, ''
  assert.equal(out[2], 'broken {');
  assert.equal(JSON.parse(out[0]!).version, 3);
  const again = await loadSessionFile(p);
  assert.equal(again.changed, null, 'the migrated file needs no further migration');
  assert.deepEqual(again.entries, l.entries);
  assert.deepEqual(again.diagnostics.map((x) => x.kind), ['invalid-json']);
});

test('migrating a real v1 fixture keeps every entry and round-trips', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  copyFileSync(fixture('upstream', 'pi-session.v1.glued-records.jsonl'), p);
  chmodSync(p, 0o644); // the shared fixtures are read-only (0444), and a read-only file is never written
  utimesSync(p, new Date(0), new Date(0));
  const l = await loadSessionFile(p);
  const r = await rewriteSessionFile(p, l, { ...guard(l, crumbs), backup: true, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
  assert.equal(r.backupPath, `${p}.bak-2026-01-02T03-04-05-000Z`);
  assert.deepEqual(readFileSync(r.backupPath!), readFileSync(fixture('upstream', 'pi-session.v1.glued-records.jsonl')));
  const again = await loadSessionFile(p);
  assert.deepEqual(again.entries, l.entries);
  assert.equal(again.diagnostics.length, 0, 'the glued line was split');
});

test('refuses when the file changed since it was read (force cannot override)', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, `${H3}\n${E('aaaaaaaa', null)}\n`);
  const l = await loadSessionFile(p);
  put(p, `${H3}\n${E('aaaaaaaa', null)}\n${E('bbbbbbbb', 'aaaaaaaa')}\n`);
  const before = readFileSync(p);
  await assert.rejects(rewriteSessionFile(p, l, guard(l, crumbs)), refused('changed'));
  await assert.rejects(rewriteSessionFile(p, l, { ...guard(l, crumbs), force: true }), refused('changed'));
  assert.deepEqual(readFileSync(p), before);
});

test('refuses a live file (recent mtime or breadcrumb) unless forced', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  writeFileSync(p, `${H3}\n${E('aaaaaaaa', null)}\n`); // mtime = now
  let l = await loadSessionFile(p);
  await assert.rejects(rewriteSessionFile(p, l, guard(l, crumbs)), (e: unknown) => refused('live')(e) && (e as Error).message.includes(p));
  await rewriteSessionFile(p, l, { ...guard(l, crumbs), force: true });

  put(p, `${H3}\n${E('aaaaaaaa', null)}\n`);
  writeFileSync(join(crumbs, 'term-1'), `/work\n${p}\n`);
  l = await loadSessionFile(p);
  await assert.rejects(rewriteSessionFile(p, l, guard(l, crumbs)), refused('live'));
  await assert.rejects(rewriteHeaderLine(p, { ...l.header!, title: 'x' }, guard(l, crumbs)), refused('live'));
  writeFileSync(join(crumbs, 'term-1'), `/work\n/elsewhere.jsonl\n`);
  await rewriteSessionFile(p, l, guard(l, crumbs));
});

test('never writes a read-only session (damaged or too new), even forced', async () => {
  const { d, crumbs } = dirs();
  for (const text of [`${E('aaaaaaaa', null)}\n`, `{"type":"session","version":4,"id":"s"}\n${E('aaaaaaaa', null)}\n`]) {
    const p = join(d, `ro-${text.length}.jsonl`);
    put(p, text);
    const l = await loadSessionFile(p);
    await assert.rejects(rewriteSessionFile(p, l, { ...guard(l, crumbs), force: true }), refused('read-only'));
    await assert.rejects(rewriteHeaderLine(p, { type: 'session', id: 'n' }, { ...guard(l, crumbs), force: true }), refused('read-only'));
    await assert.rejects(appendEntries(p, [JSON.parse(E('cccccccc', null))], { readOnlyReason: l.readOnlyReason }), refused('read-only'));
    assert.equal(readFileSync(p, 'utf8'), text);
  }
});

test('an injected failure mid-rewrite leaves the original intact and no temp file', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  const text = '{"type":"session","id":"s"}\n{"type":"message","message":{"role":"user","content":"a"}}\n';
  put(p, text);
  const l = await loadSessionFile(p);
  await assert.rejects(
    rewriteSessionFile(p, l, { ...guard(l, crumbs), faults: { beforeWrite: (op) => { if (op === 'rename') throw new Error('EIO'); } } }),
    /EIO/,
  );
  assert.equal(readFileSync(p, 'utf8'), text);
  assert.deepEqual(readdirSync(d).sort(), ['crumbs', 's.jsonl']);
});

test('changed entries and appended entries', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, `${H3}\n${E('aaaaaaaa', null)}\n${E('bbbbbbbb', 'aaaaaaaa')}\n`);
  const l = await loadSessionFile(p);
  l.entries[0] = { ...l.entries[0]!, partialJson: 'x' } as SessionEntry;
  l.changed = [true, false];
  l.entries.push(JSON.parse(E('cccccccc', 'bbbbbbbb')) as SessionEntry);
  const r = await rewriteSessionFile(p, l, guard(l, crumbs));
  assert.deepEqual([r.copied, r.reserialised, r.appended], [1, 1, 1]);
  assert.equal(readFileSync(p, 'utf8'), `${H3}\n${E('aaaaaaaa', null)}\n${E('bbbbbbbb', 'aaaaaaaa')}\n${E('cccccccc', 'bbbbbbbb')}\n`);
});

test('header-only rewrite keeps every byte after the header (and the title line before it)', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  const title = '{"type":"title","title":"t"}'.padEnd(256);
  const rest = `${E('aaaaaaaa', null)}\nnot json at all\n{"torn`;
  put(p, `${title}\n${H3}\n${rest}`);
  const l = await loadSessionFile(p);
  await rewriteHeaderLine(p, { ...l.header!, title: 'New', titleSource: 'user' }, guard(l, crumbs));
  assert.equal(readFileSync(p, 'utf8'), `${title}\n${JSON.stringify({ ...l.header!, title: 'New', titleSource: 'user' })}\n${rest}`);
});

test('append: O_APPEND, newline first after a torn tail, never touches existing bytes', async () => {
  const { d } = dirs();
  const p = join(d, 's.jsonl');
  put(p, `${H3}\n{"torn`);
  await appendEntries(p, [JSON.parse(E('aaaaaaaa', null))], { readOnlyReason: null });
  assert.equal(readFileSync(p, 'utf8'), `${H3}\n{"torn\n${E('aaaaaaaa', null)}\n`);
  await appendEntries(p, [JSON.parse(E('bbbbbbbb', 'aaaaaaaa'))], { readOnlyReason: null });
  assert.ok(readFileSync(p, 'utf8').endsWith(`${E('aaaaaaaa', null)}\n${E('bbbbbbbb', 'aaaaaaaa')}\n`));
  await assert.rejects(appendEntries(join(d, 'missing.jsonl'), [], { readOnlyReason: null }), refused('missing'));
});

test('writeNewSessionFile never overwrites', async () => {
  const { d } = dirs();
  const p = join(d, 'new.jsonl');
  await writeNewSessionFile(p, { type: 'session', version: 3, id: 'n' }, [JSON.parse(E('aaaaaaaa', null))]);
  assert.equal(readFileSync(p, 'utf8'), `{"type":"session","version":3,"id":"n"}\n${E('aaaaaaaa', null)}\n`);
  const before = statSync(p).mtimeMs;
  await assert.rejects(writeNewSessionFile(p, { type: 'session', id: 'x' }, []), refused('exists'));
  assert.equal(statSync(p).mtimeMs, before);
  assert.deepEqual(readdirSync(d).filter((f) => f !== 'crumbs'), ['new.jsonl']);
  assert.equal(existsSync(p), true);
});
