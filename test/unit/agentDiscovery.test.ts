// Issue 24, discovery: Claude Code transcripts and Codex rollouts found under their agents' own
// folders (and any folder by content), their rows read from a bounded head and tail, linked across
// files — subagents in the 2.1.x and 2.0.x layouts and compaction helpers under their session,
// `summary` titles from another session's file, Codex forks under the rollout they name,
// `.jsonl.zst` rollouts, archived rollouts, thread names from session_index.jsonl — and `ls`.
// The files are the real fixtures of test/fixtures laid out as the agents keep them
// (test/helpers/agentHome.mjs says which file goes where).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultSessionRoots, groupByProject, listAllWithSkipped, readSessionInfo, type SessionInfo } from '../../src/core/discovery/discovery';
import { readClaudeListing } from '../../src/core/formats/claude/listing';
import { lsCommand } from '../../src/cli/commands/read';
import { countSessionMessages, openSessionModel } from '../../src/core/engine/openModel';
import { countMessages } from '../../src/core/formats/xcsh/countMessages';
import { listRoots } from '../../src/extension/sessions/catalog';
import { runCommand } from '../helpers/cliInProcess';
import { fixture } from '../helpers/fixtures';

interface AgentHome {
  claude: Record<'root' | 'spotter' | 'spotterAgent' | 'spotterCompact' | 'short' | 'toolHeavy' | 'demoInline' | 'demoParallel' | 'two' | 'five' | 'beside' | 'besideAgent', string>;
  codex: Record<'home' | 'sessions' | 'archived' | 'parent' | 'fork' | 'zst' | 'archivedRollout', string>;
}
interface AgentHomeModule {
  buildAgentHome(home: string, opts?: { beside?: boolean }): AgentHome;
  SPOTTER_ID: string;
  CODEX_PARENT_ID: string;
  CODEX_ZST_ID: string;
  CODEX_FORK_ID: string;
  CODEX_THREAD_NAME: string;
  SUMMARY_TITLE: string;
}
const helper = (): Promise<AgentHomeModule> => import(pathToFileURL(join(__dirname, '..', 'helpers', 'agentHome.mjs')).href) as Promise<AgentHomeModule>;

async function world(beside = true): Promise<{ home: string; h: AgentHome; m: AgentHomeModule; byPath: Map<string, SessionInfo>; sessions: SessionInfo[] }> {
  const m = await helper();
  const home = mkdtempSync(join(tmpdir(), 'sl-agent-home-'));
  const h = m.buildAgentHome(home, { beside });
  const { sessions, skipped } = await listAllWithSkipped(defaultSessionRoots(home, {}));
  assert.deepEqual(skipped, []);
  return { home, h, m, byPath: new Map(sessions.map((s) => [s.path, s])), sessions };
}

test('default roots: ~/.claude/projects and ~/.codex/sessions + archived_sessions when present, $CLAUDE_CONFIG_DIR and $CODEX_HOME honoured, each agent can be turned off', async () => {
  const m = await helper();
  const home = mkdtempSync(join(tmpdir(), 'sl-agent-roots-'));
  // nothing there yet: only the xcsh root (which is always listed, and says where it looked)
  assert.deepEqual(defaultSessionRoots(home, {}), [join(home, '.xcsh', 'agent', 'sessions')]);
  m.buildAgentHome(home);
  assert.deepEqual(defaultSessionRoots(home, {}), [join(home, '.xcsh', 'agent', 'sessions'), join(home, '.claude', 'projects'), join(home, '.codex', 'sessions'), join(home, '.codex', 'archived_sessions')]);
  assert.deepEqual(defaultSessionRoots(home, {}, { claude: false, xcsh: false }), [join(home, '.codex', 'sessions'), join(home, '.codex', 'archived_sessions')]);
  assert.deepEqual(defaultSessionRoots(home, {}, { codex: false }), [join(home, '.xcsh', 'agent', 'sessions'), join(home, '.claude', 'projects')]);
  // the environment moves the agents' homes
  const other = mkdtempSync(join(tmpdir(), 'sl-agent-env-'));
  mkdirSync(join(other, 'cc', 'projects'), { recursive: true });
  mkdirSync(join(other, 'cx', 'sessions'), { recursive: true });
  const env = { CLAUDE_CONFIG_DIR: join(other, 'cc'), CODEX_HOME: join(other, 'cx') };
  assert.deepEqual(defaultSessionRoots(home, env).slice(1), [join(other, 'cc', 'projects'), join(other, 'cx', 'sessions')]);
});

