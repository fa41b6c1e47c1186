// Opens the session model of a file, choosing the format by content, never by name alone
// (issue 10): a zstd frame or an SQLite store is dsh's, a first record with dsh's header is
// dsh's, anything else is read as xcsh (which shows damaged files as damaged).
import { open } from 'node:fs/promises';
import { isDshHeader, startsWithSqliteMagic, startsWithZstdMagic, type SessionFormat } from '../formats/detect';
import type { ModelOptions, SessionModel } from './model';
import { DshModel } from './dsh/dshModel';
import { XcshModel } from './xcsh/xcshModel';
import { LazyXcshModel } from './xcsh/lazy/lazyModel';

/** Bytes read to tell the formats apart: a dsh header is small; a longer first line is not dsh's. */
const SNIFF_BYTES = 64 * 1024;

/** The format of a session file, from its first bytes. */
export async function detectFileFormat(path: string): Promise<SessionFormat> {
  const fh = await open(path, 'r');
  let head: Buffer;
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    head = buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  if (startsWithZstdMagic(head) || startsWithSqliteMagic(head)) return 'dsh';
  const nl = head.indexOf(0x0a);
  const first = head.subarray(head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0, nl === -1 ? head.length : nl).toString('utf8');
  try {
    return isDshHeader(JSON.parse(first)) ? 'dsh' : 'xcsh';
  } catch {
    return 'xcsh';
  }
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
