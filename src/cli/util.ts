// Shared CLI plumbing: errors that carry `file:line`, output helpers, option parsing.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { stat } from 'node:fs/promises';
import { BlobStore } from '../core/formats/xcsh/blobs';
import { escapeForTerminal, jsonForTerminal } from './terminalText';

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
}

export const processIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
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

/**
 * The start of every `<file>` subcommand: parse the options, answer --help (null: the usage, and
 * `more` when given, was printed, exit 0), and check that the first positional is an existing file.
 */
export async function parseFileCommand<O extends Options>(
  argv: string[],
  options: O,
  usage: string,
  io: Io,
  more?: string,
): Promise<{ values: Record<string, string | boolean | undefined>; positionals: string[]; file: string } | null> {
  const { values, positionals } = parse(argv, options, usage);
  if (values.help) {
    io.out(usage + '\n' + (more ? more + '\n' : ''));
    return null;
  }
  return { values, positionals, file: await requireFile(positionals[0], usage) };
}

/** The session file argument must exist and be a file (a missing file is an error, not an empty session). */
export async function requireFile(path: string | undefined, usage: string): Promise<string> {
  if (!path) throw new UsageError(`missing <file>\n${usage}`);
  const st = await stat(path).catch(() => null);
  if (!st) throw new CliError('no such file', path, 0);
  if (!st.isFile()) throw new CliError('not a regular file', path, 0);
  return path;
}

/**
 * The store named by `--blobs <dir>`. Naming a store asks for its blobs to be checked, so each one
 * is read and hashed at load: a corrupted blob is reported with its line, like a missing one.
 */
export function blobStoreOf(dir: string | boolean | undefined): BlobStore | undefined {
  return typeof dir === 'string' && dir.length > 0 ? new BlobStore(dir, { verifyOnCheck: true }) : undefined;
}
