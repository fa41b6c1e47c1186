// v1 → v2 → v3 migration, in memory (Part A "Versions and migration"; Part C §2: viewing never
// writes — the caller decides whether to persist the result).
//
// Inputs are never mutated: an entry the migration touches is replaced by a copy; untouched
// entries keep their identity. For each changed entry the migration also says WHICH edits it made
// (`edits`), so a rewrite edits only those fields in the record's original bytes and copies every
// other byte (src/core/store/recordEdit.ts); the in-memory copies are built with the same edits,
// so the viewer shows exactly what the migrated file will hold.
import { CURRENT_SESSION_VERSION } from './entryTypes';
import type { SessionEntry, SessionHeader } from './schemas';
import { stableEntryId } from './ids';
import { readHeaderVersion } from './version';
import { applyEditsToValue, type RecordEdit } from '../../store/recordEdit';

export interface UnresolvedCompaction {
  /** Index of the compaction in the entries array. */
  entryIndex: number;
  firstKeptEntryIndex: unknown;
  reason: string;
}

export interface MigrationReport {
  fromVersion: number;
  toVersion: number;
  idsAssigned: number;
  parentsLinked: number;
  compactionsMigrated: number;
  rolesRewritten: number;
  entriesTouched: number;
  /** Indices (into the entries array) of the entries the migration changed, ascending. */
  changedIndices: number[];
  /** v1 compactions whose `firstKeptEntryIndex` could not be mapped to an entry (kept unchanged). */
  unresolvedCompactions: UnresolvedCompaction[];
}

export interface MigrationResult {
  header: SessionHeader;
  entries: SessionEntry[];
  report: MigrationReport;
  /** The edits made to each changed entry (keys: its index), in the order they apply. */
  edits: Map<number, RecordEdit[]>;
}

/** Upstream writes `type, id, parentId, timestamp` first: inserted keys go where it puts them. */
export const ID_EDIT_AFTER: readonly string[] = ['type'];
export const PARENT_EDIT_AFTER: readonly string[] = ['id', 'type'];

/**
 * The version a header is read as (src/core/formats/xcsh/version.ts): absent means v1 (Part A),
 * a numeric string its number (Part C §11), anything else NaN — which is never migrated.
 */
export function headerVersion(header: { version?: unknown } | null | undefined): number {
  return readHeaderVersion(header).version;
}

export function emptyReport(version: number): MigrationReport {
  return {
    fromVersion: version,
    toVersion: version,
    idsAssigned: 0,
    parentsLinked: 0,
    compactionsMigrated: 0,
    rolesRewritten: 0,
    entriesTouched: 0,
    changedIndices: [],
    unresolvedCompactions: [],
  };
}

type Mutable = Record<string, unknown>;

/**
 * Brings a session to `CURRENT_SESSION_VERSION`. Idempotent: a v3 (or newer) session comes back
 * unchanged, with the same objects. Versions above 3 are never touched (they are read-only).
 */
export function migrateSession(header: SessionHeader, entries: readonly SessionEntry[]): MigrationResult {
  const from = headerVersion(header);
  const report = emptyReport(from);
  const edits = new Map<number, RecordEdit[]>();
  if (!Number.isFinite(from) || from >= CURRENT_SESSION_VERSION) return { header, entries: entries.slice(), report, edits };

  const add = (i: number, edit: RecordEdit): void => {
    const list = edits.get(i);
    if (list) list.push(edit);
    else edits.set(i, [edit]);
  };
  if (from < 2) migrateV1ToV2(entries as unknown as readonly Mutable[], add, report);
  if (from < 3) migrateV2ToV3(entries as unknown as readonly Mutable[], add, report);

  const out = entries.slice();
  for (const [i, list] of edits) out[i] = applyEditsToValue(out[i]!, list);
  report.changedIndices = [...edits.keys()].sort((a, b) => a - b);
  report.entriesTouched = report.changedIndices.length;
  report.toVersion = CURRENT_SESSION_VERSION;
  return {
    header: applyEditsToValue(header, [{ op: 'set', path: ['version'], value: CURRENT_SESSION_VERSION, after: ['type'] }]),
    entries: out,
    report,
    edits,
  };
}

