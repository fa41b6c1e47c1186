// The read-only dsh (deepseek-harness) session reader: dsh-format.md, Parts A and B.
// Session Loom never writes a dsh log; nothing exported here opens anything for writing.
//
// Reading a log (all async: the zstd checksum's XXH64 and SQLite are WASM, initialised once)
//   loadDshSource(path, {session?})  any dsh source by content: raw .jsonl, .jsonl.zstd, or an
//                                    SQLite store (then `session` picks the session) → DshLog
//   loadDshFile(path) / readDshLog(bytes)          a file / bytes (raw or zstd, by content)
//   loadDshDatabaseSession(db, id) · DshDatabase   one session of an SQLite store; open() once,
//                                    list() and load(id) many times, close()
// A DshLog holds: header, events, closers (synthetic, in memory, continuing the seqs; shown after
// the events and marked synthetic), state (complete · open · interrupted · torn · corrupt) and
// diagnostics (each with a line, a byte offset or a seq); dshStateLabel / dshStateDescription
// give the state's words (l10nT). `open` vs `interrupted`: a log ending inside a turn whose
// source changed within `liveWindowMs` (default 5 s) may still be written, so it gets no closers.
// Bad input never throws from these: it gives state 'corrupt' and diagnostics. What throws, typed:
// I/O failures, SqliteSnapshotError (missing / not SQLite / damaged), DshDatabaseError (a
// database that is not dsh's store, or another schema version), DshSessionNotFoundError.
//
// log.events: DshEventStore, the logical events (packed rows unpacked, legacy shapes upgraded),
// indexable like a read-only array, events.at(i).seq === i:
//   events.length · events.at(i) (negative: from the end) · events.slice(start?, end?) → DshEvent[]
//   for (const e of events) …   in order; every read gives exactly the eager reader's event
//   events.typeAt(i)            the type alone, without rebuilding the event
//   events.seqsOf(types)        the seqs of the events of those types (e.g. to list turns)
// ~80% of a log's events are chunk deltas; they stay packed as stored and are rebuilt on each
// read (so is any event other than messages, tool results, request headers/routes, titles and
// compactions, which are kept parsed and returned as the same object every time). Compare events
// by seq, not identity; read a window with slice(), not the whole log. A file log keeps its file
// bytes (raw: the text; zstd: the compressed frames) to rebuild events from: readDshLog(bytes)
// keeps `bytes`, don't modify them. A SQLite session keeps every row parsed.
//   eventsWithClosers(log)  events then closers as one new array: rebuilds every event (the CLI)
//   CLI `events`:  {format:'dsh', header, state, events: eventsWithClosers(log), closers: log.closers.length, diagnostics}
//
// What the model saw
//   dshContextAt(log, at?)  {at, messages, messageSeqs, system, tools, model, title, replacements}
//                           at seq `at` (default: the last event, closers included). Cheap: the
//                           fold is indexed once per log (cached), each call is one filter pass.
//   CLI `context`: {format:'dsh', at, messages, system, tools, model} straight from it.
//
// Listing (discovery)
//   readDshListing(path)           header only (first line / first frame) + a bounded title read
//   listDshDatabaseSessions(db)    the sessions of an SQLite store
//   dshSessionStats(log)           counts, tool calls, token usage, models, title, times (folded
//                                  while the log was read: rebuilds no event)
//   dshSessionsRoot() · projectKey(cwd) · encodeSegment(id) · dshLogPath(root, cwd, id)
//
// Attachments
//   readDshAttachment('sha256:<hex>')  bytes or a typed problem (regular file only, no links,
//                                      size cap, SHA-256 verified)
//
// Libraries: fzstd (pure-TypeScript zstd decoder, ~25 KB: VS Code's Node has no zstd, and a
// pure decoder keeps the VSIX platform-neutral; it streams a torn final frame block by block),
// xxhash-wasm (2 KB inlined WASM XXH64 for the per-frame content checksums fzstd skips), and
// @sqlite.org/sqlite-wasm (official SQLite WASM build, FTS5 included) for the SQLite store.
import { open } from 'node:fs/promises';
import { startsWithSqliteMagic } from '../detect';
import { CONTEXT_FOLD_TYPES, DshContextIndex, type DshContextAt } from './context';
import type { DshEventList } from './eventStore';
import { DshDatabase } from './sqliteStore';
import { loadDshFile, type DshReadOptions } from './load';
import { eventsWithClosers, type DshEvent, type DshLog } from './types';

