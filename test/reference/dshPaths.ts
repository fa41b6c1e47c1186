// The reference (test-only, issue 23): how dsh names its directories (dsh-format.md §1): a session
// id as one path segment and a cwd as a project directory name. The product never computes these:
// a listing trusts the header's cwd and id, never the folder names (src/core/formats/dsh/paths.ts);
// tests lay out dsh roots as dsh does.
import { join } from 'node:path';
import { DSH_LOG_NAMES } from '../../src/core/formats/dsh/paths';

const SAFE_UNIT = /^[A-Za-z0-9._-]$/;
const escapeUnit = (code: number): string => '~' + code.toString(16).toUpperCase().padStart(4, '0');

/**
 * A session id as one path segment: `[A-Za-z0-9._-]` kept, every other UTF-16 code unit
 * (`~` included) as `~XXXX`; `.` and `..` escaped whole. Injective; UUIDs pass unchanged.
 */
export function encodeSegment(id: string): string {
  if (id === '') throw new Error('cannot encode an empty path segment');
  if (id === '.') return '~002E';
  if (id === '..') return '~002E~002E';
  let out = '';
  for (let i = 0; i < id.length; i++) {
    const ch = id[i]!;
    out += SAFE_UNIT.test(ch) ? ch : escapeUnit(id.charCodeAt(i));
  }
  return out;
}

/**
 * The project directory name of a cwd: each run of `/`, `\` or `:` becomes one `-`, safe units
 * stay, others become `~XXXX`; leading `-` stripped (empty → `root`), cut to 251 characters,
 * wrapped as `--…--`.
 */
export function projectKey(cwd: string): string {
  if (cwd === '') throw new Error('cannot encode an empty project path');
  let out = '';
  let inSeparatorRun = false;
  for (let i = 0; i < cwd.length; i++) {
    const ch = cwd[i]!;
    if (ch === '/' || ch === '\\' || ch === ':') {
      if (!inSeparatorRun) out += '-';
      inSeparatorRun = true;
      continue;
    }
    inSeparatorRun = false;
    out += SAFE_UNIT.test(ch) ? ch : escapeUnit(cwd.charCodeAt(i));
  }
  const slug = out.replace(/^-+/, '') || 'root';
  return `--${slug.slice(0, 251)}--`;
}

/** The project directory name for a header cwd (`_no-cwd` when the header has none). */
export function projectDirName(cwd: string | undefined): string {
  return cwd === undefined ? '_no-cwd' : projectKey(cwd);
}

/** `<root>/<projectKey(cwd)>/<encodeSegment(id)>/session.jsonl[.zstd]`. */
export function dshLogPath(root: string, cwd: string | undefined, id: string, encoding: 'zstd' | 'raw' = 'zstd'): string {
  return join(root, projectDirName(cwd), encodeSegment(id), encoding === 'zstd' ? DSH_LOG_NAMES[0] : DSH_LOG_NAMES[1]);
}
