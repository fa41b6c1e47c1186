// Issue 22 point 21: dsh logs (raw `.jsonl` with a dsh header, and `.jsonl.zstd`) are searched,
// not only listed. A hit names the session and the event it opens (`e<seq>`, the session editor's
// id for the event), and its snippet is the event's text read back from the file — for a zstd
// log from the frame that holds it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DshModel } from '../../src/core/engine/dsh/dshModel';
import { loadDshFile } from '../../src/core/formats/dsh/index';
import { sessionFilesUnder } from '../../src/core/search/indexUpdate';
import { SessionSearchIndex } from '../../src/core/search/searchIndex';
import { dshFixture, dshFixtureText, zstdLogOf } from '../helpers/dshBuild';

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A dsh root as dsh lays it out (`--<project>--/<id>/session.jsonl[.zstd]`) plus one xcsh session. */
function dshRoot(): { dir: string; root: string; raw: string; zstd: string; xcsh: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loom-search-dsh-'));
  made.push(dir);
  const root = join(dir, 'sessions');
  const raw = join(root, '--work-raw--', 'sess-raw', 'session.jsonl');
  const zstd = join(root, '--work-zstd--', 'sess-zstd', 'session.jsonl.zstd');
  const xcsh = join(root, '--work-x--', 'x.jsonl');
  for (const p of [raw, zstd, xcsh]) mkdirSync(join(p, '..'), { recursive: true });
  copyFileSync(dshFixture('dsh-interrupted-tool-outcome-unknown.session.jsonl'), raw);
  writeFileSync(zstd, zstdLogOf(dshFixtureText('dsh-compaction-recovery.session.jsonl'), 4));
  writeFileSync(
    xcsh,
    [
      { type: 'session', version: 3, id: 'x1', timestamp: '2026-06-01T10:00:00.000Z', cwd: '/work/x' },
      { type: 'message', id: 'aaaa0001', parentId: null, timestamp: '2026-06-01T10:01:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'an xcsh prompt about mutation testing' }] } },
    ]
      .map((o) => JSON.stringify(o) + '\n')
      .join(''),
  );
  return { dir, root, raw, zstd, xcsh };
}

async function withIndex(f: (idx: SessionSearchIndex, r: ReturnType<typeof dshRoot>) => Promise<void>): Promise<void> {
  const r = dshRoot();
  const idx = await SessionSearchIndex.open(join(r.dir, 'cache', 'index.db'));
  try {
    await idx.update([r.root]);
    await f(idx, r);
  } finally {
    idx.close();
  }
}

/** The text of the dsh event an entry id (`e<seq>`) opens, as the dsh reader loads it. */
async function eventText(path: string, entryId: string): Promise<string> {
  assert.match(entryId, /^e\d+$/, 'a dsh hit opens an event by its seq');
  const log = await loadDshFile(path);
  return JSON.stringify(log.events.at(Number(entryId.slice(1)))?.data ?? null);
}

test('dsh logs are listed for the index: raw .jsonl and .jsonl.zstd', async () => {
  const r = dshRoot();
  const files = [...sessionFilesUnder([r.root]).keys()].sort();
  assert.deepEqual(files, [r.raw, r.xcsh, r.zstd].sort());
});

test('a word only in a zstd dsh log finds it, with a snippet holding the word and the event to open', async () => {
  await withIndex(async (idx, r) => {
    const out = await idx.search('RECOVERED', { entriesPerSession: 3 });
    assert.deepEqual(
      out.results.sessions.map((s) => s.file),
      [r.zstd],
    );
    const hits = out.entries[r.zstd]!;
    // The prompt (seq 4) asks for the words, the assistant (seq 28) says them: both, in file order.
    assert.deepEqual(
      hits.map((h) => h.entryId),
      ['e4', 'e28'],
    );
    for (const h of hits) assert.match(h.snippet.text, /RECOVERED/);
    const hit = hits[1]!;
    assert.match(await eventText(r.zstd, hit.entryId), /COMPACTION RECOVERED/);
    // The session editor selects that event by the same id, and the message is in its context.
    const model = await DshModel.open(r.zstd);
    assert.equal(await model.has(hit.entryId), true);
    const at = await model.locate(hit.entryId, hit.entryId);
    assert.notEqual(at.messageIndex, null, 'the hit opens a message the preview shows');
    // The header's cwd is the session's.
    assert.equal(out.results.sessions[0]!.cwd, '{{cwd}}');
  });
});

test('a word only in a raw dsh log finds it; a phrase is checked on the text read back; role: and tool: filter dsh rows', async () => {
  await withIndex(async (idx, r) => {
    const words = await idx.search('mutation', { entriesPerSession: 3 });
    assert.deepEqual(words.results.sessions.map((s) => s.file).sort(), [r.raw, r.xcsh].sort());
    const hit = words.entries[r.raw]![0]!;
    assert.equal(hit.entryId, 'e1');
    assert.match(hit.snippet.text, /mutation/);
    assert.match(await eventText(r.raw, hit.entryId), /side-effecting remote mutation/);

    // Phrases are checked on the real text (rowText): in a raw and in a zstd log.
    const phrase = await idx.search('"remote mutation"', { entriesPerSession: 3 });
    assert.deepEqual(phrase.results.sessions.map((s) => s.file), [r.raw]);
    assert.match(phrase.entries[r.raw]![0]!.snippet.text, /remote mutation/);
    const zphrase = await idx.search('"compaction recovered"', { entriesPerSession: 3 });
    assert.deepEqual(zphrase.results.sessions.map((s) => s.file), [r.zstd]);
    assert.deepEqual(
      zphrase.entries[r.zstd]!.map((h) => h.entryId),
      ['e4', 'e28'],
    );
    assert.deepEqual(idx.matchIds('"compaction recovered"', r.zstd).sort(), ['e28', 'e4']);
    assert.deepEqual((await idx.search('"recovered compaction"')).results.sessions, [], 'the order of a phrase is checked');

    // role: and tool: (a tool result is named by the call it answers).
    assert.deepEqual(idx.matchIds('role:assistant RECOVERED', r.zstd), ['e28']);
    assert.deepEqual(idx.matchIds('role:user RECOVERED', r.zstd), ['e4']);
    assert.deepEqual(idx.matchIds('role:toolResult RECOVERED', r.zstd), []);
    const toolHits = idx.entryHits('tool:write_remote', r.raw, 10).map((h) => h.entryId);
    assert.ok(toolHits.includes('e3') && toolHits.includes('e5'), `the call and its result: ${toolHits.join(',')}`);
  });
});

test('a raw dsh log that grew is read again: its new words are found', async () => {
  await withIndex(async (idx, r) => {
    assert.deepEqual((await idx.search('zanzibarite')).results.sessions, []);
    const log = await loadDshFile(r.raw);
    const seq = log.events.length;
    appendFileSync(
      r.raw,
      JSON.stringify({ type: 'turn/start', seq, time: 1, data: { turn: 3 } }) +
        '\n' +
        JSON.stringify({ type: 'user/message', seq: seq + 1, time: 2, data: { id: 'm3', role: 'user', content: [{ type: 'text', text: 'now about zanzibarite' }], source: { kind: 'user' } }, surfaceOp: 'append' }) +
        '\n',
    );
    const st = await idx.update([r.root]);
    assert.equal(st.reindexed, 1);
    const out = await idx.search('zanzibarite', { entriesPerSession: 2 });
    assert.deepEqual(out.results.sessions.map((s) => s.file), [r.raw]);
    assert.equal(out.entries[r.raw]![0]!.entryId, `e${seq + 1}`);
    assert.match(out.entries[r.raw]![0]!.snippet.text, /zanzibarite/);
  });
});
