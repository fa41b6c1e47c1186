// The shapes the dsh reader hands out (dsh-format.md §1–§2). Events are exactly as stored (the
// parsed JSON objects, never re-keyed; packed rows expanded) so a viewer shows what dsh wrote.
import type { Diagnostic } from '../../diagnostics';
import type { DshEventStore } from './eventStore';

/** A dsh `SessionEvent`: `{type, seq, time, data}` plus the optional envelope fields. */
export interface DshEvent {
  type: string;
  seq: number;
  time: number;
  data: unknown;
  ignorable?: true;
  sourceEventSeqs?: number[];
  surfaceOp?: DshSurfaceOp;
}

export type DshSurfaceOp = 'append' | { op: 'replace'; start: number; end: number };

/** The session header (`type: "session"`, version 0), lenient: fixtures carry template ids and `createdAt: 0`. */
export interface DshHeader {
  type: 'session';
  version: 0;
  id: string;
  createdAt: number;
  cwd?: string;
  parentSession?: string;
  seedLength?: number;
  origin?: 'subagent';
  /** Required on disk; older seeds lack it, so the reader defaults it to 0. */
  delegationDepth: number;
  agentPreset?: string;
  /** Any other key the header carried, kept as is. */
  [key: string]: unknown;
}

/**
 * The log's state, most severe first (the one reported is the first that applies):
 * - `corrupt`: dsh would refuse to load it (a bad record or seq gap before a later `turn/end`, a
 *   bad complete zstd frame…); the readable prefix is still shown;
 * - `torn`: an incomplete final record (or a bad record after the last `turn/end`) was dropped;
 * - `interrupted`: the last turn is open and the file is not being written: closers applied in memory;
 * - `open`: the last turn is open and the file changed within the live window: it may be live, no closers;
 * - `complete`: every turn is closed and nothing was dropped.
 */
export type DshLogState = 'complete' | 'open' | 'interrupted' | 'torn' | 'corrupt';

/** The physical form a log was read from. */
export type DshEncoding = 'raw' | 'zstd' | 'sqlite';

/**
 * A diagnostic with the place it belongs to. `line` is the 1-based line of the logical JSONL text
 * (for a raw file its physical line; for a zstd file the line of the decompressed stream, the
 * header being line 1; 0 for a database row or a whole-log finding), `offset` a byte offset in
 * the stored file, `seq` an event seq.
 */
export interface DshDiagnostic extends Diagnostic {
  /** Byte offset in the file (raw: the line's first byte; zstd: the frame's first byte). */
  offset?: number;
  /** The event seq the diagnostic is about, when there is one. */
  seq?: number;
}

/** One read of a dsh session log: the logical event stream and what was found on the way. */
export interface DshLog {
  encoding: DshEncoding;
  /** Null when no valid header could be read (then `events` is empty and state is `corrupt`). */
  header: DshHeader | null;
  /**
   * The logical events after unpacking and legacy upgrades, `events.at(i).seq === i`: an indexable
   * store (length, at, typeAt, seqsOf, slice, iteration) that keeps chunk events packed and
   * rebuilds them when asked for (eventStore.ts).
   */
  events: DshEventStore;
  /**
   * The synthetic closers of an interrupted turn (spec §4), applied in memory only and never
   * written: they continue the seqs after `events`. Empty unless `state` is `interrupted` or `torn`.
   */
  closers: DshEvent[];
  state: DshLogState;
  /** The open turn at the end of the stored events (before closers), or null. */
  openTurn: number | null;
  diagnostics: DshDiagnostic[];
  /** Size of the stored form in bytes (file size; for SQLite the database + WAL). */
  bytes: number;
  /** Modification time of the source (ms), when read from a file. */
  mtimeMs?: number;
}

/**
 * `events` followed by `closers` as one new array: the stream a viewer shows, the closers last and
 * synthetic. It rebuilds every event (what the CLI prints); a viewer reads `log.events` instead.
 */
export function eventsWithClosers(log: DshLog): DshEvent[] {
  const all = log.events.slice();
  for (const c of log.closers) all.push(c);
  return all;
}
