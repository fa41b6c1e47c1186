// A CLI command run in-process (the unit tests of the commands): its exit code and what it wrote
// to stdout and stderr. An error the command throws (a usage error, a refusal) is thrown as it is,
// for the test to check its type and sentence.
import type { Io } from '../../src/cli/util';

export type Command = (argv: string[], io: Io) => Promise<number>;

export async function runCommand(cmd: Command, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await cmd(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}
