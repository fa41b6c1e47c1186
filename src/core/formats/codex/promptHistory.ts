// `~/.codex/history.jsonl` (codex-format.md A.9): one line per submitted prompt,
// `{"<id-field>":"<threadId>","ts":<unix seconds>,"text":"<prompt>"}`. The id field is
// `session_id` in some versions and `conversation_id` in others: both are read. The file may be
// trimmed from the front (oldest lines dropped) and is appended under a lock; a torn last line or
// a foreign line becomes a diagnostic, never an error. Read-only, streamed.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { jsonlEntries, streamJsonlFile } from './jsonlLines';
import { codexHomeDir } from './sessionIndex';
import { num, str, type CodexDiagnostic, type Obj } from './types';

export interface CodexPromptEntry {
  /** 1-based line in history.jsonl. */
  line: number;
  /** The thread the prompt was sent in (`session_id` or `conversation_id`), or null. */
  threadId: string | null;
  /** Which field named it. */
  idField: 'session_id' | 'conversation_id' | null;
  /** Unix seconds, or null when the line has no usable time. */
  ts: number | null;
  text: string;
}

export interface CodexPromptHistory {
  path: string;
  entries: CodexPromptEntry[];
  diagnostics: CodexDiagnostic[];
}

/** `$CODEX_HOME/history.jsonl`, or `~/.codex/history.jsonl`. */
export function defaultCodexHistoryPath(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return join(codexHomeDir(env, home), 'history.jsonl');
}

function entryOf(v: Obj, line: number): CodexPromptEntry | string {
  const text = str(v.text);
  if (text === null) return 'a history line without a string `text`: skipped';
  const session = str(v.session_id);
  const conversation = str(v.conversation_id);
  const ts = num(v.ts);
  return {
    line,
    threadId: session ?? conversation,
    idField: session !== null ? 'session_id' : conversation !== null ? 'conversation_id' : null,
    ts: ts !== null && Math.abs(ts) <= 8.64e12 ? ts : null,
    text,
  };
}

/** The entries of history.jsonl text (fed whole), e.g. for tests. */
export function parseCodexPromptHistory(bytes: Uint8Array, path = '(memory)'): CodexPromptHistory {
  const { entries, diagnostics, lines } = jsonlEntries(entryOf);
  lines.push(bytes);
  lines.finish();
  return { path, entries, diagnostics };
}

/** Reads history.jsonl (streamed). A missing file is an ENOENT error for the caller to word. */
export async function readCodexPromptHistory(path: string = defaultCodexHistoryPath()): Promise<CodexPromptHistory> {
  const { entries, diagnostics, lines } = jsonlEntries(entryOf);
  await streamJsonlFile(path, lines);
  return { path, entries, diagnostics };
}