test('Claude Code rows: id and cwd from the records (not the file or folder name), first prompt, start and last-record times', async () => {
  const { h, byPath } = await world();
  const short = byPath.get(h.claude.short)!;
  assert.equal(short.format, 'claude');
  // short.jsonl holds session 55604662… (C.6); the folder encodes the cwd lossily (A.1)
  assert.equal(short.id, '55604662-cf2a-4331-851a-ec234028f8ca');
  assert.equal(short.cwd, '/home/marco/projects/spotter');
  assert.equal(short.firstPrompt, 'mix phx.server doesnt seem to start');
  assert.equal(short.created, '2026-02-10T21:11:52.438Z');
  assert.equal(short.lastRecord, '2026-02-10T21:16:12.381Z');
  assert.equal(short.agentVersion, '2.1.38');
  assert.equal(short.isSubagent, false);
  assert.equal(short.damaged, false);
  // the 2.76 MB transcript: its last record's time comes from the tail, its prompt from the head
  const big = byPath.get(h.claude.spotter)!;
  assert.equal(big.lastRecord, '2026-02-11T21:46:25.932Z');
  assert.equal(big.firstPrompt, 'Implement spotter-gqc');
  assert.equal(big.cwd, '/home/USER/projects/spotter-worktrees/spotter-gqc');
  // 1.0.x: 405 of 438 lines are inline sidechains, yet the file is a session, not a subagent
  const inline = byPath.get(h.claude.demoInline)!;
  assert.equal(inline.isSubagent, false);
  assert.equal(inline.cwd, '/path/to/Demo');
});

test('Claude Code subagents nest under their session: the 2.1.x subagents folder, the 2.0.x file beside it, the compaction helper', async () => {
  const { h, m, byPath, sessions } = await world();
  const agent = byPath.get(h.claude.spotterAgent)!;
  assert.equal(agent.isSubagent, true);
  assert.equal(agent.parentPath, h.claude.spotter);
  assert.equal(agent.relation, 'subagent');
  assert.equal(agent.id, 'a881341');
  assert.match(agent.firstPrompt ?? '', /^What is the output contract for Claude Code hooks/);
  const compact = byPath.get(h.claude.spotterCompact)!;
  assert.equal(compact.parentPath, h.claude.spotter);
  assert.equal(compact.relation, 'compaction');
  // 2.0.x: agent-<id>.jsonl beside the session files, linked by the session id its records carry
  const beside = byPath.get(h.claude.besideAgent)!;
  assert.equal(beside.isSubagent, true);
  assert.equal(beside.parentPath, h.claude.beside);
  // grouped by cwd: both spotter-gqc folders are one project, each subagent under its own session
  const groups = groupByProject(sessions);
  const gqc = groups.find((g) => g.project === '/home/USER/projects/spotter-worktrees/spotter-gqc')!;
  assert.deepEqual(gqc.sessions.map((s) => s.id), [m.SPOTTER_ID, m.SPOTTER_ID]);
  assert.deepEqual((gqc.subagents[h.claude.spotter] ?? []).map((s) => s.id).sort(), ['a881341', 'acompact-fffbd0']);
  assert.deepEqual((gqc.subagents[h.claude.beside] ?? []).map((s) => s.id), ['a881341']);
  // one project per cwd: the two sessions of /home/marco/projects/spotter are one group
  assert.equal(groups.find((g) => g.project === '/home/marco/projects/spotter')!.sessions.length, 2);
});

test('a summary record in another session\'s file titles the session whose leaf it names (A.10); foreign summaries title nothing else', async () => {
  const { h, m, byPath } = await world(false);
  assert.equal(byPath.get(h.claude.two)!.title, m.SUMMARY_TITLE);
  // full-session-five holds the summary (and 16 others for sessions not here): its own title stays unset
  assert.equal(byPath.get(h.claude.five)!.title, null);
  // one file alone has no foreign summary to match: the title comes from the listing of the project
  assert.equal((await readSessionInfo(h.claude.two))!.title, null);
});

