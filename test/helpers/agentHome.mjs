// Lays out the real Claude Code and Codex fixtures of test/fixtures as the agents keep them under a
// home folder, for the listing tests (unit, CLI) and the fake home of the VS Code tests:
//
//   <home>/.claude/projects/-home-USER-projects-spotter-worktrees-spotter-gqc/258c7280….jsonl
//   <home>/.claude/projects/-home-USER-…-spotter-gqc/258c7280…/subagents/agent-a881341.jsonl        2.1.x layout
//   <home>/.claude/projects/-home-USER-…-spotter-gqc/258c7280…/subagents/agent-acompact-fffbd0.jsonl compaction helper
//   <home>/.claude/projects/-home-marco-projects-spotter/{short,tool_heavy}.jsonl                   one cwd, two sessions
//   <home>/.claude/projects/-path-to-Demo/{fe5e1c67…,5c0375b4…}.jsonl                                1.0.x (inline sidechains)
//   <home>/.claude/projects/-Users-jnarowski-…-v2/full-session-two.jsonl                             2.0.x
//   <home>/.claude/projects/-Users-jnarowski-…-v2/full-session-five.jsonl  + one summary line naming the leaf of
//                                                                           full-session-two (A.10: a title in another file)
//   <home>/.codex/sessions/2025/09/24/rollout-…-01997ea4-….jsonl                                     real 0.40.0 rollout
//   <home>/.codex/sessions/2025/09/26/rollout-2025-09-26T09-00-00-<FORK_ID>.jsonl                      a fork of it (A.8)
//   <home>/.codex/sessions/2025/09/25/rollout-…-019982b8-….jsonl.zst                                 zstd (Debian's zstd)
//   <home>/.codex/archived_sessions/rollout-2026-06-05T04-56-00-<id>.jsonl                           agent-history (flat)
//   <home>/.codex/session_index.jsonl                                                                 a thread name for 019982b8
//
// With `{ beside: true }` a second Claude project holds the 2.0.x subagent layout: the spotter
// session with its agent file beside it (`agent-a881341.jsonl` next to `258c7280….jsonl`).
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '..', 'fixtures');
const cc = (...p) => path.join(fixtures, 'claude-code', ...p);
const cx = (...p) => path.join(fixtures, 'codex', ...p);

export const SPOTTER_ID = '258c7280-ae70-4798-800f-63464d01a85d';
export const CODEX_PARENT_ID = '01997ea4-a70d-7da3-8c20-c736db82a7c5';
export const CODEX_ZST_ID = '019982b8-3422-79e0-8b3b-05abaf4f3c3e';
export const CODEX_FORK_ID = '0199874a-0000-7000-8000-000000f0f0f0';
export const CODEX_THREAD_NAME = 'Agent CLI SDK autonomous run';
export const SUMMARY_TITLE = 'Screenshot review of the agent workflows UI';

function put(source, dest) {
  mkdirSync(path.dirname(dest), { recursive: true });
  copyFileSync(source, dest);
  chmodSync(dest, 0o644);
  return dest;
}

function write(dest, bytes) {
  mkdirSync(path.dirname(dest), { recursive: true });
  writeFileSync(dest, bytes);
  return dest;
}

/** The uuid of the last non-sidechain user/assistant record of a transcript (its leaf, A.11). */
function lastMessageUuid(file) {
  let leaf = null;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    if ((r.type === 'user' || r.type === 'assistant') && r.isSidechain !== true && typeof r.uuid === 'string') leaf = r.uuid;
  }
  return leaf;
}

/**
 * A fork of the real 0.40.0 rollout as the CLI writes one (codex-format.md A.8): its own
 * session_meta naming `forked_from_id`, the parent's items before its second real prompt
 * (parent's session_meta included), then a prompt of its own.
 */
