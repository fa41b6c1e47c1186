// The size limits the CLI applies to what the model is sent (codex-format.md B.2, B.3):
// - tool outputs are cut to the turn's `truncation_policy` (bytes, or tokens at ≈4 bytes each),
//   ×1.2 for serialization, keeping the head and the tail around a marker;
// - a compaction without replacement_history keeps earlier user messages up to a token budget.
// The rollout keeps the full text. The CLI's exact marker wording and cut points are not part of
// the spec: this is the same rule (middle cut, head and tail halves, a marker naming what went),
// and everything it produces is flagged as an approximation where it is shown.

/** Bytes of a string as UTF-8. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The CLI's coarse token estimate: ≈4 bytes per token, rounded up. */
export function approxTokens(text: string): number {
  return Math.ceil(utf8Bytes(text) / 4);
}

export interface TruncationPolicy {
  mode: 'bytes' | 'tokens';
  limit: number;
}

/** A turn_context's `truncation_policy` (`{mode, limit}`), or null when it records none. */
export function truncationPolicyOf(turnContext: unknown): TruncationPolicy | null {
  if (!turnContext || typeof turnContext !== 'object') return null;
  const p = (turnContext as { truncation_policy?: unknown }).truncation_policy;
  if (!p || typeof p !== 'object') return null;
  const { mode, limit } = p as { mode?: unknown; limit?: unknown };
  if ((mode !== 'bytes' && mode !== 'tokens') || typeof limit !== 'number' || !Number.isFinite(limit) || limit < 0) return null;
  return { mode, limit };
}

/** The prefix of `text` that fits in `bytes` UTF-8 bytes (never splitting a character). */
function headBytes(text: string, bytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= bytes) return text;
  let end = bytes;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.toString('utf8', 0, end);
}

/** The suffix of `text` that fits in `bytes` UTF-8 bytes. */
function tailBytes(text: string, bytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= bytes) return text;
  let start = buf.length - bytes;
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.toString('utf8', start);
}

/**
 * `text` cut in the middle to `budget` (bytes or tokens), with a marker naming how much was
 * removed; unchanged when it fits.
 */
export function truncateMiddle(text: string, budget: number, mode: 'bytes' | 'tokens'): { text: string; cut: boolean } {
  const maxBytes = Math.max(0, Math.floor(mode === 'bytes' ? budget : budget * 4));
  const total = utf8Bytes(text);
  if (total <= maxBytes) return { text, cut: false };
  const head = headBytes(text, Math.floor(maxBytes / 2));
  const tail = tailBytes(text, maxBytes - utf8Bytes(head));
  const removed = total - utf8Bytes(head) - utf8Bytes(tail);
  const marker = mode === 'bytes' ? `…${removed} bytes truncated…` : `…${Math.ceil(removed / 4)} tokens truncated…`;
  return { text: `${head}${marker}${tail}`, cut: true };
}
