// `~/.codex/session_index.jsonl` (codex-format.md A.1): thread names, one
// `{"id","thread_name","updated_at"}` per line, append-only; the last entry per id wins.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { jsonlEntries } from './jsonlLines';
import { str, type CodexDiagnostic } from './types';

export interface ThreadNames {
  names: Map<string, { name: string; updatedAt: string | null; line: number }>;
  diagnostics: CodexDiagnostic[];
}

export function parseSessionIndex(bytes: Uint8Array): ThreadNames {
  const { entries, diagnostics, lines } = jsonlEntries((v, line) => {
    const [id, name] = [str(v.id), str(v.thread_name)];
    return id === null || name === null ? 'a session_index line without a string `id` and `thread_name`: skipped' : { id, name, updatedAt: str(v.updated_at), line };
  });
  lines.push(bytes);
  lines.finish();
  return { names: new Map(entries.map(({ id, ...e }) => [id, e])), diagnostics };
}

/** The thread names of a Codex home; empty when it has no session_index.jsonl. */
export async function readSessionIndex(codexHome: string): Promise<ThreadNames> {
  try {
    return parseSessionIndex(await readFile(join(codexHome, 'session_index.jsonl')));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { names: new Map(), diagnostics: [] };
    throw e;
  }
}

/**
 * The Codex home a rollout lives under: the folder holding the `sessions` (or
 * `archived_sessions`) folder on its path (A.1); null when the path has neither.
 */
export function codexHomeOf(rolloutPath: string): string | null {
  let dir = dirname(rolloutPath);
  for (let i = 0; i < 8; i++) {
    const parent = dirname(dir);
    const base = basename(dir);
    if (base === 'sessions' || base === 'archived_sessions') return parent;
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/** `$CODEX_HOME`, or `~/.codex` (A.1). */
export function codexHomeDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return env.CODEX_HOME && env.CODEX_HOME !== '' ? env.CODEX_HOME : join(home, '.codex');
}
