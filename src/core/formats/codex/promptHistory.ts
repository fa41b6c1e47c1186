// `~/.codex/history.jsonl` (codex-format.md A.9): one line per submitted prompt,
// `{"<id-field>":"<threadId>","ts":<unix seconds>,"text":"<prompt>"}`. The id field is
// `session_id` in some versions and `conversation_id` in others: both are read. The file may be
// trimmed from the front (oldest lines dropped) and is appended under a lock; a torn last line or
// a foreign line becomes a diagnostic, never an error. Read-only, streamed.
import { createReadStream } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { JsonlLineSplitter } from './jsonlLines';
import { codexHomeDir } from './sessionIndex';
import { num, str, type CodexDiagnostic } from './types';

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

/** The entries of history.jsonl text (fed whole), e.g. for tests. */
export function parseCodexPromptHistory(bytes: Uint8Array, path = '(memory)'): CodexPromptHistory {
  const out: CodexPromptHistory = { path, entries: [], diagnostics: [] };
  const lines = splitterFor(out);
  lines.push(bytes);
  lines.finish();
  return out;
}

function splitterFor(out: CodexPromptHistory): JsonlLineSplitter {
  return new JsonlLineSplitter(
    (v, line) => {
      const text = str(v.text);
      if (text === null) {
        out.diagnostics.push({ line, kind: 'invalid-entry', message: 'a history line without a string `text`: skipped' });
        return;
      }
      const session = str(v.session_id);
      const conversation = str(v.conversation_id);
      const ts = num(v.ts);
      out.entries.push({
        line,
        threadId: session ?? conversation,
        idField: session !== null ? 'session_id' : conversation !== null ? 'conversation_id' : null,
        ts: ts !== null && Math.abs(ts) <= 8.64e12 ? ts : null,
        text,
      });
    },
    (d) => out.diagnostics.push(d),
  );
}

/** Reads history.jsonl (streamed). A missing file is an ENOENT error for the caller to word. */
export async function readCodexPromptHistory(path: string = defaultCodexHistoryPath()): Promise<CodexPromptHistory> {
  const out: CodexPromptHistory = { path, entries: [], diagnostics: [] };
  const lines = splitterFor(out);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) lines.push(chunk as Buffer);
  lines.finish();
  return out;
}
