// Shared CLI plumbing: errors that carry `file:line`, output helpers, option parsing.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { escapeForTerminal, jsonForTerminal } from './terminalText';
import { makePrivateDir } from '../core/store/privateDir';

/** An error the CLI reports as `file:line: message` (`file: message` when `line` is 0: the whole file), exit 1; or a usage error (exit 2). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly file: string | null = null,
    readonly line = 0,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, null, 0, 2);
    this.name = 'UsageError';
  }
}

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /**
   * The file the command is about, once its arguments are checked (parseFileCommand sets it): an
   * error that names no path of its own is reported against it (main.ts).
   */
  subject?: string;
  /**
   * Whether stdout is a terminal. Only `export --format md` asks: every other command escapes its
   * human text wherever it goes (terminalText.ts), while a Markdown document written to a pipe is
   * kept as it is and only shown escaped on a terminal.
   */
  readonly isTerminal?: boolean;
}

export const processIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  get isTerminal() {
    return process.stdout.isTTY === true;
  },
};

export function writeJson(io: Io, value: unknown, pretty: boolean): void {
  io.out(jsonForTerminal(JSON.stringify(value, null, pretty ? 2 : undefined)) + '\n');
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * util.parseArgs, strict, with usage errors instead of exceptions: short messages ("unknown
 * option --frob") followed by the subcommand's usage line when given.
 */
export function parse<O extends Options>(argv: string[], options: O, usage?: string): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const r = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    return { values: r.values as Record<string, string | boolean | undefined>, positionals: r.positionals };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const unknown = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '([^']+)'/.exec(err.message)?.[1] : undefined;
    // the option names come from the command line: shown escaped, like any text (terminalText.ts)
    const message = unknown ? `unknown option ${escapeForTerminal(unknown)}` : escapeForTerminal(err.message);
    throw new UsageError(usage ? `${message}\n${usage}` : message);
  }
}

/** `unexpected argument "x"` and the usage: an argument the command does not take (exit 2). */
export function unexpectedArgument(arg: string, usage: string): UsageError {
  return new UsageError(`unexpected argument "${escapeForTerminal(arg)}"\n${usage}`);
}

/**
 * A folder named on the command line (--root) must be one: `no such directory` when it is missing,
 * `not a directory` when it is something else, and the system's reason otherwise (a name longer
 * than the system allows is "file name too long", not "no such directory").
 */
export async function requireDirectory(dir: string): Promise<void> {
  const st = await stat(dir).catch((e: NodeJS.ErrnoException) => {
    throw new CliError(e.code === 'ENOENT' ? 'no such directory' : errorText(e), dir, 0);
  });
  if (!st.isDirectory()) throw new CliError('not a directory', dir, 0);
}

/**
 * The text of an error without what the CLI says around it: Node's `ENOENT: ` before the message
 * (the code is not repeated) and, when the error names its path, the `, open '<path>'` after it
 * (the path starts the line instead).
 */
export function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const err = e as NodeJS.ErrnoException;
  // Node says "name too long"; the name is what the path argument is, so say which limit it hit.
  if (err.code === 'ENAMETOOLONG') return 'file name too long';
  let text = err.message ?? String(e);
  if (typeof err.code === 'string' && text.startsWith(`${err.code}: `)) text = text.slice(err.code.length + 2);
  // Our own typed errors (SqliteSnapshotError, the dsh store's…) start with the path they carry:
  // the CLI puts it at the start of the line already.
  if (typeof err.path === 'string' && err.path !== '' && text.startsWith(`${err.path}: `)) text = text.slice(err.path.length + 2);
  if (typeof err.syscall === 'string' && typeof err.path === 'string') {
    const suffix = `, ${err.syscall} '${err.path}'`;
    const at = text.indexOf(suffix);
    if (at !== -1) text = text.slice(0, at) + text.slice(at + suffix.length);
  }
  return text;
}

/**
 * Makes `dir` (0700) and its missing parents one at a time (Node's recursive mkdir loops forever where a
 * parent cannot be made, e.g. under /proc). A failure is a CliError on `dir` saying `what` it is
 * for: `<dir>: cannot make the search index folder: <parent> is not a directory`.
 */
