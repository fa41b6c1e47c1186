// Issue 15 "no byte lost": a migration (and a title) changes only what it must — ids, parentIds,
// firstKeptEntryIndex → firstKeptEntryId, the hookMessage role, the header's version or title —
// and copies every other byte of every record. Ids made for v1 entries are the ids the viewer
// showed (Part C §10).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { loadSessionFile, loadSessionFromText, type LoadedSession } from '../../src/core/formats/xcsh/load';
import { SessionManager } from '../reference/manager';
import { rewriteHeaderLine, rewriteSessionFile } from '../../src/core/store/rewrite';
import { uneditableRecords, UnsafeRecordEditError } from '../../src/core/store/recordRewrite';
import { fixtureFiles } from '../helpers/fixtures';

const dir = mkdtempSync(join(tmpdir(), 'loom-bytes-'));
let n = 0;
/** A file that is not live (mtime a minute ago). */
function put(bytes: Buffer | string, name = `s${n++}.jsonl`): string {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  const old = new Date(Date.now() - 60_000);
  utimesSync(p, old, old);
  return p;
}
const guard = (l: LoadedSession) => ({ expected: l.stat!, breadcrumbsDir: join(dir, 'no-crumbs') });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const B = (s: string) => Buffer.from(s, 'utf8');

const HUGE = 'x'.repeat(600_000); // over MAX_PERSIST_CHARS: a re-serialisation through persist truncates it

test('v1 migration edits bytes: invalid UTF-8, integers beyond 2^53, -0, duplicate keys, escapes, spacing, partialJson and a 600k string all survive', async () => {
  const header = B('{"type":"session","id":"s1","big":12345678901234567891,"neg":-0,"dup":1,"dup":2,"cwd":"/w\\u00e9"}');
  const e1 = Buffer.concat([B('{"type":"message","timestamp":"t1","message":{"role":"user","content":"a'), Buffer.from([0xff, 0xfe]), B('b","partialJson":"{\\"x\\""},"n":9007199254740993}')]);
  const e2 = B(`{"type":"message" , "message":{"role":"hookMessage","customType":"x","content":"${HUGE}"},"z":-0.0,"d":1,"d":2}`);
  const e3 = B('{"type":"compaction","summary":"s\\/","firstKeptEntryIndex":2,"tokensBefore":1e2}');
  const e4 = B('{"type":"custom","id":"x","id":6,"data":[1.0,2E0]}');
  const original = Buffer.concat([header, B('\n'), e1, B('\n'), e2, B('\r\n'), B('not json\n'), e3, B('\n'), e4, B('\n')]);
  const p = put(original);
  const l = await loadSessionFile(p);
  const ids = l.entries.map((e) => e.id);
  assert.equal(l.migration.idsAssigned, 4);

  const r = await rewriteSessionFile(p, l, guard(l));
  assert.deepEqual([r.copied, r.edited, r.reserialised], [0, 4, 0]);
  const expected = Buffer.concat([
    B('{"type":"session","version":3,"id":"s1","big":12345678901234567891,"neg":-0,"dup":1,"dup":2,"cwd":"/w\\u00e9"}\n'),
    B(`{"type":"message","id":"${ids[0]}","parentId":null,"timestamp":"t1","message":{"role":"user","content":"a`),
    Buffer.from([0xff, 0xfe]),
    B('b","partialJson":"{\\"x\\""},"n":9007199254740993}\n'),
    B(`{"type":"message","id":"${ids[1]}","parentId":"${ids[0]}" , "message":{"role":"custom","customType":"x","content":"${HUGE}"},"z":-0.0,"d":1,"d":2}\r\n`),
    B('not json\n'),
    B(`{"type":"compaction","id":"${ids[2]}","parentId":"${ids[1]}","summary":"s\\/","firstKeptEntryId":"${ids[1]}","tokensBefore":1e2}\n`),
    // duplicate "id": JSON.parse keeps the last one, so that is the one replaced
    B(`{"type":"custom","id":"x","id":"${ids[3]}","parentId":"${ids[2]}","data":[1.0,2E0]}\n`),
  ]);
  assert.equal(readFileSync(p).toString('latin1'), expected.toString('latin1'));

  const again = await loadSessionFile(p);
  assert.equal(again.changed, null);
  assert.deepEqual(again.entries.map((e) => e.id), ids, 'migrate wrote exactly the ids shown before it');
  assert.equal(JSON.stringify(again.entries), JSON.stringify(l.entries), 'the viewer shows the same entries, key order included, before and after');
});

