// Opens the session model of a file, choosing the format by content, never by name alone
// (issue 10): a zstd frame or an SQLite store is dsh's, a first record with dsh's header is
// dsh's, anything else is read as xcsh (which shows damaged files as damaged).
import type { SessionFormat } from '../formats/detect';
import { sniffSessionFile } from '../formats/sniff';
import type { ModelOptions, SessionModel } from './model';
import { DshModel } from './dsh/dshModel';
import { XcshModel } from './xcsh/xcshModel';
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

/**
 * An xcsh file in the lazy model's scope (a v3 header, every entry with a string id — see
 * src/core/engine/xcsh/lazy/lazyIndex.ts) is opened lazily: a compact index, bodies on disk.
 * Everything else (v1/v2 files to migrate, damaged or too-new ones) is loaded whole by the eager
 * model, as is any file with `eager: true`.
 */
export async function openSessionModel(path: string, opts: ModelOptions = {}): Promise<SessionModel> {
  if ((await detectFileFormat(path)) === 'dsh') return DshModel.open(path, opts);
  if (!opts.eager) {
    const lazy = await LazyXcshModel.tryOpen(path, opts);
    if (lazy) return lazy;
  }
  return XcshModel.open(path, opts);
}
