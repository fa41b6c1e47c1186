// Copy Resume Command's text (src/core/discovery/resume.ts): each agent's own way back into a
// session, told by the file's content. Claude Code resumes by session id from the project folder
// (claude-code-format.md B.1, `--resume <id>`), a subagent's transcript by its parent session's id;
// Codex by the rollout's id (`codex resume <id>`: the CLI's subcommand, not in codex-format.md,
// which describes the files — chosen from the Codex CLI's documentation); xcsh, oh-my-pi and pi by
// the session file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resumeCommand, shellQuote } from '../../src/core/discovery/resume';
import { fixture } from '../helpers/fixtures';

interface AgentHome {
  claude: Record<'short' | 'spotter' | 'spotterAgent', string>;
  codex: Record<'parent' | 'zst', string>;
}
const helper = (): Promise<{ buildAgentHome(home: string): AgentHome; SPOTTER_ID: string; CODEX_PARENT_ID: string; CODEX_ZST_ID: string }> =>
  import(pathToFileURL(join(__dirname, '..', 'helpers', 'agentHome.mjs')).href) as never;

test('Claude Code: `claude --resume <session id>` in the cwd the records hold; a subagent transcript resumes its parent session', async () => {
  const m = await helper();
  const h = m.buildAgentHome(mkdtempSync(join(tmpdir(), 'sl-resume-')));
  assert.equal(await resumeCommand(h.claude.short), 'cd /home/marco/projects/spotter && claude --resume 55604662-cf2a-4331-851a-ec234028f8ca');
  assert.equal(await resumeCommand(h.claude.spotter), `cd /home/USER/projects/spotter-worktrees/spotter-gqc && claude --resume ${m.SPOTTER_ID}`);
  assert.equal(await resumeCommand(h.claude.spotterAgent), `cd /home/USER/projects/spotter-worktrees/spotter-gqc && claude --resume ${m.SPOTTER_ID}`);
});

test('Codex (not in the spec: the CLI\'s `codex resume <id>` subcommand): the rollout\'s id, plain or zstd-compressed', async () => {
  const m = await helper();
  const h = m.buildAgentHome(mkdtempSync(join(tmpdir(), 'sl-resume-')));
  assert.equal(await resumeCommand(h.codex.parent), `cd /Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2 && codex resume ${m.CODEX_PARENT_ID}`);
  assert.equal(await resumeCommand(h.codex.zst), `cd /Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2 && codex resume ${m.CODEX_ZST_ID}`);
});

test('xcsh, oh-my-pi, pi: the agent whose sessions folder holds the file, `--resume <file>`; told by content, not by folder', async () => {
  const home = mkdtempSync(join(tmpdir(), 'sl-resume-'));
  const put = (dir: string, name: string, from: string): string => {
    mkdirSync(dir, { recursive: true });
    copyFileSync(from, join(dir, name));
    return join(dir, name);
  };
  const v3 = fixture('real-v3', 'gjc-01-youtube-transcript-extraction.jsonl');
  const xcsh = put(join(home, '.xcsh', 'agent', 'sessions', '--w--'), 's.jsonl', v3);
  assert.equal(await resumeCommand(xcsh), `xcsh --resume ${xcsh}`);
  const pi = put(join(home, '.pi', 'agent', 'sessions', '--w--'), 'with space.jsonl', v3);
  assert.equal(await resumeCommand(pi), `pi --resume '${pi}'`);
  const omp = put(join(home, '.omp', 'agent', 'sessions', '--w--'), 's.jsonl', v3);
  assert.equal(await resumeCommand(omp), `omp --resume ${omp}`);
  // A Claude Code transcript that sits in pi's folder is still Claude Code's.
  const claudeInPi = put(join(home, '.pi', 'agent', 'sessions', '--w--'), 'claude.jsonl', fixture('claude-code', 'spotter', 'short.jsonl'));
  assert.match(await resumeCommand(claudeInPi), /&& claude --resume 55604662-cf2a-4331-851a-ec234028f8ca$/);
});

test('shell quoting: plain words as they are, anything else single-quoted with its quotes escaped', () => {
  assert.equal(shellQuote('/a/b-c_d.jsonl'), '/a/b-c_d.jsonl');
  assert.equal(shellQuote("/it's here/x"), `'/it'\\''s here/x'`);
  assert.equal(shellQuote('$(rm -rf ~)'), `'$(rm -rf ~)'`);
});
