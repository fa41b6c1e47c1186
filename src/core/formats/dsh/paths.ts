// Where dsh keeps things (dsh-format.md §1): the home, the sessions root, the per-project and
// per-session directory names, and the attachment store. The directory names are lossy (several
// cwds share one): a listing always trusts the header's cwd, never the folder name.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$DSH_HOME` when non-blank, else `~/.dsh` (an explicit configured path comes first, from the caller). */
export function dshHome(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const configured = env.DSH_HOME;
  return configured !== undefined && configured.trim() !== '' ? configured : join(home, '.dsh');
}

/** The default sessions root of the shipped bundle: `<dsh home>/sessions`. */
export function dshSessionsRoot(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return join(dshHome(env, home), 'sessions');
}

/** The file names a session directory may hold (one root uses one encoding; we accept both). */
export const DSH_LOG_NAMES = ['session.jsonl.zstd', 'session.jsonl'] as const;
