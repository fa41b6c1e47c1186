// Project folder names under the sessions root (spec Part A "Layout on disk", Part B §11).
//
// Three forms exist on disk:
//   legacy        `--<abs path without leading slash, / \ : → ->--`   e.g. --work-pi--
//   home-relative `-<path relative to $HOME, / \ : → ->`            e.g. -projects-foo (HOME itself: `-`)
//   tmp-relative  `-tmp-<path relative to tmpdir, / \ : → ->`       e.g. -tmp-scratch (tmpdir itself: `-tmp`)
// The encoding is lossy (a `-` in a folder name looks like a separator), so decoding is a best
// guess for display only: the session header's `cwd` is the truth.
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, relative, resolve } from 'node:path';

export interface CwdEncodeOptions {
  home?: string;
  tmp?: string;
  /** Write only the legacy `--…--` form (Part A). Default: the upstream home/tmp-relative forms first. */
  legacy?: boolean;
}

const SEP = /[/\\:]/g;

export function encodeCwdLegacy(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(SEP, '-')}--`;
}

function within(root: string, p: string): string | null {
  const rel = relative(root, p);
  if (rel === '') return '';
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  return rel;
}

export function encodeCwd(cwd: string, opts: CwdEncodeOptions = {}): string {
  const abs = resolve(cwd);
  if (opts.legacy) return encodeCwdLegacy(abs);
  const home = resolve(opts.home ?? homedir());
  const tmp = resolve(opts.tmp ?? tmpdir());
  const h = within(home, abs);
  if (h !== null) return h === '' ? '-' : `-${h.replace(SEP, '-')}`;
  const t = within(tmp, abs);
  if (t !== null) return t === '' ? '-tmp' : `-tmp-${t.replace(SEP, '-')}`;
  return encodeCwdLegacy(abs);
}

export type CwdForm = 'legacy' | 'home' | 'tmp' | 'unknown';

export interface DecodedCwd {
  form: CwdForm;
  /** Best-guess path (every `-` read as a separator); null when the name is not an encoded cwd. */
  path: string | null;
}

export function decodeCwd(dirName: string, opts: { home?: string; tmp?: string } = {}): DecodedCwd {
  if (dirName.length >= 4 && dirName.startsWith('--') && dirName.endsWith('--')) {
    return { form: 'legacy', path: '/' + dirName.slice(2, -2).replace(/-/g, '/') };
  }
  const tmp = opts.tmp ?? tmpdir();
  const home = opts.home ?? homedir();
  if (dirName === '-tmp') return { form: 'tmp', path: tmp };
  if (dirName.startsWith('-tmp-')) return { form: 'tmp', path: `${tmp}/${dirName.slice(5).replace(/-/g, '/')}` };
  if (dirName === '-') return { form: 'home', path: home };
  if (dirName.startsWith('-') && !dirName.startsWith('--')) {
    return { form: 'home', path: `${home}/${dirName.slice(1).replace(/-/g, '/')}` };
  }
  return { form: 'unknown', path: null };
}

/** Every folder name the agents may have used for this cwd (new forms first, then legacy). */
export function cwdDirNames(cwd: string, opts: { home?: string; tmp?: string } = {}): string[] {
  const names = [encodeCwd(cwd, opts), encodeCwdLegacy(resolve(cwd))];
  return [...new Set(names)];
}
