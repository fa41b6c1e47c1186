// Issue 24: Codex rollouts and Claude Code transcripts are searched through the index, not only
// listed, and `agent:` keeps the sessions of one agent. A planted word in a copy of a real fixture
// is found at the entry the editor opens (Codex `L<line>`, Claude uuid), with a snippet read back
// from the file; phrases are checked on that text; a changed file is read again whole.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClaudeModel } from '../../src/core/engine/claude/claudeModel';
import { CodexModel } from '../../src/core/engine/codex/codexModel';
import { parseSearchQuery } from '../../src/core/search/queryLanguage';
import { SessionSearchIndex } from '../../src/core/search/searchIndex';
import { REPO_ROOT } from '../helpers/fixtures';
import { zstdFrame } from '../helpers/dshBuild';

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const fixture = (rel: string): string => readFileSync(join(REPO_ROOT, 'test', 'fixtures', rel), 'utf8');
const CODEX_FIXTURE = 'codex/agent-history/session-01.jsonl';
const CODEX_BIG = 'codex/agentcmd/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl';
const CLAUDE_FIXTURE = 'claude-code/spotter/short.jsonl';
/** The prompt of short.jsonl (line 4) and of the Codex fixture (line 6). */
const CLAUDE_PROMPT_UUID = '7d48cbd2-6615-4dd8-87f6-38f12b8167d6';

function planted(rel: string, from: string, to: string): string {
  const text = fixture(rel);
  assert.ok(text.includes(from), `${rel} holds ${from}`);
  return text.replace(from, to);
}

