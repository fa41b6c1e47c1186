// v1 → v2 → v3 migration, in memory (Part A "Versions and migration"; Part C §2: viewing never
// writes — the caller decides whether to persist the result).
//
// Inputs are never mutated: an entry the migration touches is shallow-copied (its `message` too,
// when the role is rewritten); untouched entries keep their identity, so a rewrite can tell which
// records to copy byte-for-byte from the original file.
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from './schemas';
import { generateEntryId } from './ids';
import { readHeaderVersion } from './version';

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
}

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
  if (!Number.isFinite(from) || from >= CURRENT_SESSION_VERSION) return { header, entries: entries.slice(), report };

  const out: Mutable[] = entries.slice() as unknown as Mutable[];
  const touched = new Uint8Array(out.length);
  const copy = (i: number): Mutable => {
    if (!touched[i]) {
      out[i] = { ...out[i] };
      touched[i] = 1;
    }
    return out[i]!;
  };

  if (from < 2) migrateV1ToV2(out, copy, report);
  if (from < 3) migrateV2ToV3(out, copy, report);

  for (let i = 0; i < touched.length; i++) if (touched[i]) report.changedIndices.push(i);
  report.entriesTouched = report.changedIndices.length;
  report.toVersion = CURRENT_SESSION_VERSION;
  return {
    header: { ...header, version: CURRENT_SESSION_VERSION },
    entries: out as unknown as SessionEntry[],
    report,
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
function migrateV1ToV2(out: Mutable[], copy: (i: number) => Mutable, report: MigrationReport): void {
  const taken = new Set<string>();
  // An id already present in a "v1" file is kept when it is a unique string (a hand-edited or
  // half-migrated file may reference it, e.g. from a label); only missing/duplicate ids are made.
  const keep = new Uint8Array(out.length);
  for (let i = 0; i < out.length; i++) {
    const id = out[i]!.id;
    if (typeof id === 'string' && id.length > 0 && !taken.has(id)) {
      taken.add(id);
      keep[i] = 1;
    }
  }
  let prev: string | null = null;
  for (let i = 0; i < out.length; i++) {
    let id = out[i]!.id as string;
    if (!keep[i]) {
      id = generateEntryId(taken);
      copy(i).id = id;
      report.idsAssigned++;
    }
    if (out[i]!.parentId !== prev || !('parentId' in out[i]!)) {
      copy(i).parentId = prev;
      report.parentsLinked++;
    }
    prev = id;
  }
  for (let i = 0; i < out.length; i++) {
    const e = out[i]!;
    if (e.type !== 'compaction' || !('firstKeptEntryIndex' in e)) continue;
    const k = e.firstKeptEntryIndex;
    if (typeof k === 'number' && Number.isInteger(k) && k >= 1 && k <= out.length) {
      const c = copy(i);
      c.firstKeptEntryId = out[k - 1]!.id;
      delete c.firstKeptEntryIndex;
      report.compactionsMigrated++;
    } else {
      report.unresolvedCompactions.push({
        entryIndex: i,
        firstKeptEntryIndex: k,
        reason: typeof k === 'number' && k === 0 ? 'index 0 names the session header' : `index ${JSON.stringify(k)} is outside the ${out.length + 1} parsed records`,
      });
    }
  }
}

/** v2 → v3: the legacy `hookMessage` role became `custom`. */
function migrateV2ToV3(out: Mutable[], copy: (i: number) => Mutable, report: MigrationReport): void {
  for (let i = 0; i < out.length; i++) {
    const e = out[i]!;
    if (e.type !== 'message') continue;
    const m = e.message as Mutable | null | undefined;
    if (m && typeof m === 'object' && m.role === 'hookMessage') {
      copy(i).message = { ...m, role: 'custom' };
      report.rolesRewritten++;
    }
  }
}
