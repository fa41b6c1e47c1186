// Which agent wrote a session file, decided by content, never by name alone (a root may hold
// both formats, and both suffixes `.jsonl` and `.jsonl.zstd` are accepted anywhere).
//
// - zstd: the file starts with the frame magic 28 B5 2F FD (dsh's default encoding);
// - dsh: the first record is `{"type":"session","version":0,…,"createdAt":<integer>}`
//   (dsh-format.md §1: `version` is a number and 0 is the only one dsh writes);
// - claude: a Claude Code transcript — among the first records one that only Claude Code writes (a
//   chain record with `uuid`/`parentUuid`/`sessionId`, or one of its side records), and no other
//   format's header (formats/claude/detect.ts);
// - codex: an OpenAI Codex CLI rollout — a first record that is its `session_meta` (plain, or in a
//   zstd frame: formats/codex/sniffCodex.ts decodes the head of the first frame);
// - xcsh / pi / oh-my-pi: a `type: "session"` header with version 1–3 or none (or an oh-my-pi
//   title line before it).

export type SessionFormat = 'xcsh' | 'dsh' | 'codex' | 'claude';

export function startsWithZstdMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd;
}

/**
 * A parsed first record that is a dsh session header. Deliberately looser than dsh's own
 * `isHeaderLine` (fixtures carry `createdAt: 0` and template ids, older seeds lack
 * `delegationDepth`): `type: "session"`, the number `version` 0, and an integer `createdAt`.
 */
export function isDshHeader(record: unknown): boolean {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return false;
  const r = record as Record<string, unknown>;
  return r.type === 'session' && r.version === 0 && typeof r.createdAt === 'number' && Number.isInteger(r.createdAt);
}

/** The one message every write command gives for a dsh log (it is never written). */
export const DSH_READ_ONLY_REASON = 'a deepseek-harness (dsh) session log: Session Loom never writes dsh logs (dsh has one live writer per session, and repair is its own job)';

/** The one message every write command gives for a Codex rollout (it is never written). */
export const CODEX_READ_ONLY_REASON = 'an OpenAI Codex CLI rollout: Session Loom never writes Codex rollouts (the CLI owns them; forking into its format is a later step)';

/** An SQLite database file ("SQLite format 3\0"): dsh's SQLite session store is one (§3). */
export function startsWithSqliteMagic(bytes: Uint8Array): boolean {
  const magic = 'SQLite format 3\0';
  if (bytes.length < magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (bytes[i] !== magic.charCodeAt(i)) return false;
  return true;
}
