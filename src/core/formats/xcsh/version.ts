// The header `version` field, read and judged in one place (spec Part A "Versions and
// migration", Part C §9 and §11).
//
// Reading is lenient: absent means v1 (Part A), so do 0 and null (Part B §21, as the agent reads
// them), a numeric string ("3") is read as that number with a diagnostic (Part C §11). Writing is
// strict: only a header whose stored `version` is exactly the number 1, 2 or 3, 0, null, or
// absent, is ever written (the adversarial review found
// `1e400` — Infinity — and `"4"` treated as v1 and migrated, and `title` writing `"version":
// null`). Anything else is shown read-only.
import { CURRENT_SESSION_VERSION } from './entryTypes';
import { isDshHeader } from '../detect';

export interface HeaderVersion {
  /** The version the file is read as: 1 when absent; NaN when it cannot be read as a number. */
  version: number;
  /** Why the stored value is not a plain 1/2/3/absent, for a diagnostic; null when it is. */
  note: string | null;
  /** The stored value may be written back (exactly 1, 2, 3, absent, or 0 / null: read as 1). */
  writable: boolean;
}

/** What a header's stored `version` means. `header` is the raw parsed header record. */
export function readHeaderVersion(header: { version?: unknown } | null | undefined): HeaderVersion {
  if (!header || !('version' in header) || header.version === undefined) return { version: 1, note: null, writable: true };
  const v = header.version;
  // Part B §21: the agent migrates a file whose version is below 2, and `null < 2` holds in
  // JavaScript: 0 and null are read (and migrated, and written) as v1. (Not a dsh log's 0: that
  // format is another one, and its callers refuse it first.)
  if (v === null || (v === 0 && !isDshHeader(header))) return { version: 1, note: `header version ${String(v)} is read as version 1, as the agent reads it (it migrates any version below 2)`, writable: true };
  if (typeof v === 'number') {
    if (v === 1 || v === 2 || v === 3) return { version: v, note: null, writable: true };
    if (Number.isFinite(v)) return { version: v, note: null, writable: false };
    return { version: NaN, note: `header version ${JSON.stringify(v) ?? String(v)} is not a finite number`, writable: false };
  }
  if (typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v)) {
    const n = Number(v);
    return { version: n, note: `header version is the string ${JSON.stringify(v)}; read as ${n}`, writable: false };
  }
  return { version: NaN, note: `header version ${describe(v)} is not a number`, writable: false };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : String(v);
}

/**
 * Why a header must never be written, or null when it may be. Only a stored version of exactly
 * 1, 2 or 3 (or none, 0 or null: v1) is writable; a numeric string, Infinity, 4+ or garbage is
 * not (a dsh header's version 0 is refused by its callers, which check for dsh first).
 */
export function versionWriteRefusal(header: { version?: unknown } | null | undefined): string | null {
  const hv = readHeaderVersion(header);
  if (hv.writable) return null;
  if (hv.version > CURRENT_SESSION_VERSION) return `version ${hv.version} is newer than ${CURRENT_SESSION_VERSION}`;
  return hv.note ?? `header version ${describe(header?.version)} is not 1, 2 or 3`;
}