/**
 * v1 → v2: ids, a linear parent chain in file order, `firstKeptEntryIndex` → `firstKeptEntryId`.
 *
 * Two passes (ids first) so an index can name any entry. The index counts over the parsed array
 * with the header at index 0 (upstream's `entries[index]` on the loaded array), so index k names
 * entries[k - 1]. Upstream keeps nothing when the index names the header or lies out of range and
 * deletes the field; we keep `firstKeptEntryIndex` in that case (never drop what we cannot
 * interpret) and report it — the context builder then keeps no pre-compaction entries, exactly
 * as upstream does for a compaction without `firstKeptEntryId`.
 */
function migrateV1ToV2(entries: readonly Mutable[], add: (i: number, e: RecordEdit) => void, report: MigrationReport): void {
  const taken = new Set<string>();
  // An id already present in a "v1" file is kept when it is a unique string (a hand-edited or
  // half-migrated file may reference it, e.g. from a label); only missing/duplicate ids are made.
  const keep = new Uint8Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const id = entries[i]!.id;
    if (typeof id === 'string' && id.length > 0 && !taken.has(id)) {
      taken.add(id);
      keep[i] = 1;
    }
  }
  // Part C §10: made ids depend only on the file's bytes, so the ids shown before a migration
  // are the ids it writes.
  const ids = new Array<string>(entries.length);
  let prev: string | null = null;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    let id = e.id as string;
    if (!keep[i]) {
      id = stableEntryId(e, i, taken);
      add(i, { op: 'set', path: ['id'], value: id, after: ID_EDIT_AFTER });
      report.idsAssigned++;
    }
    ids[i] = id;
    if (e.parentId !== prev || !('parentId' in e)) {
      add(i, { op: 'set', path: ['parentId'], value: prev, after: PARENT_EDIT_AFTER });
      report.parentsLinked++;
    }
    prev = id;
  }
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.type !== 'compaction' || !('firstKeptEntryIndex' in e)) continue;
    const k = e.firstKeptEntryIndex;
    const valid = typeof k === 'number' && Number.isInteger(k) && k >= 1 && k <= entries.length;
    if ('firstKeptEntryId' in e) {
      // Both fields: the index wins, as upstream's migration (Part B §23) sets the id from it. The
      // index is kept beside it (a v3 reader ignores it; nothing we cannot undo is dropped). An
      // index that names no entry leaves the id the record has.
      if (!valid) report.unresolvedCompactions.push({ entryIndex: i, firstKeptEntryIndex: k, reason: 'it names no entry; the compaction keeps its firstKeptEntryId' });
      else {
        if (e.firstKeptEntryId !== ids[k - 1]) add(i, { op: 'set', path: ['firstKeptEntryId'], value: ids[k - 1] });
        report.compactionsMigrated++;
      }
    } else if (valid) {
      add(i, { op: 'rename', from: 'firstKeptEntryIndex', to: 'firstKeptEntryId', value: ids[k - 1] });
      report.compactionsMigrated++;
    } else {
      report.unresolvedCompactions.push({
        entryIndex: i,
        firstKeptEntryIndex: k,
        reason: typeof k === 'number' && k === 0 ? 'index 0 names the session header' : `index ${JSON.stringify(k)} is outside the ${entries.length + 1} parsed records`,
      });
    }
  }
}

/** v2 → v3: the legacy `hookMessage` role became `custom`. */
function migrateV2ToV3(entries: readonly Mutable[], add: (i: number, e: RecordEdit) => void, report: MigrationReport): void {
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.type !== 'message') continue;
    const m = e.message as Mutable | null | undefined;
    if (m && typeof m === 'object' && !Array.isArray(m) && m.role === 'hookMessage') {
      add(i, { op: 'set', path: ['message', 'role'], value: 'custom' });
      report.rolesRewritten++;
    }
  }
}