test('Codex rows: thread id, cwd, first typed prompt, last-record time; a fork nests under the rollout it names across day folders; .jsonl.zst and archived rollouts listed; thread names from session_index.jsonl', async () => {
  const { h, m, byPath, sessions } = await world(false);
  const parent = byPath.get(h.codex.parent)!;
  assert.equal(parent.format, 'codex');
  assert.equal(parent.id, m.CODEX_PARENT_ID);
  assert.equal(parent.cwd, '/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2');
  assert.equal(parent.created, '2025-09-25T02:12:23.949Z');
  assert.equal(parent.lastRecord, '2025-09-25T02:16:32.870Z');
  assert.match(parent.firstPrompt ?? '', /^When I load the dashboard, I see 4 queries/);
  assert.equal(parent.agentVersion, '0.40.0');
  const fork = byPath.get(h.codex.fork)!;
  assert.equal(fork.id, m.CODEX_FORK_ID);
  assert.equal(fork.parentPath, h.codex.parent);
  assert.equal(fork.relation, 'fork');
  assert.equal(fork.isSubagent, false);
  const zst = byPath.get(h.codex.zst)!;
  assert.equal(zst.id, m.CODEX_ZST_ID);
  assert.equal(zst.encoding, 'zstd');
  assert.equal(zst.title, m.CODEX_THREAD_NAME);
  assert.equal(zst.lastRecord, '2025-09-25T21:15:08.505Z');
  const archived = byPath.get(h.codex.archivedRollout)!;
  assert.equal(archived.cwd, '/tmp/agent-history-real-agent/codex/workspace');
  const g = groupByProject(sessions).find((x) => x.project === parent.cwd)!;
  assert.deepEqual(g.sessions.map((s) => s.path).sort(), [h.codex.parent, h.codex.zst].sort());
  assert.deepEqual(g.subagents[h.codex.parent]!.map((s) => s.path), [h.codex.fork]);
});

