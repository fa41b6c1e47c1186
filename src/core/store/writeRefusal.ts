// Why a write to a session file was refused, and which refusals `force` may override.
//
// `force` (the CLI's --force, the extension's "Write anyway") overrides only the two heuristics
// that GUESS a file is live: "modified in the last few seconds" and "named by a terminal
// breadcrumb". It never overrides a fact: the file changed since it was read, a process holds it
// open for writing (a rename would orphan what it appends, Part B §9), it is read-only (mode,
// damaged, dsh, a version we may not write), or a rewrite cannot keep its identity (hard link,
// owner, not a regular file).
import { CODEX_READ_ONLY_REASON, DSH_READ_ONLY_REASON, isDshHeader } from '../formats/detect';
import { isCodexRollout } from '../formats/codex/records';
import { CLAUDE_READ_ONLY_REASON, isClaudeRecord } from '../formats/claude/detect';
import { versionWriteRefusal } from '../formats/xcsh/version';

export type RewriteRefusal =
  | 'changed' // the bytes differ from what was read (or were replaced while we wrote)
  | 'live' // an agent may be writing it (forceable only when it is a guess; see `forceable`)
  | 'read-only' // never written: mode without owner-write, damaged, dsh, unwritable version
  | 'identity' // a rewrite would break what the file is: a hard link, its owner, a non-regular file
  | 'exists' // a new file's path is taken
  | 'missing'; // the file is gone

export class RewriteRefusedError extends Error {
  readonly reason: RewriteRefusal;
  readonly path: string;
  /**
   * `force` would let this write through: the live-file guesses (recent mtime, breadcrumb), and
   * `changed` for a header-only rewrite (it works on the current bytes). Never anything else.
   */
  readonly forceable: boolean;
  /** Why, without the path or any advice: each front end words its own way out (--force, a button). */
  readonly detail: string;
  constructor(reason: RewriteRefusal, path: string, detail: string, forceable = false) {
    super(`refusing to write ${path}: ${detail}`);
    this.name = 'RewriteRefusedError';
    this.detail = detail;
    this.reason = reason;
    this.path = path;
    this.forceable = forceable;
  }
}

/**
 * Why a session file must not be written, judged from its header record AS STORED (not the
 * loader's migrated copy, so no caller can talk a writer into it): no valid header (damaged), a
 * dsh log, a Codex rollout or a Claude Code transcript (another agent's, never written), or a stored `version` other
 * than exactly 1, 2, 3 or absent. Null when it may be written.
 */
export function headerWriteRefusal(raw: unknown): string | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return 'damaged: no valid session header';
  const h = raw as Record<string, unknown>;
  if (isDshHeader(h)) return DSH_READ_ONLY_REASON;
  if (isCodexRollout(h)) return CODEX_READ_ONLY_REASON;
  if (isClaudeRecord(h)) return CLAUDE_READ_ONLY_REASON;
  if (h.type !== 'session' || typeof h.id !== 'string') return 'damaged: no valid session header';
  return versionWriteRefusal(h);
}

/** Throws `read-only` (never forceable) with the reason; a damaged file can only be repaired into a new one. */
export function refuseReadOnly(path: string, reason: string | null): void {
  if (!reason) return;
  const hint = reason.startsWith('damaged') ? ' (read-only files are never written; repair into a new file instead)' : '';
  throw new RewriteRefusedError('read-only', path, reason + hint);
}