/** One root with a Codex rollout, a Claude transcript and an xcsh session, each saying "zirconium lattice". */
function agentsRoot(): { dir: string; root: string; codex: string; codexBig: string; claude: string; xcsh: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loom-search-agents-'));
  made.push(dir);
  const root = join(dir, 'sessions');
  const codex = join(root, 'codex', '2026', '06', '05', 'rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl');
  const codexBig = join(root, 'codex', '2025', '09', '24', CODEX_BIG.split('/').pop()!);
  const claude = join(root, 'claude', '-home-marco-projects-spotter', 'short.jsonl');
  const xcsh = join(root, 'xcsh', '--work-x--', 'x.jsonl');
  for (const p of [codex, codexBig, claude, xcsh]) mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(codex, planted(CODEX_FIXTURE, '[REDACTED_PROMPT]', 'explain the zirconium lattice please'));
  writeFileSync(codexBig, fixture(CODEX_BIG));
  writeFileSync(claude, planted(CLAUDE_FIXTURE, 'mix phx.server doesnt seem to start', 'the zirconium lattice doesnt seem to start'));
  writeFileSync(
    xcsh,
    [
      { type: 'session', version: 3, id: 'x1', timestamp: '2026-06-01T10:00:00.000Z', cwd: '/work/x' },
      { type: 'message', id: 'aaaa0001', parentId: null, timestamp: '2026-06-01T10:01:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'an xcsh prompt about the zirconium lattice' }] } },
    ]
      .map((o) => JSON.stringify(o) + '\n')
      .join(''),
  );
  return { dir, root, codex, codexBig, claude, xcsh };
}

async function withIndex(f: (idx: SessionSearchIndex, r: ReturnType<typeof agentsRoot>) => Promise<void>): Promise<void> {
  const r = agentsRoot();
  const idx = await SessionSearchIndex.open(join(r.dir, 'cache', 'index.db'));
  try {
    await idx.update([r.root]);
    await f(idx, r);
  } finally {
    idx.close();
  }
}

test('a word planted in a Codex rollout and a Claude transcript is found at the entry the editor opens, with a snippet read back from the file', async () => {
  await withIndex(async (idx, r) => {
    const out = await idx.search('zirconium', { entriesPerSession: 3 });
    assert.deepEqual(out.results.sessions.map((s) => s.file).sort(), [r.claude, r.codex, r.xcsh].sort());
    const agents = Object.fromEntries(out.results.sessions.map((s) => [s.file, s.agent]));
    assert.deepEqual(agents, { [r.claude]: 'claude', [r.codex]: 'codex', [r.xcsh]: 'xcsh' });

    const codexHits = out.entries[r.codex]!;
    assert.deepEqual(
      codexHits.map((h) => h.entryId),
      ['L6'],
    );
    assert.match(codexHits[0]!.snippet.text, /zirconium lattice/);
    assert.equal(codexHits[0]!.time, Date.parse('2026-06-05T04:58:23.506Z'));
    const codexModel = await CodexModel.open(r.codex);
    assert.equal(await codexModel.has('L6'), true, 'the Codex model has the row the hit opens');
    assert.equal(out.results.sessions.find((s) => s.file === r.codex)!.cwd, '/tmp/agent-history-real-agent/codex/workspace');

    const claudeHits = out.entries[r.claude]!;
    assert.deepEqual(
      claudeHits.map((h) => h.entryId),
      [CLAUDE_PROMPT_UUID],
    );
    assert.match(claudeHits[0]!.snippet.text, /zirconium lattice doesnt seem/);
    const claudeModel = await ClaudeModel.open(r.claude);
    assert.equal(await claudeModel.has(CLAUDE_PROMPT_UUID), true, 'the Claude model has the record the hit opens');
    assert.equal(out.results.sessions.find((s) => s.file === r.claude)!.cwd, '/home/marco/projects/spotter');
  });
});

test('agent: keeps one agent\'s sessions (several OR-ed; pi counts as xcsh), alone it lists them, and an unknown agent is a problem', async () => {
  await withIndex(async (idx, r) => {
    const files = async (q: string): Promise<string[]> => (await idx.search(q)).results.sessions.map((s) => s.file).sort();
    assert.deepEqual(await files('zirconium agent:codex'), [r.codex]);
    assert.deepEqual(await files('zirconium agent:claude'), [r.claude]);
    assert.deepEqual(await files('zirconium agent:xcsh'), [r.xcsh]);
    assert.deepEqual(await files('zirconium agent:pi'), [r.xcsh]);
    assert.deepEqual(await files('zirconium agent:dsh'), []);
    assert.deepEqual(await files('zirconium agent:codex agent:claude'), [r.claude, r.codex].sort());
    assert.deepEqual(await files('agent:codex'), [r.codex, r.codexBig].sort(), 'agent: alone lists every session of the agent');
    assert.equal(idx.matchIds('agent:codex', r.codex).includes('L6'), true);
    assert.equal(idx.matchIds('agent:codex -zirconium', r.codex).includes('L6'), false, 'an exclusion leaves out the entries holding the word');
    assert.deepEqual(parseSearchQuery('agent:CODEX agent:claude-code').agents, ['codex', 'claude']);
    const bad = await idx.search('zirconium agent:gemini');
    assert.deepEqual(bad.results.problems, ['agent: expects xcsh, dsh, claude or codex, not "gemini"']);
    // A session's own matches keep to the filter too.
    assert.deepEqual(idx.matchIds('zirconium agent:codex', r.codex), ['L6']);
    assert.deepEqual(idx.matchIds('zirconium agent:claude', r.codex), []);
  });
});

test('Codex and Claude rows: phrases checked on the text read back, role: and tool: as in xcsh (a result named by its call)', async () => {
  await withIndex(async (idx, r) => {
    const phrase = await idx.search('"zirconium lattice doesnt"', { entriesPerSession: 3 });
    assert.deepEqual(phrase.results.sessions.map((s) => s.file), [r.claude]);
    assert.deepEqual((await idx.search('"lattice zirconium"')).results.sessions, [], 'the order of a phrase is checked');
    const codexPhrase = await idx.search('"explain the zirconium"', { entriesPerSession: 3 });
    assert.deepEqual(codexPhrase.results.sessions.map((s) => s.file), [r.codex]);
    assert.deepEqual(
      codexPhrase.entries[r.codex]!.map((h) => h.entryId),
      ['L6'],
    );

    assert.deepEqual(idx.matchIds('role:user zirconium', r.codex), ['L6']);
    assert.deepEqual(idx.matchIds('role:assistant zirconium', r.codex), []);
    // The rollout's shell calls (assistant) and their outputs (toolResult, named by the call's call_id).
    const calls = idx.matchIds('tool:shell role:assistant', r.codexBig);
    const outputs = idx.matchIds('tool:shell role:toolResult', r.codexBig);
    assert.equal(calls.length, 16);
    assert.equal(outputs.length, 16);
    const model = await CodexModel.open(r.codexBig);
    for (const id of [...calls, ...outputs]) assert.equal(await model.has(id), true, id);
    // Contextual user messages (environment context) are not role:user.
    assert.deepEqual(idx.matchIds('role:user environment_context', r.codexBig), []);
    // Reasoning (thinking) is not searchable text.
    assert.deepEqual((await idx.search('encrypted_content agent:codex')).results.sessions, []);
  });
});

test('a Codex rollout or Claude transcript that grew is read again whole: its new words are found, its title indexed', async () => {
  await withIndex(async (idx, r) => {
    appendFileSync(
      r.codex,
      JSON.stringify({ timestamp: '2026-06-05T05:00:00.000Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'the hafnium answer' }] } }) + '\n',
    );
    appendFileSync(r.claude, JSON.stringify({ type: 'custom-title', customTitle: 'Hafnium title', sessionId: '55604662-cf2a-4331-851a-ec234028f8ca' }) + '\n');
    const stats = await idx.update([r.root]);
    assert.equal(stats.reindexed, 2);
    assert.equal(stats.appended, 0, 'no appended-tail read for these formats');
    const out = await idx.search('hafnium', { entriesPerSession: 3 });
    assert.deepEqual(out.results.sessions.map((s) => s.file).sort(), [r.claude, r.codex].sort());
    const codexLines = fixture(CODEX_FIXTURE).split('\n').filter((l) => l !== '').length;
    assert.deepEqual(
      out.entries[r.codex]!.map((h) => h.entryId),
      [`L${codexLines + 1}`],
    );
    const claude = out.results.sessions.find((s) => s.file === r.claude)!;
    assert.equal(claude.titleMatch, true);
    assert.equal(claude.title, 'Hafnium title');
    assert.deepEqual(
      out.entries[r.claude]!.map((h) => [h.entryId, h.snippet.text]),
      [['', 'Hafnium title']],
    );
    // The earlier words are still there, once.
    assert.deepEqual(idx.matchIds('zirconium', r.codex), ['L6']);
  });
});

test('a compressed Codex rollout (.jsonl.zst, several zstd frames) is indexed from its decoded text: the same hits, entry ids, snippets and phrase checks as the plain one (codex-format.md A.1)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-search-zst-'));
  made.push(dir);
  const root = join(dir, 'sessions');
  const plainDir = join(root, 'plain', '2026', '06', '05');
  const zstDir = join(root, 'cold', '2026', '06', '05');
  mkdirSync(plainDir, { recursive: true });
  mkdirSync(zstDir, { recursive: true });
  const text = planted(CODEX_FIXTURE, '[REDACTED_PROMPT]', 'explain the hafnium lattice please');
  const name = 'rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl';
  writeFileSync(join(plainDir, name), text);
  // Two frames, the second with a checksum: the way the CLI's stream encoder may leave a file.
  const lines = text.split('\n');
  const half = Math.floor(lines.length / 2);
  const zst = join(zstDir, `${name}.zst`);
  writeFileSync(zst, Buffer.concat([zstdFrame(lines.slice(0, half).join('\n') + '\n'), zstdFrame(lines.slice(half).join('\n'), { check: true })]));
  const idx = await SessionSearchIndex.open(join(dir, 'cache', 'index.db'));
  try {
    const stats = await idx.update([root]);
    assert.equal(stats.files, 2, 'the .jsonl.zst is listed for the index');
    for (const q of ['hafnium', '"hafnium lattice"', 'hafn* agent:codex']) {
      const out = await idx.search(q, { entriesPerSession: 3 });
      assert.deepEqual(out.results.sessions.map((s) => s.file).sort(), [join(plainDir, name), zst].sort(), q);
      const [plain, cold] = [out.entries[join(plainDir, name)]!, out.entries[zst]!];
      assert.deepEqual(cold.map((h) => h.entryId), ['L6'], q);
      assert.deepEqual(cold.map((h) => h.snippet), plain.map((h) => h.snippet), `${q}: the snippet read back from the decoded text`);
      assert.deepEqual(idx.matchIds(q, zst), idx.matchIds(q, join(plainDir, name)), q);
    }
    assert.deepEqual((await idx.search('"lattice hafnium"')).results.sessions, [], 'a phrase is checked in order on the decoded text');
  } finally {
    idx.close();
  }
  // A fresh process (the CLI's case): the first search loads what decoding needs before reading rows back.
  const again = await SessionSearchIndex.open(join(dir, 'cache', 'index.db'));
  try {
    const out = await again.search('"hafnium lattice"', { entriesPerSession: 1 });
    assert.match(out.entries[zst]![0]!.snippet.text, /hafnium lattice/);
  } finally {
    again.close();
  }
});
