// Is this a Claude Code transcript? Decided by content, never by file name (files are renamed:
// the fixture `short.jsonl` holds session 55604662…, spec C.6). The caller hands the first
// parsed records of the file (the sniffer's window); the answer is yes when none of them is
// another format's header and at least one is a record only Claude Code writes:
// - a chain record (A.3/A.4): `type` user/assistant/system/attachment/progress with a string
//   `uuid`, a `parentUuid` key (string or null) and a string `sessionId`;
// - a side record of its own (A.3): `summary` with `leafUuid`, `file-history-snapshot` with a
//   `snapshot` object, `queue-operation` with `operation`, or one of the session-keyed ones
//   (`custom-title`, `ai-title`, `last-prompt`, `tag`, …) with a string `sessionId`.
import { CHAIN_TYPES, isObj } from './records';

/** Side record types keyed by `sessionId` (A.3). */
const SESSION_SIDE_TYPES: ReadonlySet<string> = new Set([
  'custom-title',
  'ai-title',
  'last-prompt',
  'tag',
  'agent-name',
  'agent-color',
  'agent-setting',
  'mode',
  'permission-mode',
  'pr-link',
  'worktree-state',
  'content-replacement',
  'marble-origami-commit',
  'marble-origami-snapshot',
  'checkpoint',
]);

/** A record Claude Code writes and no other format does. */
export function isClaudeRecord(value: unknown): boolean {
  if (!isObj(value) || typeof value.type !== 'string') return false;
  const t = value.type;
  if (CHAIN_TYPES.has(t)) return typeof value.uuid === 'string' && 'parentUuid' in value && (value.parentUuid === null || typeof value.parentUuid === 'string') && typeof value.sessionId === 'string';
  if (t === 'summary') return typeof value.leafUuid === 'string' && typeof value.summary === 'string';
  if (t === 'file-history-snapshot') return isObj(value.snapshot) && typeof value.messageId === 'string';
  if (t === 'queue-operation') return typeof value.operation === 'string' && typeof value.sessionId === 'string';
  return SESSION_SIDE_TYPES.has(t) && typeof value.sessionId === 'string';
}

/**
 * Whether the first records of a file (parsed JSON values, in file order, unparsable lines left
 * out) are a Claude Code transcript's. An xcsh/pi/oh-my-pi or dsh header (`type: "session"`)
 * anywhere among them says no.
 */
export function isClaudeTranscript(firstRecords: readonly unknown[]): boolean {
  let claude = false;
  for (const r of firstRecords) {
    if (isObj(r) && r.type === 'session') return false;
    if (!claude && isClaudeRecord(r)) claude = true;
  }
  return claude;
}

/** The one message every write command gives for a Claude Code transcript (it is never written). */
export const CLAUDE_READ_ONLY_REASON =
  'a Claude Code transcript: Session Loom never writes Claude Code files (the CLI owns them and appends to them while a session runs)';