/** The migrated record with its edits taken out again: must be the original record, byte for byte. */
function unmigrate(migrated: string, originalRecord: Buffer): string {
  const orig = JSON.parse(originalRecord.toString('utf8')) as Record<string, unknown>;
  let s = migrated.replace(/^(\{"type":"[^"]*")(,"id":"[0-9a-f]{8}")?(,"parentId":(null|"[0-9a-f]{8}"))?/, '$1');
  if ('firstKeptEntryIndex' in orig) s = s.replace(/"firstKeptEntryId":"[0-9a-f]{8}"/, `"firstKeptEntryIndex":${JSON.stringify(orig.firstKeptEntryIndex)}`);
  return s.replace(/"role":"custom"/, (m) => (originalRecord.includes('"role":"hookMessage"') ? '"role":"hookMessage"' : m));
}

for (const file of [...fixtureFiles('upstream'), ...fixtureFiles('upstream-full')]) {
  test(`real v1 fixture ${basename(file)}: migrate keeps every byte it does not edit (sha256 of the file with the edits taken out)`, async () => {
    const originalBytes = readFileSync(file);
    const p = put(originalBytes, `${n++}-${basename(file)}`);
    const l = await loadSessionFile(p);
    assert.ok(l.originalVersion < 3);
    await rewriteSessionFile(p, l, guard(l));
    const out = readFileSync(p);
    const m = await loadSessionFile(p);
    assert.deepEqual(m.entries.map((e) => e.id), l.entries.map((e) => e.id));
    assert.equal(JSON.stringify(m.entries), JSON.stringify(l.entries));
    // Rebuild the original from the migrated file: each record with its edits taken out, the
    // newline the rewrite put between glued records dropped, every other byte as written.
    const parts: Buffer[] = [];
    let pos = 0;
    const hr = m.headerRange!;
    parts.push(out.subarray(pos, hr.start), B(out.subarray(hr.start, hr.end).toString('utf8').replace('{"type":"session","version":3,', '{"type":"session",')));
    pos = hr.end;
    m.entries.forEach((_, i) => {
      let gap = out.subarray(pos, m.entryStarts[i]!);
      if (l.entryLines[i] === (i === 0 ? l.headerLine : l.entryLines[i - 1])) gap = gap.subarray(0, gap.length - 1); // the added newline
      const origRecord = originalBytes.subarray(l.entryStarts[i]!, l.entryEnds[i]!);
      parts.push(gap, B(unmigrate(out.subarray(m.entryStarts[i]!, m.entryEnds[i]!).toString('utf8'), origRecord)));
      pos = m.entryEnds[i]!;
    });
    parts.push(out.subarray(pos));
    assert.equal(sha(Buffer.concat(parts)), sha(originalBytes));
  });
}

test('a record that cannot be edited exactly refuses the migration, naming its line; nothing is written (never a silent re-serialisation)', async () => {
  // A v1 compaction with its firstKeptEntryIndex twice: renaming the last would leave the first.
  const text = '{"type":"session","id":"s"}\n{"type":"message","message":{"role":"user","content":"a"}}\n{"type":"compaction","summary":"s","firstKeptEntryIndex":1,"firstKeptEntryIndex":1}\n';
  const p = put(text);
  const l = await loadSessionFile(p);
  assert.deepEqual(await uneditableRecords(p, l), [{ line: 3, reason: '"firstKeptEntryIndex" occurs more than once' }]);
  await assert.rejects(rewriteSessionFile(p, l, guard(l)), (e: unknown) => e instanceof UnsafeRecordEditError && e.line === 3);
  assert.equal(readFileSync(p, 'utf8'), text);
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes(basename(p)) && f !== basename(p)), [], 'no temp file left');
});

test('title: only title/titleSource are written into the header; its other bytes (big integers, -0, duplicate keys, escapes, invalid UTF-8) stay', async () => {
  const header = Buffer.concat([B('{"type":"session","version":3,"id":"s","n":123456789012345678901,"z":-0,"k":1,"k":2,"p":"\\u00e9'), Buffer.from([0xc3]), B('"}')]);
  const rest = B('\n{"type":"message","id":"aaaaaaaa","parentId":null,"message":{"role":"user","content":"a"}}\n');
  const p = put(Buffer.concat([header, rest]));
  const l = await loadSessionFile(p);
  await rewriteHeaderLine(p, { ...l.header!, title: 'New', titleSource: 'user' }, guard(l));
  assert.ok(readFileSync(p).equals(Buffer.concat([header.subarray(0, header.length - 1), B(',"title":"New","titleSource":"user"}'), rest])));
  // and a title already there is replaced in place
  const l2 = await loadSessionFile(p);
  await rewriteHeaderLine(p, { ...l2.header!, title: 'Newer' }, { ...guard(l2), force: true });
  assert.ok(readFileSync(p).equals(Buffer.concat([header.subarray(0, header.length - 1), B(',"title":"Newer","titleSource":"user"}'), rest])));
});

test('SessionManager: migrate-on-open and setSessionName edit bytes too (bytes that are not UTF-8 and an integer beyond 2^53 survive both)', async () => {
  const bad = Buffer.from([0xff, 0xc3]);
  const original = Buffer.concat([
    B('{"type":"session","id":"s","n":12345678901234567891,"b":"'),
    bad,
    B('"}\n{"type":"message","timestamp":"t","message":{"role":"assistant","provider":"p","model":"m","content":[],"usage":{"input":90071992547409931},"x":"'),
    bad,
    B('"}}\n'),
  ]);
  const p = put(original);
  const shown = loadSessionFromText(original).entries.map((e) => e.id);
  const m = await SessionManager.open(p, { log: () => {} });
  assert.deepEqual(m.getEntries().map((e) => e.id), shown);
  const migrated = Buffer.concat([
    B('{"type":"session","version":3,"id":"s","n":12345678901234567891,"b":"'),
    bad,
    B(`"}\n{"type":"message","id":"${shown[0]}","parentId":null,"timestamp":"t","message":{"role":"assistant","provider":"p","model":"m","content":[],"usage":{"input":90071992547409931},"x":"`),
    bad,
    B('"}}\n'),
  ]);
  assert.ok(readFileSync(p).equals(migrated), readFileSync(p).toString('latin1'));
  await m.setSessionName('T');
  const titled = readFileSync(p);
  const nl = migrated.indexOf(0x0a);
  assert.ok(titled.equals(Buffer.concat([migrated.subarray(0, nl - 1), B(',"title":"T","titleSource":"user"}'), migrated.subarray(nl)])));
});
