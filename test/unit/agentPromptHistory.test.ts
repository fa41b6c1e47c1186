// Issue 24: Claude Code's and Codex's history.jsonl beside xcsh's history.db. Each is read as a
// prompt history (both Codex id field names), searched by word starts, filtered by project, and
// "Open in Session" finds the session the line names (Claude: `<sessionId>.jsonl` under projects,
// Codex: the rollout whose name ends with the thread id) and the prompt in it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allDefaultHistoryPaths, openAnyPromptHistory } from '../../src/core/history/agentPromptHistory';
import { locateAnyPrompt } from '../../src/core/history/agentPromptSessions';
import { HistoryError } from '../../src/core/history/promptHistory';
import { REPO_ROOT } from '../helpers/fixtures';

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const fixture = (rel: string): string => join(REPO_ROOT, 'test', 'fixtures', rel);
const line = (o: object): string => JSON.stringify(o) + '\n';

const CLAUDE_SESSION = '55604662-cf2a-4331-851a-ec234028f8ca';
const CODEX_THREAD_NEW = '01997ea4-a70d-7da3-8c20-c736db82a7c5';
const CODEX_THREAD_OLD = '019e9625-802f-7e91-840a-cfe88d14117a';

/** A home with ~/.claude and ~/.codex as the agents lay them out, their sessions copied from the fixtures. */
function agentHome(): { home: string; claudeHistory: string; codexHistory: string; claudeFile: string; codexNew: string; codexOld: string } {
  const home = mkdtempSync(join(tmpdir(), 'loom-agent-history-'));
  made.push(home);
  const claudeFile = join(home, '.claude', 'projects', '-home-marco-projects-spotter', `${CLAUDE_SESSION}.jsonl`);
  const codexNew = join(home, '.codex', 'sessions', '2025', '09', '24', `rollout-2025-09-24T20-12-23-${CODEX_THREAD_NEW}.jsonl`);
  const codexOld = join(home, '.codex', 'archived_sessions', `rollout-2026-06-05T04-58-20-${CODEX_THREAD_OLD}.jsonl`);
  for (const p of [claudeFile, codexNew, codexOld]) mkdirSync(join(p, '..'), { recursive: true });
  copyFileSync(fixture('claude-code/spotter/short.jsonl'), claudeFile);
  copyFileSync(fixture(`codex/agentcmd/rollout-2025-09-24T20-12-23-${CODEX_THREAD_NEW}.jsonl`), codexNew);
  copyFileSync(fixture('codex/agent-history/session-01.jsonl'), codexOld);
  const claudeHistory = join(home, '.claude', 'history.jsonl');
  writeFileSync(
    claudeHistory,
    line({ display: 'mix phx.server doesnt seem to start', pastedContents: {}, timestamp: Date.parse('2026-02-10T21:11:57.000Z'), project: '/home/marco/projects/spotter', sessionId: CLAUDE_SESSION }) +
      line({ display: 'an older prompt without a session', pastedContents: {}, timestamp: Date.parse('2025-01-01T00:00:00.000Z'), project: '/home/u/app' }) +
      '{"display": "torn',
  );
  const codexHistory = join(home, '.codex', 'history.jsonl');
  writeFileSync(
    codexHistory,
    // `conversation_id` (older versions) and `session_id` (newer) both name the thread.
    line({ conversation_id: CODEX_THREAD_NEW, ts: Math.floor(Date.parse('2025-09-25T02:12:25.000Z') / 1000), text: 'When I load the dashboard, I see 4 queries. Are all of these necessary?' }) +
      line({ session_id: CODEX_THREAD_OLD, ts: Math.floor(Date.parse('2026-06-05T04:58:24.000Z') / 1000), text: '[REDACTED_PROMPT]' }) +
      line({ session_id: 'no-such-thread', ts: 1790000000, text: 'a prompt of a thread that is gone' }),
  );
  return { home, claudeHistory, codexHistory, claudeFile, codexNew, codexOld };
}

test('the default histories include Claude Code\'s and Codex\'s history.jsonl when they exist, after xcsh\'s database', () => {
  const h = agentHome();
  assert.deepEqual(allDefaultHistoryPaths({}, h.home), [join(h.home, '.xcsh', 'agent', 'history.db'), h.claudeHistory, h.codexHistory]);
  assert.deepEqual(allDefaultHistoryPaths({ CODEX_HOME: join(h.home, 'elsewhere') }, h.home), [join(h.home, '.xcsh', 'agent', 'history.db'), h.claudeHistory]);
});

