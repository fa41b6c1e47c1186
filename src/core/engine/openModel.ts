// Opens the session model of a file, choosing the format by content, never by name alone
// (issue 10): a zstd frame or an SQLite store is dsh's, a first record with dsh's header is
// dsh's, anything else is read as xcsh (which shows damaged files as damaged).
import type { SessionFormat } from '../formats/detect';
import { sniffSessionFile } from '../formats/sniff';
import type { ModelOptions, SessionModel } from './model';
import { DshModel } from './dsh/dshModel';
import { LazyXcshModel } from './xcsh/lazy/lazyModel';

/**
 * The format of a session file, from its first bytes (formats/sniff.ts decides, for every reader).
 * A file that is not a session at all is read as xcsh, which shows it as damaged; the CLI refuses
 * it first (sniffSessionFile).
 */
export async function detectFileFormat(path: string): Promise<SessionFormat> {
  const sniff = await sniffSessionFile(path);
  return sniff.kind === 'session' ? sniff.format : 'xcsh';
}

/** The model of a session file: one per format (an xcsh file: a compact index, bodies on disk). */
export async function openSessionModel(path: string, opts: ModelOptions = {}): Promise<SessionModel> {
  if ((await detectFileFormat(path)) === 'dsh') return DshModel.open(path, opts);
  return LazyXcshModel.open(path, opts);
}
