// Every real fixture loads with the record and diagnostic counts read off the files themselves
// (line counts with `wc -l`, failing lines with a plain JSON.parse loop — see each README).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { fixture, fixtureFiles } from '../helpers/fixtures';

interface Expect {
  entries: number;
  header: boolean;
  /** [line, kind] of every diagnostic, in line order */
  diags: [number, string][];
  version: number;
}

const EXPECT: Record<string, Expect> = {
  // upstream/ excerpts: header + N whole lines, all v1
  'pi-before-compaction.v1.bash-execution-tail.jsonl': { entries: 9, header: true, diags: [], version: 1 },
  'pi-before-compaction.v1.model-change-burst.jsonl': { entries: 12, header: true, diags: [], version: 1 },
  // 6 lines, the last one = assistant + compaction glued → 7 records; its index 1013 is out of range here
  'pi-compact.v1.glued-compaction.jsonl': { entries: 6, header: true, diags: [[6, 'glued-records'], [6, 'unresolved-compaction']], version: 1 },
  'pi-compact.v1.toolresult-image.jsonl': { entries: 2, header: true, diags: [], version: 1 },
  'pi-large-session.v1.head25.jsonl': { entries: 24, header: true, diags: [], version: 1 },
  'pi-large-session.v1.thinking-burst.jsonl': { entries: 80, header: true, diags: [], version: 1 },
  // 17 lines, line 11 holds two records → 18 records = header + 17 entries (upstream loads 17 records)
  'pi-session.v1.glued-records.jsonl': { entries: 17, header: true, diags: [[11, 'glued-records']], version: 1 },
  // upstream-full: README counts (glued split)
  'pi-before-compaction.jsonl': { entries: 1002, header: true, diags: [], version: 1 },
  'pi-compact.jsonl': { entries: 1013, header: true, diags: [[1013, 'glued-records']], version: 1 },
  'pi-large-session.jsonl': { entries: 1018, header: true, diags: [], version: 1 },
  'pi-session.jsonl': { entries: 463, header: true, diags: [[440, 'glued-records']], version: 1 },
  // real-v3: masking left invalid escapes
  'gjc-01-youtube-transcript-extraction.jsonl': { entries: 381, header: false, diags: [[1, 'no-header'], [60, 'invalid-json']], version: 1 },
  'gjc-03-raddit-dashboard-pr.jsonl': { entries: 585, header: true, diags: [[31, 'invalid-json']], version: 3 },
  'gjc-04-awesome-agent-ide.jsonl': { entries: 158, header: true, diags: [[44, 'invalid-json']], version: 3 },
};

const files = ['upstream', 'upstream-full', 'real-v3'].flatMap((d) => fixtureFiles(d));

test('every fixture has an expectation', () => {
  assert.equal(files.length, Object.keys(EXPECT).length);
  for (const f of files) assert.ok(EXPECT[basename(f)], basename(f));
});

for (const f of files) {
  const name = basename(f);
  test(`loads ${name}`, async () => {
    const e = EXPECT[name]!;
    const l = await loadSessionFile(f);
    assert.equal(l.entries.length, e.entries);
    assert.equal(l.header !== null, e.header);
    assert.equal(l.originalVersion, e.version);
    assert.deepEqual(
      l.diagnostics.map((d) => [d.line, d.kind]),
      e.diags,
    );
    assert.equal(l.readOnlyReason !== null, !e.header);
    assert.equal(l.entryLines.length, l.entries.length);
    if (e.header) {
      assert.equal(l.header!.version, 3, 'migrated in memory');
      // after migration every entry has a unique 8-hex id
      const ids = new Set(l.entries.map((x) => x.id));
      if (e.version === 1) {
        assert.equal(ids.size, l.entries.length);
        for (const id of ids) assert.match(id, /^[0-9a-f]{8}$/);
      }
    }
  });
}

test('glued records: both halves of pi-session line 11 are recovered, in order', async () => {
  const l = await loadSessionFile(fixture('upstream', 'pi-session.v1.glued-records.jsonl'));
  const onLine11 = l.entries.filter((_, i) => l.entryLines[i] === 11);
  assert.equal(onLine11.length, 2);
  assert.deepEqual(
    onLine11.map((e) => (e as { message: { role: string } }).message.role),
    ['assistant', 'user'],
  );
});

test('glued compaction is kept (upstream loses it)', async () => {
  const l = await loadSessionFile(fixture('upstream', 'pi-compact.v1.glued-compaction.jsonl'));
  const last = l.entries.at(-1)!;
  assert.equal(last.type, 'compaction');
  assert.equal(l.entryLines.at(-1), 6);
  // index 1013 is out of range in the excerpt: kept, not invented
  assert.equal((last as Record<string, unknown>).firstKeptEntryIndex, 1013);
  assert.equal((last as Record<string, unknown>).firstKeptEntryId, undefined);
});

test('pi-before-compaction: firstKeptEntryIndex 293 / 551 map to the user messages on lines 294 / 552', async () => {
  const l = await loadSessionFile(fixture('upstream-full', 'pi-before-compaction.jsonl'));
  const comps = l.entries.map((e, i) => [e, i] as const).filter(([e]) => e.type === 'compaction');
  assert.equal(comps.length, 2);
  assert.deepEqual(comps.map(([, i]) => l.entryLines[i]), [360, 629]);
  const expected = [
    { line: 294, text: "i reviwed what we have, it's good. continue" },
    { line: 552, text: 'can leave it' },
  ];
  comps.forEach(([c], k) => {
    const rec = c as Record<string, unknown>;
    assert.equal(rec.firstKeptEntryIndex, undefined);
    const targetIdx = l.entries.findIndex((e) => e.id === rec.firstKeptEntryId);
    // index k counts with the header at 0, so it names entries[k - 1]
    assert.equal(targetIdx, [293, 551][k]! - 1);
    assert.equal(l.entryLines[targetIdx], expected[k]!.line);
    const msg = (l.entries[targetIdx] as { message: { role: string; content: { text: string }[] } }).message;
    assert.equal(msg.role, 'user');
    assert.equal(msg.content[0]!.text, expected[k]!.text);
  });
  assert.equal(l.migration.compactionsMigrated, 2);
});

test('gjc-04: the children of the unreadable line 44 point at a parent that is not loaded', async () => {
  const l = await loadSessionFile(fixture('real-v3', 'gjc-04-awesome-agent-ide.jsonl'));
  const ids = new Set(l.entries.map((e) => e.id));
  const orphans = l.entries.filter((e) => typeof e.parentId === 'string' && !ids.has(e.parentId));
  assert.deepEqual(orphans.map((e) => l.entryLines[l.entries.indexOf(e)]), [45]);
  assert.equal(l.changed, null, 'a v3 file is not changed by loading');
});

test('gjc-03 keeps its compaction and v3 ids', async () => {
  const l = await loadSessionFile(fixture('real-v3', 'gjc-03-raddit-dashboard-pr.jsonl'));
  assert.equal(l.entries.filter((e) => e.type === 'compaction').length, 1);
  assert.equal(l.migration.idsAssigned, 0);
});
