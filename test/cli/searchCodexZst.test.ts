// `session-loom search` over a compressed Codex rollout (`~/.codex/sessions/…/rollout-….jsonl.zst`,
// issue 24) through the BUILT binary: indexed from its decoded text on first use, and found again
// by a second process on the kept index, which must load what decoding needs before it reads a
// row back (its snippet, a phrase's check) — the first process indexed it, the second only reads.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/fixtures';
import { assertCliBuilt, runCli } from '../helpers/runCli';
import { zstdFrame } from '../helpers/dshBuild';

let home: string;
let cache: string;
let zst: string;

function search(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CACHE_HOME: cache };
  delete env.CODEX_HOME;
  return runCli(['search', ...args], { env, timeout: 120_000 });
}

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-codex-zst-home-'));
  cache = mkdtempSync(join(tmpdir(), 'sl-codex-zst-cache-'));
  zst = join(home, '.codex', 'sessions', '2026', '06', '05', 'rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl.zst');
  mkdirSync(join(zst, '..'), { recursive: true });
  const text = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'codex', 'agent-history', 'session-01.jsonl'), 'utf8').replace('[REDACTED_PROMPT]', 'explain the hafnium lattice please');
  writeFileSync(zst, zstdFrame(text, { check: true }));
});

after(() => {
  for (const d of [home, cache]) rmSync(d, { recursive: true, force: true });
});

test('a compressed Codex rollout is searched from its decoded text, by the process that indexed it and by the next one', () => {
  for (const run of ['first (builds the index)', 'second (reads the kept index)']) {
    const r = search('"hafnium lattice"', '--json');
    assert.equal(r.code, 0, `${run}: ${r.stderr}`);
    const out = r.json();
    assert.deepEqual(out.sessions.map((s: { file: string }) => s.file), [zst], run);
    assert.equal(out.sessions[0].agent, 'codex');
    assert.deepEqual(out.sessions[0].entries.map((e: { entryId: string }) => e.entryId), ['L6'], run);
    assert.match(out.sessions[0].entries[0].snippet, /explain the hafnium lattice please/, run);
  }
});