test('the age of a Claude Code session whose last record is longer than the tail window comes from that record\'s own timestamp', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-claude-tail-'));
  const file = join(dir, 'long-last.jsonl');
  copyFileSync(fixture('claude-code', 'spotter', 'short.jsonl'), file);
  const last = JSON.parse(readFileSync(file, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;
  // a tool result of 200 kB as the last line (C.7: huge lines are common), the CLI's key order (timestamp near the end)
  const big = { parentUuid: last.uuid, isSidechain: false, userType: 'external', cwd: last.cwd, sessionId: last.sessionId, version: last.version, type: 'user', message: { role: 'user', content: 'x'.repeat(200_000) }, uuid: 'f0000000-0000-4000-8000-000000000001', timestamp: '2026-02-10T23:59:59.000Z' };
  appendFileSync(file, JSON.stringify(big) + '\n');
  const l = await readClaudeListing(file);
  assert.equal(l.lastTimestamp, '2026-02-10T23:59:59.000Z');
  assert.equal(l.sessionId, '55604662-cf2a-4331-851a-ec234028f8ca');
});

test('ls lists Claude Code and Codex sessions by project, marked read-only by agent, subagents and forks indented, at the time of their last record', async () => {
  const { h, m } = await world(false);
  const r = await runCommand(lsCommand, ['--root', h.claude.root, '--root', h.codex.sessions, '--root', h.codex.archived]);
  assert.equal(r.code, 0);
  assert.equal(r.err, '');
  const lines = r.out.split('\n');
  const at = (needle: string): number => lines.findIndex((l) => l.includes(needle));
  assert.match(lines[at(h.claude.short)]!, /^ {2}2026-02-10 21:16 {2}55604662-cf2a-4331-851a-ec234028f8ca {2}mix phx\.server doesnt seem to start {2}\[claude\] {2}/);
  assert.match(lines[at(h.claude.spotterAgent)]!, /^ {4}↳ .*a881341 .*\[claude\]/);
  assert.match(lines[at(h.claude.spotterCompact)]!, /^ {4}↳ .*\[claude\] {2}\[compaction\]/);
  assert.ok(at(h.claude.spotterAgent) > at(h.claude.spotter));
  assert.match(lines[at(h.claude.two)]!, new RegExp(`${m.SUMMARY_TITLE} {2}\\[claude\\]`));
  assert.match(lines[at(h.codex.fork)]!, /^ {4}↳ 2025-09-26 16:00 .*\[codex\] {2}\[fork\]/);
  assert.equal(at(h.codex.fork), at(h.codex.parent) + 1);
  assert.match(lines[at(h.codex.zst)]!, new RegExp(`${m.CODEX_THREAD_NAME} {2}\\[codex\\]`));
  // the project line is the records' cwd
  assert.ok(lines.includes('/home/marco/projects/spotter'));
  const json = JSON.parse((await runCommand(lsCommand, ['--root', h.codex.sessions, '--json'])).out) as { project: string; sessions: SessionInfo[]; subagents: Record<string, SessionInfo[]> }[];
  const g = json.find((x) => x.project === '/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2')!;
  assert.equal(g.subagents[h.codex.parent]![0]!.relation, 'fork');
  assert.equal(g.sessions.find((s) => s.path === h.codex.zst)!.format, 'codex');
  // What `ls --json` prints of a Claude Code session: the listing's own facts (its summary records, the
  // Sessions view's use) stay out of it.
  const claudeJson = JSON.parse((await runCommand(lsCommand, ['--root', h.claude.root, '--json'])).out) as { sessions: SessionInfo[] }[];
  const keys = new Set(claudeJson.flatMap((x) => x.sessions).map((s) => Object.keys(s).sort().join(',')));
  assert.deepEqual([...keys], ['agentVersion,created,cwd,damaged,firstPrompt,firstUserMessage,format,id,isSubagent,lastRecord,modified,mtimeMs,parentSession,path,size,title,version']);
});

test('a Claude Code or Codex row counts the messages its model counts, not xcsh `message` entries (there are none)', async () => {
  for (const file of [fixture('claude-code', 'spotter', 'short.jsonl'), fixture('codex', 'agentcmd', 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl')]) {
    const model = await openSessionModel(file);
    const expected = (await model.summary()).totals.messages;
    model.dispose();
    assert.ok(expected > 0);
    assert.equal(await countSessionMessages(file), expected);
    assert.equal(await countMessages(file), 0);
  }
});

test('the Sessions view listing: Claude Code projects by folder with their cwd as label and subagents nested; Codex day folders and archived rollouts as projects by cwd, forks nested across days', async () => {
  const { home, h, m } = await world(false);
  const projects = await listRoots(defaultSessionRoots(home, {}));
  const byLabel = new Map(projects.map((p) => [p.label, p]));
  const gqc = byLabel.get('/home/USER/projects/spotter-worktrees/spotter-gqc')!;
  assert.equal(gqc.dir, join(h.claude.root, '-home-USER-projects-spotter-worktrees-spotter-gqc'));
  assert.deepEqual(gqc.sessions.map((s) => s.file), [h.claude.spotter]);
  const subs = gqc.sessions[0]!.subagents;
  assert.deepEqual(subs.map((s) => [s.id, s.relation, s.isSubagent]), [['a881341', 'subagent', true], ['acompact-fffbd0', 'compaction', true]]);
  // newest first by the last record (the files were all just copied: their mtimes say nothing)
  assert.deepEqual(byLabel.get('/home/marco/projects/spotter')!.sessions.map((s) => s.file), [h.claude.toolHeavy, h.claude.short]);
  assert.equal(byLabel.get('/Users/jnarowski/Dev/sourceborn/src/agent-workflows-monorepo-v2')!.sessions.find((s) => s.file === h.claude.two)!.title, m.SUMMARY_TITLE);
  const codex = byLabel.get('/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2')!;
  assert.equal(codex.loose, true);
  assert.deepEqual(codex.sessions.map((s) => s.file), [h.codex.zst, h.codex.parent]);
  assert.deepEqual(codex.sessions[1]!.subagents.map((s) => [s.file, s.relation, s.isSubagent]), [[h.codex.fork, 'fork', false]]);
  assert.equal(codex.sessions[0]!.title, m.CODEX_THREAD_NAME);
  const archived = byLabel.get('/tmp/agent-history-real-agent/codex/workspace')!;
  assert.deepEqual(archived.sessions.map((s) => s.file), [h.codex.archivedRollout]);
  // every Claude Code and Codex row is read-only: never in a state that offers a write
  for (const p of projects) for (const s of [...p.sessions, ...p.sessions.flatMap((x) => x.subagents)]) assert.ok(s.format === 'claude' || s.format === 'codex', s.file);
  // the ids of the project rows are distinct although loose projects share their root as folder
  assert.equal(new Set(projects.map((p) => p.key ?? p.dir)).size, projects.length);
});
