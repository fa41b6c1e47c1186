// Shared CLI plumbing: errors that carry `file:line`, output helpers, option parsing.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { SessionFormat } from '../core/formats/detect';
import { sniffSessionFile } from '../core/formats/sniff';
import { BlobStore } from '../core/formats/xcsh/blobs';
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

/** What parseFileCommand checks besides the options. */
export interface FileCommandSpec {
  /** Printed after the usage by --help. */
  more?: string;
  /**
   * The most positional arguments the command takes (the file included; default 1): one more is a
   * usage error naming it. Infinity leaves the check to the command.
   */
  positionals?: number;
}

/** `unexpected argument "x"` and the usage: an argument the command does not take (exit 2). */
export function unexpectedArgument(arg: string, usage: string): UsageError {
  return new UsageError(`unexpected argument "${escapeForTerminal(arg)}"\n${usage}`);
}

/**
 * The start of every `<file>` subcommand: parse the options, answer --help (null: the usage, and
 * `more` when given, was printed, exit 0), refuse extra arguments, check that the first positional
 * is an existing file, and that it is a session (sniffSessionFile: a binary, an image or JSONL of
 * another tool is refused in one sentence, exit 1). `format` is the session's.
 */
export async function parseFileCommand<O extends Options>(
  argv: string[],
  options: O,
  usage: string,
  io: Io,
  spec: FileCommandSpec = {},
): Promise<{ values: Record<string, string | boolean | undefined>; positionals: string[]; file: string; format: SessionFormat } | null> {
  const { values, positionals } = parse(argv, options, usage);
  if (values.help) {
    io.out(usage + '\n' + (spec.more ? spec.more + '\n' : ''));
    return null;
  }
  const max = spec.positionals ?? 1;
  if (positionals.length > max) throw unexpectedArgument(positionals[max]!, usage);
  const file = await requireFile(positionals[0], usage);
  io.subject = file;
  return { values, positionals, file, format: await requireSession(file) };
}

/** The session file argument must exist and be a file (a missing file is an error, not an empty session). */
export async function requireFile(path: string | undefined, usage: string): Promise<string> {
  if (!path) throw new UsageError(`missing <file>\n${usage}`);
  const st = await stat(path).catch((e: NodeJS.ErrnoException) => {
    throw new CliError(errorText(e), path, 0);
  });
  if (st.isDirectory()) throw new CliError('is a directory, not a session file', path, 0);
  if (!st.isFile()) throw new CliError('not a regular file', path, 0);
  return path;
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

/** The format of a session file; a file that is no session at all is refused (`<file>: not a session file: <what it is>`). */
export async function requireSession(file: string): Promise<SessionFormat> {
  const sniff = await sniffSessionFile(file);
  if (sniff.kind === 'not-session') throw new CliError(`not a session file: ${sniff.reason}`, file, 0);
  return sniff.format;
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

/**
 * The store named by `--blobs <dir>`. Naming a store asks for its blobs to be checked, so each one
 * is read and hashed at load: a corrupted blob is reported with its line, like a missing one.
 */
export function blobStoreOf(dir: string | boolean | undefined): BlobStore | undefined {
  return typeof dir === 'string' && dir.length > 0 ? new BlobStore(dir, { verifyOnCheck: true }) : undefined;
}