export async function ensureDir(dir: string, what: string): Promise<void> {
  const target = resolve(dir);
  // The walk itself is the core's (privateDir.ts: level by level, 0700); here its errors become sentences.
  await makePrivateDir(target).catch((e: NodeJS.ErrnoException) => {
    const at = typeof e.path === 'string' ? resolve(e.path) : target;
    if (e.code === 'ENOTDIR') throw new CliError(at === target ? `not a directory, so it cannot be ${what}` : `cannot make ${what}: ${at} is not a directory`, dir, 0);
    throw new CliError(`cannot make ${what}: ${at !== target ? `${at}: ` : ''}${errorText(e)}`, dir, 0);
  });
}

/** The width of the help text (main.ts HELP, FORCE_HELP): lines are wrapped to it, never past. */
export const HELP_WIDTH = 100;

/**
 * Text wrapped to `width` columns, greedily (a line takes every word that fits, so no line ends
 * early), each paragraph (`\n` in `text`) starting with `indent` and continuing with `hang`.
 * Columns are code points: the help's arrows and dashes are one column wide.
 */
export function wrapText(text: string, opts: { width?: number; indent?: string; hang?: string } = {}): string {
  const width = opts.width ?? HELP_WIDTH;
  const first = opts.indent ?? '';
  const rest = opts.hang ?? first;
  const cols = (t: string): number => [...t].length;
  return text
    .split('\n')
    .map((paragraph) => {
      const lines: string[] = [];
      let line = first;
      let empty = true;
      for (const word of paragraph.split(' ').filter((w) => w !== '')) {
        if (!empty && cols(line) + 1 + cols(word) > width) {
          lines.push(line);
          line = rest + word;
        } else line += (empty ? '' : ' ') + word;
        empty = false;
      }
      lines.push(line);
      return lines.join('\n');
    })
    .join('\n');
}

/**
 * `<what>; looked in:` and each path on its own line, marked when it does not exist: what a
 * command that found nothing says on stderr (it still exits 0).
 */
export async function lookedIn(what: string, paths: readonly string[]): Promise<string> {
  let text = `${what}; looked in:\n`;
  for (const p of paths) {
    const st = await stat(p).catch((e: NodeJS.ErrnoException) => e);
    text += `  ${escapeForTerminal(p)}${!(st instanceof Error) ? '' : st.code === 'ENAMETOOLONG' ? ' (file name too long)' : ' (does not exist)'}\n`;
  }
  return text;
}

/** Each of `dirs` must be a directory (the command's --root options). */
export async function requireDirs(dirs: readonly string[]): Promise<void> {
  for (const d of dirs) await requireDirectory(d);
}

/** A --limit option: a positive whole number, else `dflt`. */
export function limitOf(v: string | boolean | undefined, usage: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (typeof v !== 'string' || !Number.isInteger(n) || n < 1) throw new UsageError(`--limit expects a positive whole number\n${usage}`);
  return n;
}

let optimizingTier = false;
/** For a process that stays (the search server): SQLite's WASM may tier up, and baselineWasmOnly() does nothing. */
export function keepOptimizingTier(): void {
  optimizingTier = true;
}

/**
 * Keeps SQLite's WASM code on V8's baseline tier (Liftoff) in this process, for a command whose
 * SQLite work is short. By default V8 moves the functions a query runs most to its optimizing tier
 * in background threads within the first tens of milliseconds, and the process then waits for
 * those compilations, at the query's end and again at its exit: measured on 2 cores, a search on a
 * kept index took 305–335 ms that way and 224–234 ms on Liftoff alone, `history` 235–245 against
 * 168–176 ms. Not for long work: a first index build runs for minutes, where the optimized code
 * wins (Liftoff alone: 15% slower). Only on the V8 versions known to have the flag (an unknown
 * flag prints an error).
 */
export function baselineWasmOnly(): void {
  if (optimizingTier) return;
  const major = Number(process.versions.v8.split('.')[0]);
  if (major >= 11 && major <= 13) setFlagsFromString('--liftoff-only');
}
