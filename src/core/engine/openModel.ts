// Opens the session model of a file, choosing the format by content, never by name alone
// (issue 10): a zstd frame or an SQLite store is dsh's, a first record with dsh's header is
// dsh's, anything else is read as xcsh (which shows damaged files as damaged).
import { open } from 'node:fs/promises';
import { isDshHeader, startsWithSqliteMagic, startsWithZstdMagic, type SessionFormat } from '../formats/detect';
import type { ModelOptions, SessionModel } from './model';
import { DshModel } from './dsh/dshModel';
import { XcshModel } from './xcsh/xcshModel';

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

export async function openSessionModel(path: string, opts: ModelOptions = {}): Promise<SessionModel> {
  return (await detectFileFormat(path)) === 'dsh' ? DshModel.open(path, opts) : XcshModel.open(path, opts);
}
