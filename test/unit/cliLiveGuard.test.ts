// Issue 14 §6: the CLI's live guard where the open-writer scan cannot see (no /proc: macOS,
// Windows). Real files and a real record file; only the scan's answer is given, as that platform's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, realpathSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliLiveWindow, rememberOwnWrite } from '../../src/cli/liveGuard';
import { RewriteRefusedError } from '../../src/core/store/writeRefusal';
import { scanWriters, type WriterScan } from '../../src/core/store/openWriters';

const blind = async (): Promise<WriterScan> => ({ writers: [], inconclusive: 'no-proc' });
const nobodyThere = async (): Promise<WriterScan> => ({ writers: [], inconclusive: null });

function session(): { file: string; ownWrites: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sl-cli-live-'));
  const file = join(dir, 's.jsonl');
  writeFileSync(file, '{"type":"session","version":3,"id":"s"}\n');
  return { file, ownWrites: join(dir, 'cache', 'own-writes.json') };
}

const liveRefusal = (why: RegExp) => (e: unknown) => e instanceof RewriteRefusedError && e.reason === 'live' && e.forceable && why.test(e.detail);

test('§6 no /proc: a file modified a moment ago is refused as live, saying why the time rule stands', async () => {
  const { file, ownWrites } = session();
  await assert.rejects(cliLiveWindow(file, 'replace', false, { scan: blind, ownWrites }), liveRefusal(/^it was modified \d+\.\d s ago and this system cannot show which processes have a file open, so an agent may be writing it$/));
  assert.equal(await cliLiveWindow(file, 'replace', true, { scan: blind, ownWrites }), undefined, '--force: the core decides, and skips the guesses');
});

test("§6 no /proc: the CLI's own last write waives the time rule until anyone else writes the file", async () => {
  const { file, ownWrites } = session();
  await rememberOwnWrite(file, { ownWrites });
  assert.equal(await cliLiveWindow(file, 'append', false, { scan: blind, ownWrites }), 0);
  appendFileSync(file, '{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}\n'); // the agent
  await assert.rejects(cliLiveWindow(file, 'append', false, { scan: blind, ownWrites }), liveRefusal(/modified/));
});

test('§6 a record of another file, or a damaged record file, waives nothing', async () => {
  const { file, ownWrites } = session();
  const other = session();
  await rememberOwnWrite(other.file, { ownWrites });
  await assert.rejects(cliLiveWindow(file, 'replace', false, { scan: blind, ownWrites }), liveRefusal(/modified/));
  writeFileSync(ownWrites, '{"writes": [{"path": 1}');
  await assert.rejects(cliLiveWindow(file, 'replace', false, { scan: blind, ownWrites }), liveRefusal(/modified/));
  await rememberOwnWrite(file, { ownWrites }); // and a damaged record file is replaced, not an error
  assert.equal(await cliLiveWindow(file, 'replace', false, { scan: blind, ownWrites }), 0);
});

test('§6 a scan that sees nobody holding a fresh file: not live; an old file is left to the core', async () => {
  const { file, ownWrites } = session();
  assert.equal(await cliLiveWindow(file, 'replace', false, { scan: nobodyThere, ownWrites }), 0);
  const t = new Date(Date.now() - 60_000);
  utimesSync(file, t, t);
  assert.equal(await cliLiveWindow(file, 'replace', false, { scan: blind, ownWrites }), undefined);
});

test('§6 scanWriters: nobody holding the file is a fact only for a full scan (Linux); one cut short, or with no /proc, proves nothing', async () => {
  const { file } = session();
  const st = statSync(file);
  const me = { dev: st.dev, ino: st.ino, uid: st.uid };
  const full = await scanWriters(realpathSync(file), me);
  assert.deepEqual(full.writers, []);
  assert.equal(full.inconclusive, process.platform === 'linux' ? null : 'no-proc');
  const cut = await scanWriters(realpathSync(file), me, { maxFds: 0 });
  assert.notEqual(cut.inconclusive, null);
});
