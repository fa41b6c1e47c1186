// The `<file>` argument of the commands that read or write one session: it must exist, be a file,
// and be a session (sniffed by content). Apart from util.ts so that the commands without a file
// (search, history, ls) do not load the format sniffers and their schemas.
import { stat } from 'node:fs/promises';
import type { SessionFormat } from '../core/formats/detect';
import { sniffSessionFile } from '../core/formats/sniff';
import { CliError, errorText, parse, unexpectedArgument, UsageError, type Io } from './util';

type Options = Parameters<typeof parse>[1];

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
async function requireFile(path: string | undefined, usage: string): Promise<string> {
  if (!path) throw new UsageError(`missing <file>\n${usage}`);
  const st = await stat(path).catch((e: NodeJS.ErrnoException) => {
    throw new CliError(errorText(e), path, 0);
  });
  if (st.isDirectory()) throw new CliError('is a directory, not a session file', path, 0);
  if (!st.isFile()) throw new CliError('not a regular file', path, 0);
  return path;
}

/** The format of a session file; a file that is no session at all is refused (`<file>: not a session file: <what it is>`). */
async function requireSession(file: string): Promise<SessionFormat> {
  const sniff = await sniffSessionFile(file);
  if (sniff.kind === 'not-session') throw new CliError(`not a session file: ${sniff.reason}`, file, 0);
  return sniff.format;
}
