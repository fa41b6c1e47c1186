// Claude Code's and Codex's prompt histories beside xcsh's database (issue 24): each agent's
// `history.jsonl` (claude-code-format.md A.12, codex-format.md A.9 — both of Codex's id field
// names) read as a PromptHistory, so the Prompt History view and `session-loom history` list,
// search and filter them as they do the database. Which kind a file is is told by its content:
// SQLite (the database), else its first line (Claude's `display`, Codex's `text`). A JSONL history
// has no full-text index: a search keeps the prompts in which every word of the query starts a
// word (the database's FTS5 prefix rule), newest first. Read-only; a line that is not a prompt is
// skipped and counted among the problems, never an error.
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname } from 'node:path';
import { defaultClaudeHistoryPath, readClaudePromptHistory } from '../formats/claude/promptHistory';
import { defaultCodexHistoryPath, readCodexPromptHistory } from '../formats/codex/promptHistory';
import type { CodexDiagnostic } from '../formats/codex/types';
import { startsWithSqliteMagic } from '../formats/detect';
import { readFileHead } from '../store/fileHead';
import { textWords } from '../search/queryLanguage';
import { defaultHistoryPaths, HistoryError, openPromptHistory, type HistoryEntry, type HistoryQuery, type PromptHistory } from './promptHistory';

/** Claude Code's and Codex's history.jsonl, those that exist. */
export function defaultAgentHistoryPaths(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string[] {
  return [defaultClaudeHistoryPath(env, home), defaultCodexHistoryPath(env, home)].filter((p) => existsSync(p));
}

/** Every prompt history the view and the CLI read by default: xcsh's (and omp's, pi's) databases, then Claude Code's and Codex's. */
export function allDefaultHistoryPaths(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string[] {
  return [...defaultHistoryPaths(home), ...defaultAgentHistoryPaths(env, home)];
}

/** Which history a file holds, by its first bytes; null: not a history.jsonl (the database's reader judges it). */
function jsonlKindOf(head: Buffer, path: string): 'claude' | 'codex' | null {
  if (startsWithSqliteMagic(head)) return null;
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const first = text.split('\n').find((l) => l.trim() !== '');
  if (first === undefined) {
    // Empty: a history not written yet, named by where it is (Claude's or Codex's home).
    if (!path.endsWith('.jsonl')) return null;
    return basename(dirname(path)) === '.codex' ? 'codex' : 'claude';
  }
  try {
    const v = JSON.parse(first) as Record<string, unknown>;
    if (typeof v !== 'object' || v === null) return null;
    if (typeof v.display === 'string') return 'claude';
    if (typeof v.text === 'string' && ('ts' in v || 'session_id' in v || 'conversation_id' in v)) return 'codex';
  } catch {
    // a first line that is no JSON (torn, or not a history at all): judged by the name below
  }
  return null;
}

/** Whether every word of `search` starts a word of `text` (folded as the index folds words). */
function matchesWords(text: string, search: readonly string[]): boolean {
  if (search.length === 0) return true;
  const words = textWords(text);
  return search.every((w) => words.some((x) => x.startsWith(w)));
}

function problemsOf(path: string, diagnostics: readonly CodexDiagnostic[]): string[] {
  return diagnostics.map((d) => `${path}:${d.line}: ${d.message}`);
}

/** A history.jsonl's prompts (newest first) as a PromptHistory. */
function jsonlHistory(path: string, agent: 'claude' | 'codex', entries: HistoryEntry[], problems: string[], mtimeMs: number): PromptHistory {
  const sorted = [...entries].sort((a, b) => (b.createdAt ?? -Infinity) - (a.createdAt ?? -Infinity) || b.id - a.id);
  return {
    path,
    agent,
    hasFts: false,
    walFrames: 0,
    hotJournal: false,
    problems,
    mtimeMs,
    query(q: HistoryQuery) {
      const limit = Math.max(1, Math.floor(q.limit ?? 500));
      const words = q.search ? textWords(q.search) : [];
      const out: HistoryEntry[] = [];
      for (const e of sorted) {
        if (out.length >= limit) break;
        if (q.cwd !== undefined && e.cwd !== q.cwd) continue;
        if (matchesWords(e.prompt, words)) out.push(e);
      }
      return { entries: out, usedFts: true };
    },
    cwds() {
      const counts = new Map<string | null, number>();
      for (const e of entries) counts.set(e.cwd, (counts.get(e.cwd) ?? 0) + 1);
      return [...counts.entries()].map(([cwd, count]) => ({ cwd, count })).sort((a, b) => b.count - a.count || String(a.cwd).localeCompare(String(b.cwd)));
    },
    count: () => entries.length,
    close: () => undefined,
  };
}

/**
 * Opens a prompt history of any agent: xcsh's SQLite database (openPromptHistory), or Claude Code's
 * or Codex's history.jsonl. Throws HistoryError (the database reader's, for anything but a regular file).
 */
export async function openAnyPromptHistory(path: string): Promise<PromptHistory> {
  // Anything but a regular file we can read (missing, a FIFO, a name too long…) is the database
  // reader's to word, as it always was: reading it here could hang (a FIFO) or say it differently.
  const st = await stat(path).catch(() => null);
  if (!st?.isFile()) return openPromptHistory(path);
  let head: Buffer;
  try {
    head = (await readFileHead(path, 64 * 1024)).data;
  } catch {
    return openPromptHistory(path);
  }
  const mtimeMs = st.mtimeMs;
  const kind = jsonlKindOf(head, path);
  if (kind === null) return openPromptHistory(path);
  const home = dirname(path);
  try {
    if (kind === 'claude') {
      const h = await readClaudePromptHistory(path);
      const entries = h.entries.map((e): HistoryEntry => ({ id: e.line, prompt: e.text, createdAt: e.timestamp === null ? null : e.timestamp / 1000, cwd: e.project, agent: 'claude', sessionId: e.sessionId, home }));
      return jsonlHistory(path, 'claude', entries, problemsOf(path, h.diagnostics), mtimeMs);
    }
    const h = await readCodexPromptHistory(path);
    const entries = h.entries.map((e): HistoryEntry => ({ id: e.line, prompt: e.text, createdAt: e.ts, cwd: null, agent: 'codex', sessionId: e.threadId, home }));
    return jsonlHistory(path, 'codex', entries, problemsOf(path, h.diagnostics), mtimeMs);
  } catch (e) {
    throw new HistoryError('unreadable', path, (e as Error).message);
  }
}