export * from './types';
export { expandPackedRow, isPackedRowTag } from './packedRows';
export { interruptedTurnClosers, openTurnState, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN, OUTCOME_UNKNOWN_TEXT, NOT_STARTED_TEXT } from './closers';
export { upgradeLegacyEvents, KNOWN_DSH_EVENT_TYPES, legacyMessageId } from './legacy';
export { DshContextIndex, projectSurfaceEvent, type DshContextAt, type DshReplacement } from './context';
export { dshSessionStats, type DshSessionStats, type DshTokenUsage } from './stats';
export { readDshListing, type DshListing, type DshListingResult } from './listing';
export { dshHome, dshSessionsRoot, DSH_LOG_NAMES } from './paths';
export { readDshAttachment, dshAttachmentPath, parseAttachmentId, DEFAULT_MAX_ATTACHMENT_BYTES, type DshAttachmentRead, type DshAttachmentProblem } from './attachments';
export { DshDatabase, DshDatabaseError, listDshDatabaseSessions, loadDshDatabaseSession, DSH_SQLITE_APPLICATION_ID, DSH_SQLITE_SCHEMA_VERSION, type DshDatabaseSession } from './sqliteStore';
export { readDshLog, loadDshFile, assembleDshLog, type DshReadOptions } from './load';
export { scanZstdFrames, type ZstdFrame, type ZstdFrameScan } from './zstdFrames';
export { eventsWithClosers };
export { DshEventStore, type DshEventList } from './eventStore';
export { dshStateLabel, dshStateDescription } from './stateWords';

const contextIndexes = new WeakMap<DshLog, DshContextIndex>();

/** `events` then `closers`, indexable, without rebuilding anything. */
function withClosers(log: DshLog): DshEventList {
  const { events, closers } = log;
  const n = events.length;
  const length = n + closers.length;
  return {
    length,
    at: (index: number): DshEvent | undefined => {
      const i = index < 0 ? index + length : index;
      return i < 0 ? undefined : i < n ? events.at(i) : closers[i - n];
    },
    [Symbol.iterator]: function* () {
      yield* events;
      yield* closers;
    },
  };
}

/** The context index of a log (events + closers), built once and cached with the log. */
export function dshContextIndex(log: DshLog): DshContextIndex {
  let index = contextIndexes.get(log);
  if (!index) {
    // Only the events the fold reads (all kept parsed) and the few closers are looked at.
    const only = [...log.events.seqsOf(CONTEXT_FOLD_TYPES), ...log.closers.map((e) => e.seq)];
    index = new DshContextIndex(withClosers(log), only);
    contextIndexes.set(log, index);
  }
  return index;
}

/** What the model saw at seq `at` (default: the last event, closers included). */
export function dshContextAt(log: DshLog, at?: number): DshContextAt {
  return dshContextIndex(log).contextAt(at);
}

/** Thrown by loadDshSource when an SQLite store holds no such session (or none was named among several). */
export class DshSessionNotFoundError extends Error {
  constructor(
    readonly path: string,
    readonly sessionIds: string[],
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'DshSessionNotFoundError';
  }
}

async function startsWithSqlite(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(16);
    const { bytesRead } = await fh.read(buf, 0, 16, 0);
    return startsWithSqliteMagic(buf.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

/**
 * Any dsh source, by content: an SQLite store (the session `session`, or its only session when
 * it holds one), else a raw or zstd log file.
 */
export async function loadDshSource(path: string, opts: Omit<DshReadOptions, 'mtimeMs'> & { session?: string } = {}): Promise<DshLog> {
  if (!(await startsWithSqlite(path))) return loadDshFile(path, opts);
  const db = await DshDatabase.open(path);
  try {
    let id = opts.session;
    if (id === undefined) {
      const ids = db.list().map((s) => s.id);
      if (ids.length !== 1) throw new DshSessionNotFoundError(path, ids, `the dsh store holds ${ids.length} sessions: name one (${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''})`);
      id = ids[0]!;
    }
    const log = db.load(id, opts);
    if (!log) throw new DshSessionNotFoundError(path, db.list().map((s) => s.id), `no session ${JSON.stringify(id)} in this dsh store`);
    return log;
  } finally {
    db.close();
  }
}
