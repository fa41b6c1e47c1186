// The canonical session_meta (codex-format.md A.3): the first one of the file. A fork copies its
// parent's rollout items, the parent's session_meta included, after its own (A.8, Part C §10),
// so every later session_meta is history, never the thread's identity.
import { isObj, str, type CodexRecord, type CodexSessionMeta } from './types';

/** `source` in one word: `cli`, `vscode`, `exec`, …, or `subagent:<kind>` for `{"subagent": …}`. */
function sourceOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (isObj(v)) {
    const [key] = Object.keys(v);
    if (key === undefined) return null;
    const inner = v[key];
    return typeof inner === 'string' ? `${key}:${inner}` : isObj(inner) ? `${key}:${Object.keys(inner)[0] ?? '?'}` : key;
  }
  return null;
}

/** The facts of a session_meta record (either era's payload). */
export function sessionMetaOf(rec: CodexRecord): CodexSessionMeta {
  const p = isObj(rec.payload) ? rec.payload : {};
  const git = isObj(p.git) ? { commitHash: str(p.git.commit_hash), branch: str(p.git.branch), repositoryUrl: str(p.git.repository_url) } : null;
  const base = isObj(p.base_instructions) ? str(p.base_instructions.text) : str(p.base_instructions);
  return {
    line: rec.line,
    id: str(p.id),
    timestamp: str(p.timestamp) ?? rec.timestamp,
    cwd: str(p.cwd),
    originator: str(p.originator),
    cliVersion: str(p.cli_version),
    source: sourceOf(p.source),
    modelProvider: str(p.model_provider),
    instructions: str(p.instructions),
    baseInstructions: base,
    git,
    forkedFromId: str(p.forked_from_id),
    parentThreadId: str(p.parent_thread_id),
    threadSource: str(p.thread_source),
    historyMode: str(p.history_mode),
  };
}

/** The first session_meta among `records`, or null. */
export function firstSessionMeta(records: readonly CodexRecord[]): CodexSessionMeta | null {
  for (const r of records) if (r.type === 'session_meta') return sessionMetaOf(r);
  return null;
}