test('Claude Code\'s history.jsonl: prompts newest first, word-start search, project filter, a torn line is a problem not an error', async () => {
  const h = agentHome();
  const history = await openAnyPromptHistory(h.claudeHistory);
  assert.equal(history.agent, 'claude');
  assert.equal(history.count(), 2);
  assert.deepEqual(history.problems.length, 1);
  assert.match(history.problems[0]!, /history\.jsonl:3: /);
  const all = history.query({}).entries;
  assert.deepEqual(
    all.map((e) => [e.id, e.prompt, e.cwd, e.sessionId, e.createdAt]),
    [
      [1, 'mix phx.server doesnt seem to start', '/home/marco/projects/spotter', CLAUDE_SESSION, Date.parse('2026-02-10T21:11:57.000Z') / 1000],
      [2, 'an older prompt without a session', '/home/u/app', null, Date.parse('2025-01-01T00:00:00.000Z') / 1000],
    ],
  );
  assert.deepEqual(
    history.query({ search: 'phx serv' }).entries.map((e) => e.id),
    [1],
  );
  assert.deepEqual(history.query({ search: 'hx' }).entries, [], 'a word must start with the search word');
  assert.deepEqual(
    history.query({ cwd: '/home/u/app' }).entries.map((e) => e.id),
    [2],
  );
  assert.deepEqual(history.cwds(), [
    { cwd: '/home/marco/projects/spotter', count: 1 },
    { cwd: '/home/u/app', count: 1 },
  ]);
});

test('Codex\'s history.jsonl: session_id and conversation_id both name the thread', async () => {
  const h = agentHome();
  const history = await openAnyPromptHistory(h.codexHistory);
  assert.equal(history.agent, 'codex');
  assert.deepEqual(
    history.query({}).entries.map((e) => [e.id, e.sessionId, e.cwd]),
    [
      [3, 'no-such-thread', null],
      [2, CODEX_THREAD_OLD, null],
      [1, CODEX_THREAD_NEW, null],
    ],
  );
  assert.deepEqual(
    history.query({ search: 'dashboard queries' }).entries.map((e) => e.id),
    [1],
  );
});

test('Open in Session finds a Claude prompt by its sessionId and a Codex prompt by its thread id (both id field names), in the agents\' own homes', async () => {
  const h = agentHome();
  const claude = (await openAnyPromptHistory(h.claudeHistory)).query({}).entries;
  assert.deepEqual(await locateAnyPrompt(claude[0]!, []), { file: h.claudeFile, entryId: '7d48cbd2-6615-4dd8-87f6-38f12b8167d6', offsetSeconds: 0.154 });
  assert.equal(await locateAnyPrompt(claude[1]!, []), null, 'a line without a sessionId names no session');

  const codex = (await openAnyPromptHistory(h.codexHistory)).query({}).entries;
  const byThread = new Map(codex.map((e) => [e.sessionId, e]));
  const fromConversationId = await locateAnyPrompt(byThread.get(CODEX_THREAD_NEW)!, []);
  assert.deepEqual(fromConversationId && [fromConversationId.file, fromConversationId.entryId], [h.codexNew, 'L3']);
  const fromSessionId = await locateAnyPrompt(byThread.get(CODEX_THREAD_OLD)!, []);
  assert.deepEqual(fromSessionId && [fromSessionId.file, fromSessionId.entryId], [h.codexOld, 'L6']);
  assert.equal(await locateAnyPrompt(byThread.get('no-such-thread')!, []), null);

  // Found under a sessions root as well (the agent's home is not needed).
  const moved = { ...byThread.get(CODEX_THREAD_NEW)!, home: join(h.home, 'nowhere') };
  assert.equal(await locateAnyPrompt(moved, []), null);
  assert.equal((await locateAnyPrompt(moved, [join(h.home, '.codex', 'sessions')]))?.entryId, 'L3');
});

test('a history that is not there is "missing"; an SQLite or text file goes to the database reader', async () => {
  const h = agentHome();
  await assert.rejects(openAnyPromptHistory(join(h.home, 'nope.jsonl')), (e: unknown) => e instanceof HistoryError && e.code === 'missing');
  const text = join(h.home, 'text.db');
  writeFileSync(text, 'plain text\n'.repeat(30));
  await assert.rejects(openAnyPromptHistory(text), (e: unknown) => e instanceof HistoryError && e.code === 'not-sqlite');
});
