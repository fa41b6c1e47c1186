// `~/.claude/history.jsonl` (claude-code-format.md A.12): one line per submitted prompt,
// `{"display","pastedContents","timestamp":<epoch ms>,"project":"<cwd>","sessionId"}`, appended,
// newest at the end. `display` is the prompt as typed (pastes as placeholders); `sessionId` is
// missing in older lines. A torn last line or a foreign line becomes a diagnostic naming its
// line, never an error. Read-only, streamed. (The lines are split by the JSONL splitter the Codex
// reader shares with its own history.jsonl.)
import { homedir } from 'node:os';
import { join } from 'node:path';
import { jsonlEntries, streamJsonlFile } from '../codex/jsonlLines';
import type { CodexDiagnostic } from '../codex/types';
import { str } from './records';

export interface ClaudePromptEntry {
  /** 1-based line in history.jsonl. */
  line: number;
  text: string;
  /** Epoch ms, or null when the line has no usable time. */
  timestamp: number | null;
  /** The project root the prompt was sent in. */
  project: string | null;
  sessionId: string | null;
}

export interface ClaudePromptHistory {
  path: string;
  entries: ClaudePromptEntry[];
  diagnostics: CodexDiagnostic[];
}

/** `$CLAUDE_CONFIG_DIR/history.jsonl`, or `~/.claude/history.jsonl`. */
export function defaultClaudeHistoryPath(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return join(env.CLAUDE_CONFIG_DIR && env.CLAUDE_CONFIG_DIR !== '' ? env.CLAUDE_CONFIG_DIR : join(home, '.claude'), 'history.jsonl');
}

/** The latest time a JavaScript Date holds, in ms. */
const MAX_DATE_MS = 8.64e15;

function timeOf(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && Math.abs(v) <= MAX_DATE_MS ? v : null;
  if (typeof v === 'string') {
    const ms = Date.parse(v);
    return Number.isFinite(ms) ? ms : null;
  }
  return null;
}

/** Whether a parsed line is a Claude Code history line (a string `display`). */
export function isClaudePromptLine(v: Record<string, unknown>): boolean {
  return typeof v.display === 'string';
}

/** Reads history.jsonl (streamed). A missing file is an ENOENT error for the caller to word. */
export async function readClaudePromptHistory(path: string = defaultClaudeHistoryPath()): Promise<ClaudePromptHistory> {
  const { entries, diagnostics, lines } = jsonlEntries((v, line): ClaudePromptEntry | string =>
    isClaudePromptLine(v)
      ? { line, text: v.display as string, timestamp: timeOf(v.timestamp), project: str(v.project), sessionId: str(v.sessionId) }
      : 'a history line without a string `display`: skipped',
  );
  await streamJsonlFile(path, lines);
  return { path, entries, diagnostics };
}
