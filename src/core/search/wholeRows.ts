// What the formats the index reads again whole share (dsh logs, Claude Code transcripts, Codex
// rollouts): the `files` columns of such a read, and a row's record read back from its bytes.
import type { IndexRow, WholeFileRows } from './indexRead';

/**
 * A file the index reads again whole when it changes (a dsh log, a Claude Code transcript, a Codex
 * rollout: no appended-tail update), as the `files` columns describe it.
 */
export function wholeReadRows(bytes: number, rows: IndexRow[], f: Pick<WholeFileRows, 'title' | 'cwd' | 'titleText' | 'created' | 'agent'>): WholeFileRows {
  return { ...f, rows, bytes, resumeFrom: bytes, resumeLine: 0, head: '', seam: '', tailOk: false };
}

/** A record's line read back as a JSON object (a row's text is made again from its bytes); null when it no longer is one. */
export function recordOfLine(buf: Buffer): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(buf.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