function codexForkText(parentFile) {
  const lines = readFileSync(parentFile, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const parentMeta = JSON.parse(lines[0]);
  const meta = { ...parentMeta, timestamp: '2025-09-26T16:00:00.000Z', payload: { ...parentMeta.payload, id: CODEX_FORK_ID, timestamp: '2025-09-26T16:00:00.000Z', forked_from_id: CODEX_PARENT_ID } };
  let prompts = 0;
  let cut = lines.length;
  for (let i = 1; i < lines.length; i++) {
    const r = JSON.parse(lines[i]);
    if (r.type === 'event_msg' && r.payload?.type === 'user_message' && ++prompts === 2) {
      cut = i;
      break;
    }
  }
  const prompt = 'Try the other approach: keep the workflow file, rename the step';
  const own = [
    { timestamp: '2025-09-26T16:00:05.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] } },
    { timestamp: '2025-09-26T16:00:05.001Z', type: 'event_msg', payload: { type: 'user_message', message: prompt, images: [] } },
  ].map((r) => JSON.stringify(r));
  return [JSON.stringify(meta), ...lines.slice(0, cut), ...own].join('\n') + '\n';
}

export function buildAgentHome(home, opts = {}) {
  const projects = path.join(home, '.claude', 'projects');
  const spotterDir = path.join(projects, '-home-USER-projects-spotter-worktrees-spotter-gqc');
  const marcoDir = path.join(projects, '-home-marco-projects-spotter');
  const demoDir = path.join(projects, '-path-to-Demo');
  const jnDir = path.join(projects, '-Users-jnarowski-Dev-sourceborn-src-agent-workflows-monorepo-v2');
  const claude = {
    root: projects,
    spotter: put(cc('spotter', `${SPOTTER_ID}.jsonl`), path.join(spotterDir, `${SPOTTER_ID}.jsonl`)),
    spotterAgent: put(cc('spotter', SPOTTER_ID, 'subagents', 'agent-a881341.jsonl'), path.join(spotterDir, SPOTTER_ID, 'subagents', 'agent-a881341.jsonl')),
    spotterCompact: put(cc('spotter', SPOTTER_ID, 'subagents', 'agent-acompact-fffbd0.jsonl'), path.join(spotterDir, SPOTTER_ID, 'subagents', 'agent-acompact-fffbd0.jsonl')),
    short: put(cc('spotter', 'short.jsonl'), path.join(marcoDir, 'short.jsonl')),
    toolHeavy: put(cc('spotter', 'tool_heavy.jsonl'), path.join(marcoDir, 'tool_heavy.jsonl')),
    demoInline: put(cc('claude-code-viewer', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl'), path.join(demoDir, 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl')),
    demoParallel: put(cc('claude-code-viewer', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'), path.join(demoDir, '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl')),
    two: put(cc('agentcmd', 'full-session-two.jsonl'), path.join(jnDir, 'full-session-two.jsonl')),
    five: path.join(jnDir, 'full-session-five.jsonl'),
    beside: undefined,
    besideAgent: undefined,
  };
  // 2.0.x writes the titles of other sessions at the top of a session's file (A.10, C.1)
  const summary = JSON.stringify({ type: 'summary', summary: SUMMARY_TITLE, leafUuid: lastMessageUuid(claude.two) });
  write(claude.five, summary + '\n' + readFileSync(cc('agentcmd', 'full-session-five.jsonl'), 'utf8'));
  if (opts.beside) {
    const besideDir = path.join(projects, '-home-USER-projects-spotter-worktrees-spotter-gqc-2-0');
    claude.beside = put(cc('spotter', `${SPOTTER_ID}.jsonl`), path.join(besideDir, `${SPOTTER_ID}.jsonl`));
    claude.besideAgent = put(cc('spotter', SPOTTER_ID, 'subagents', 'agent-a881341.jsonl'), path.join(besideDir, 'agent-a881341.jsonl'));
  }

  const codexHome = path.join(home, '.codex');
  const sessions = path.join(codexHome, 'sessions');
  const parentName = `rollout-2025-09-24T20-12-23-${CODEX_PARENT_ID}.jsonl`;
  const zstName = `rollout-2025-09-25T15-12-14-${CODEX_ZST_ID}.jsonl`;
  const codex = {
    home: codexHome,
    sessions,
    archived: path.join(codexHome, 'archived_sessions'),
    parent: put(cx('agentcmd', parentName), path.join(sessions, '2025', '09', '24', parentName)),
    fork: '',
    zst: write(path.join(sessions, '2025', '09', '25', `${zstName}.zst`), execFileSync('/usr/bin/zstd', ['-q', '-c', '-3'], { input: readFileSync(cx('agentcmd', zstName)), maxBuffer: 1 << 28 })),
    archivedRollout: put(cx('agent-history', 'session-01.jsonl'), path.join(codexHome, 'archived_sessions', 'rollout-2026-06-05T04-56-00-archived.jsonl')),
  };
  codex.fork = write(path.join(sessions, '2025', '09', '26', `rollout-2025-09-26T09-00-00-${CODEX_FORK_ID}.jsonl`), codexForkText(codex.parent));
  write(path.join(codexHome, 'session_index.jsonl'), JSON.stringify({ id: CODEX_ZST_ID, thread_name: CODEX_THREAD_NAME, updated_at: '2025-09-25T16:00:00Z' }) + '\n');
  // written long ago, as real sessions are (a file modified in the last seconds is shown live)
  const old = new Date('2026-03-01T00:00:00Z');
  for (const f of [...Object.values(claude), ...Object.values(codex)]) if (typeof f === 'string' && /\.jsonl(\.zst)?$/.test(f)) utimesSync(f, old, old);
  return { claude, codex };
}
