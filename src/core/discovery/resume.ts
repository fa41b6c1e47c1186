// The shell command that resumes a session in the agent that wrote it (the Copy Resume Command
// action): xcsh / oh-my-pi / pi take the session file (`--resume <file>`); Claude Code resumes a
// session by its id from the project it ran in (`claude --resume <id>`, claude-code-format.md B.1;
// a subagent's transcript resumes its parent session); Codex by its id (`codex resume <id>`, the
// CLI's own subcommand since 0.39 — not in codex-format.md, which covers the files only). The
// command starts with `cd <cwd> &&` where the log records the session's folder. Nothing is written.
import { readAgentSessionInfo } from './agentSessions';

/** A word the shell takes as it is, else single-quoted. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The xcsh-family command: the agent whose sessions root holds the file (xcsh unless ~/.omp or ~/.pi). */
function xcshFamilyCommand(file: string): string {
  const root = file.split(/[\\/]/).find((p) => p === '.omp' || p === '.pi' || p === '.xcsh');
  const agent = root === '.omp' ? 'omp' : root === '.pi' ? 'pi' : 'xcsh';
  return `${agent} --resume ${shellQuote(file)}`;
}

/** The command that resumes the session in `file`, in the agent that wrote it (read by content, never by name). */
export async function resumeCommand(file: string): Promise<string> {
  const agent = await readAgentSessionInfo(file);
  if (!agent) return xcshFamilyCommand(file);
  const inCwd = (cmd: string): string => (agent.cwd ? `cd ${shellQuote(agent.cwd)} && ${cmd}` : cmd);
  if (agent.format === 'claude') {
    const id = agent.isSubagent && agent.parentSession ? agent.parentSession : agent.id;
    return inCwd(`claude --resume ${shellQuote(id)}`);
  }
  return inCwd(`codex resume ${shellQuote(agent.id)}`);
}
