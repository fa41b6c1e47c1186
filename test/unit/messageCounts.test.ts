// A session's message count is computed one way (issue 14, point 5): the Sessions row counts, before
// the session is ever read, exactly what its stats count once it is — so the number never changes.
// The damaged fixtures are where a line scan went wrong: gjc-04 has a line with a bad escape (the
// scan said 144, the session holds 143), pi-session two records glued on one line (453 vs 454).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openSessionDocument } from '../reference/document';
import { COUNT_READ_LIMIT, countMessages, messageCountOf, MessageCounts } from '../../src/extension/sessions/messageCounts';
import { fixture, fixtureFiles } from '../helpers/fixtures';

describe('message counts', () => {
  it('before a session is read, its row counts what its stats count once it is (every fixture, damaged ones too)', async () => {
    const files = ['upstream', 'upstream-full', 'real-v3', 'dsh'].flatMap(fixtureFiles);
    assert.ok(files.length >= 14);
    for (const file of files) {
      const doc = await openSessionDocument(file);
      assert.equal(await countMessages(file), messageCountOf(doc.stats()), file);
    }
    assert.equal(await countMessages(fixture('real-v3', 'gjc-04-awesome-agent-ide.jsonl')), 143, 'the line with a bad escape is no message');
    assert.equal(await countMessages(fixture('upstream-full', 'pi-session.jsonl')), 454, 'both glued records are messages');
  });

  it('counts one file at a time, answers from its cache, and drops a count the file outgrew', async () => {
    let running = 0;
    let most = 0;
    const asked: string[] = [];
    const counts = new MessageCounts(async (file) => {
      asked.push(file);
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return file.length;
    });
    const ready: [string, number][] = [];
    for (const f of ['a', 'bb', 'ccc']) assert.equal(counts.get(f, 1, 1, (n) => ready.push([f, n])), undefined);
    // 'bb' changes before its count runs: only the new stamp's count is reported.
    assert.equal(counts.get('bb', 2, 2, (n) => ready.push(['bb2', n])), undefined);
    await counts.idle();
    assert.equal(most, 1, 'one count at a time');
    assert.deepEqual(ready, [['a', 1], ['ccc', 3], ['bb2', 2]]);
    assert.equal(counts.get('a', 1, 1, () => assert.fail('cached')), 1);
    assert.deepEqual(asked, ['a', 'ccc', 'bb']);
    // A file too large to read for a label is left to the full read the user asks for.
    assert.equal(counts.get('huge', COUNT_READ_LIMIT + 1, 1, () => assert.fail('never read')), undefined);
    await counts.idle();
    assert.ok(!asked.includes('huge'));
  });

  it('an unreadable file gives no count and no error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sl-count-'));
    const counts = new MessageCounts();
    counts.get(dir, 10, 1, () => assert.fail('a folder has no count'));
    await counts.idle();
    const file = join(dir, 'ok.jsonl');
    writeFileSync(file, '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}\n');
    let got = -1;
    counts.get(file, 1, 1, (n) => (got = n));
    await counts.idle();
    assert.equal(got, 1);
  });
});
