// What a rewrite writes for a record it changes (Part C §7; issue 15 "no byte lost"): the
// record's original bytes with exactly the edits made to it (src/core/store/recordEdit.ts), never
// a re-serialisation. Each result is checked — JSON.parse of the new bytes must deep-equal the
// record as the viewer shows it — and a record that fails is refused, naming its line: the
// rewrite then writes nothing (it never falls back to re-serialising).
import { isDeepStrictEqual } from 'node:util';
import * as fsp from 'node:fs/promises';
import { editRecord, RecordEditError, type RecordEdit } from './recordEdit';
import type { LoadedSession } from '../formats/xcsh/load';
import type { SessionHeader } from '../formats/xcsh/schemas';
import { readRange } from './fileHead';

/** A record a rewrite cannot change exactly; the rewrite is refused. */
export class UnsafeRecordEditError extends Error {
  constructor(
    readonly path: string | null,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${path ?? '(session)'}:${line}: refusing to rewrite: the record on line ${line} cannot be edited exactly (${reason}); the file is left unchanged`);
    this.name = 'UnsafeRecordEditError';
  }
}

function parsedOrNull(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * `bytes` (one record) with `edits` applied, checked against `expected` (the record as it will be
 * read back; with `idNotOnDisk`, its `id` is one the loader made, which the file does not hold).
 * Throws UnsafeRecordEditError.
 */
export function editedRecord(bytes: Buffer, edits: readonly RecordEdit[], expected: unknown, where: { path: string | null; line: number; idNotOnDisk?: boolean }): Buffer {
  let out: Buffer;
  try {
    out = editRecord(bytes, edits);
  } catch (e) {
    if (e instanceof RecordEditError) throw new UnsafeRecordEditError(where.path, where.line, e.message);
    throw e;
  }
  if (!readsBackAs(parsedOrNull(out), expected, where.idNotOnDisk === true)) {
    throw new UnsafeRecordEditError(where.path, where.line, 'the edited bytes do not read back as the migrated record');
  }
  return out;
}

function readsBackAs(parsed: unknown, expected: unknown, idNotOnDisk: boolean): boolean {
  if (!idNotOnDisk) return isDeepStrictEqual(parsed, expected);
  if (parsed === null || typeof parsed !== 'object' || typeof (parsed as { id?: unknown }).id === 'string') return false;
  const { id: _p, ...p } = parsed as Record<string, unknown>;
  const { id: _e, ...e } = expected as Record<string, unknown>;
  return isDeepStrictEqual(p, e);
}

/** Entry `i` of `loaded` as the rewrite writes it: its original `bytes` with the migration's edits. */
export function editedEntry(bytes: Buffer, loaded: LoadedSession, i: number): Buffer {
  const entry = loaded.entries[i]!;
  const where = { path: loaded.path, line: loaded.entryLines[i] ?? 0, idNotOnDisk: loaded.syntheticIds?.has(entry.id) === true };
  return editedRecord(bytes, loaded.entryEdits?.get(i) ?? [], entry, where);
}

/**
 * The edits that turn header `before` into `after`: every top-level field whose value differs or
 * is new (a new one goes after the field that precedes it in `after`). Fields are never removed.
 */
export function headerEdits(before: Record<string, unknown>, after: Record<string, unknown>): RecordEdit[] {
  const edits: RecordEdit[] = [];
  for (const key of Object.keys(before)) {
    if (!Object.prototype.hasOwnProperty.call(after, key)) throw new RecordEditError(`the new header has no "${key}" (a header rewrite never removes a field)`);
  }
  const keys = Object.keys(after);
  keys.forEach((key, k) => {
    if (Object.prototype.hasOwnProperty.call(before, key) && JSON.stringify(before[key]) === JSON.stringify(after[key])) return;
    edits.push({ op: 'set', path: [key], value: after[key], after: keys.slice(0, k).reverse() });
  });
  return edits;
}

/**
 * The header record's bytes changed into `next`: only the fields that differ are edited (a title,
 * the version); every other byte of the header is kept. Throws UnsafeRecordEditError.
 */
export function editedHeader(bytes: Buffer, next: SessionHeader, where: { path: string | null; line: number }): Buffer {
  const before = parsedOrNull(bytes);
  if (before === null || typeof before !== 'object' || Array.isArray(before)) throw new UnsafeRecordEditError(where.path, where.line, 'the header is not a JSON object');
  let edits: RecordEdit[];
  try {
    edits = headerEdits(before as Record<string, unknown>, next as unknown as Record<string, unknown>);
  } catch (e) {
    if (e instanceof RecordEditError) throw new UnsafeRecordEditError(where.path, where.line, e.message);
    throw e;
  }
  return edits.length === 0 ? bytes : editedRecord(bytes, edits, next, where);
}

export interface UnkeptRecord {
  line: number;
  reason: string;
}

const WINDOW = 1 << 20;

/** Serves byte ranges of a file read in ascending order from 1 MB windows (one read per window, not per record). */
export function rangeReader(fh: fsp.FileHandle): (start: number, end: number) => Promise<Buffer> {
  let win: Buffer = Buffer.alloc(0);
  let winStart = 0;
  return async (start, end) => {
    if (start < winStart || end > winStart + win.length) {
      win = await readRange(fh, start, start + Math.max(WINDOW, end - start));
      winStart = start;
    }
    return win.subarray(start - winStart, end - winStart);
  };
}

/**
 * A dry run of a migration rewrite's record edits (nothing is written): the records that could
 * not be changed exactly, which would make the rewrite refuse. Empty when every change is exact.
 */
export async function uneditableRecords(path: string, loaded: LoadedSession): Promise<UnkeptRecord[]> {
  const out: UnkeptRecord[] = [];
  const fh = await fsp.open(path, 'r');
  const readRange = rangeReader(fh);
  try {
    const hr = loaded.headerRange;
    if (hr && loaded.header) {
      try {
        editedHeader(await readRange(hr.start, hr.end), loaded.header, { path, line: loaded.headerLine });
      } catch (e) {
        if (!(e instanceof UnsafeRecordEditError)) throw e;
        out.push({ line: e.line, reason: e.reason });
      }
    }
    const named = { ...loaded, path };
    for (const i of [...(loaded.entryEdits?.keys() ?? [])].sort((a, b) => a - b)) {
      if (loaded.changed?.[i] !== true || i >= loaded.entryStarts.length) continue;
      const line = loaded.entryLines[i] ?? 0;
      try {
        editedEntry(await readRange(loaded.entryStarts[i]!, loaded.entryEnds[i]!), named, i);
      } catch (e) {
        if (!(e instanceof UnsafeRecordEditError)) throw e;
        out.push({ line, reason: e.reason });
      }
    }
  } finally {
    await fh.close();
  }
  return out.sort((a, b) => a.line - b.line);
}
