// Entry ids: 8 lowercase hex characters (Part B §11), unique within a session.
import { createHash, randomBytes } from 'node:crypto';
import type { Diagnostic } from '../../diagnostics';
import type { SessionEntry } from './schemas';

/**
 * A fresh 8-hex id not in `taken`, for a NEW entry (an append); the id is added to `taken` so a
 * caller assigning many ids in a row cannot hand out the same one twice. crypto-random (not
 * Math.random) so two tools appending to copies of one file do not produce colliding ids.
 */
export function generateEntryId(taken: Set<string>): string {
  for (;;) {
    const id = randomBytes(4).toString('hex');
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

/**
 * The id of an entry that has none on disk (a v1 entry, or a v3 entry whose `id` is missing or
 * not a string). Part C §10: it depends only on the file's bytes — the entry's parsed value and
 * its position among the entries — so every run, the CLI and the editor show the same id, and
 * `migrate` writes exactly it. A candidate already in `taken` (every id in the file, and those
 * given before) is re-hashed with a counter. The parsed value stands for the record's bytes
 * because the streaming reader keeps no bytes, and the file, text and tail loaders must agree.
 */
export function stableEntryId(entry: unknown, ordinal: number, taken: Set<string>): string {
  const base = createHash('sha256').update(`${ordinal}\n`).update(JSON.stringify(entry) ?? '').digest();
  for (let k = 0; ; k++) {
    const id = k === 0 ? base.toString('hex', 0, 4) : createHash('sha256').update(base).update(`#${k}`).digest('hex').slice(0, 8);
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

function describeId(e: Record<string, unknown>): string {
  if (!Object.prototype.hasOwnProperty.call(e, 'id')) return 'it has no "id"';
  const v = e.id;
  if (v === null) return '"id" is null';
  if (typeof v === 'object') return `"id" is ${Array.isArray(v) ? 'an array' : 'an object'}`;
  return `"id" is the ${typeof v} ${JSON.stringify(v)?.slice(0, 40) ?? String(v)}`;
}

/**
 * Part C §5/§10 for entries of a v2/v3 file without a string `id`: each gets a stable id (see
 * stableEntryId) and a `missing-id` diagnostic, so the tree, the context and the views work and
 * the conversation through it is never lost. Entries are replaced by copies; `missing` lists
 * their positions, ascending. Returns the ids made (none of them is on disk).
 */
export function assignMissingIds(entries: SessionEntry[], missing: readonly number[], entryLines: readonly number[], diagnostics: Diagnostic[], links?: Map<number, NumericLink>): Set<string> {
  const taken = new Set<string>();
  for (const e of entries) if (typeof e.id === 'string') taken.add(e.id);
  const made = new Set<string>();
  // Part B §23: the agent's id map is a JavaScript Map, so a numeric id is found by the same
  // number (never by its string: 5 and "5" are different keys; the last entry with it wins).
  let byNumber: Map<number, string> | null = null;
  for (const i of missing) {
    const e = entries[i]! as unknown as Record<string, unknown>;
    const id = stableEntryId(e, i, taken);
    made.add(id);
    entries[i] = { ...e, id } as unknown as SessionEntry;
    if (typeof e.id === 'number') (byNumber ??= new Map()).set(e.id, id);
    diagnostics.push({
      line: entryLines[i] ?? 0,
      kind: 'missing-id',
      entryId: id,
      message: `entry has no string "id" (${describeId(e)}); shown as "${id}", an id made from its bytes that is not on disk${typeof e.id === 'number' ? ' (entries naming the number as their parent or kept entry are linked to it, as the agent links them)' : ''}`,
    });
  }
  if (byNumber !== null) linkNumericRefs(entries, byNumber, links);
  return made;
}

/**
 * Entries whose `parentId` (or a compaction's `firstKeptEntryId`) is a number that an entry has as
 * its id point at that entry's made id, in memory (issue 22 §28). Replaced by copies; the file's
 * bytes stay as they are.
 */
/** What linkNumericRefs set on one entry (a body read from disk gets the same: lazyIndex.ts). */
export interface NumericLink {
  parentId?: string;
  firstKeptEntryId?: string;
}

function linkNumericRefs(entries: SessionEntry[], byNumber: ReadonlyMap<number, string>, links?: Map<number, NumericLink>): void {
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]! as unknown as Record<string, unknown>;
    const parent = typeof e.parentId === 'number' ? byNumber.get(e.parentId) : undefined;
    const kept = e.type === 'compaction' && typeof e.firstKeptEntryId === 'number' ? byNumber.get(e.firstKeptEntryId) : undefined;
    if (parent === undefined && kept === undefined) continue;
    const copy: Record<string, unknown> = { ...e };
    if (parent !== undefined) copy.parentId = parent;
    if (kept !== undefined) copy.firstKeptEntryId = kept;
    entries[i] = copy as unknown as SessionEntry;
    links?.set(i, { ...(parent !== undefined ? { parentId: parent } : {}), ...(kept !== undefined ? { firstKeptEntryId: kept } : {}) });
  }
}
