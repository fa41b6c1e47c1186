// Listing a dsh session without loading it (dsh-format.md §1 "Discovery"): only the header is
// read: the first line of a raw log, the first frame of a zstd log (read in 8 KiB steps until it
// is complete, so a header longer than 8 KiB works too). Trust the header's cwd, not the folder.
//
// The title (the latest `session/title`) costs more, so it is best effort and bounded:
// - raw: the last 256 KiB are searched backwards for a `session/title` line, else the first 64 KiB;
// - zstd: the complete frames within the first 64 KiB are decoded (a frame cannot be found from
//   the end without walking every frame before it) and the last title there wins.
// So a listing reads ~8 KiB per session, plus at most 320 KiB (raw) or 64 KiB (zstd) for titles.
import { open, type FileHandle } from 'node:fs/promises';
import { startsWithZstdMagic } from '../detect';
import { parseDshHeader } from './header';
import { decodeFrame, loadXxh64 } from './zstdDecode';
import { scanZstdFrames } from './zstdFrames';
import type { DshHeader } from './types';

export interface DshListing {
  path: string;
  encoding: 'raw' | 'zstd';
  size: number;
  mtimeMs: number;
  header: DshHeader;
  id: string;
  cwd: string | null;
  createdAt: number;
  parentSession: string | null;
  origin: 'subagent' | null;
  delegationDepth: number;
  agentPreset: string | null;
  /** The latest session/title found within the bounded reads above, or null. */
  title: string | null;
}

export type DshListingResult = { ok: true; listing: DshListing } | { ok: false; path: string; reason: string };

const STEP = 8192;
const TITLE_HEAD = 64 * 1024;
const TITLE_TAIL = 256 * 1024;
const TITLE_PREFIX = Buffer.from('{"type":"session/title"');

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** The title of the last complete `session/title` line in `buf`, searching backwards. */
function lastTitleIn(buf: Buffer): string | null {
  for (let at = buf.lastIndexOf(TITLE_PREFIX); at !== -1; at = at === 0 ? -1 : buf.lastIndexOf(TITLE_PREFIX, at - 1)) {
    if (at > 0 && buf[at - 1] !== 10) continue;
    const end = buf.indexOf(10, at);
    if (end === -1) continue;
    try {
      const title = (JSON.parse(buf.toString('utf8', at, end)) as { data?: { title?: unknown } }).data?.title;
      if (typeof title === 'string') return title;
    } catch {
      // a torn or odd line: keep looking
    }
  }
  return null;
}

async function rawHeaderAndTitle(fh: FileHandle, size: number, wantTitle: boolean): Promise<{ line: string | null; title: string | null }> {
  const chunks: Buffer[] = [];
  let line: string | null = null;
  for (let pos = 0; pos < size; pos += STEP) {
    const chunk = await readAt(fh, pos, Math.min(STEP, size - pos));
    const nl = chunk.indexOf(10);
    if (nl !== -1) {
      chunks.push(chunk.subarray(0, nl));
      line = Buffer.concat(chunks).toString('utf8');
      break;
    }
    chunks.push(chunk);
  }
  if (line === null || !wantTitle) return { line, title: null };
  const tailStart = Math.max(0, size - TITLE_TAIL);
  let title = lastTitleIn(await readAt(fh, tailStart, size - tailStart));
  if (title === null && tailStart > 0) title = lastTitleIn(await readAt(fh, 0, Math.min(TITLE_HEAD, size)));
  return { line, title };
}

async function zstdHeaderAndTitle(fh: FileHandle, size: number, wantTitle: boolean): Promise<{ line: string | null; title: string | null; reason?: string }> {
  const h64 = await loadXxh64();
  let content = await readAt(fh, 0, Math.min(size, wantTitle ? TITLE_HEAD : STEP));
  for (;;) {
    const scan = scanZstdFrames(content);
    const first = scan.frames[0];
    if (!first) {
      if (scan.invalid) return { line: null, title: null, reason: scan.invalid.message };
      if (content.length >= size) return { line: null, title: null, reason: 'the file ends before its first zstd frame is complete' };
      // A header longer than one read: read on until the first frame is complete.
      content = Buffer.concat([content, await readAt(fh, content.length, Math.min(STEP, size - content.length))]);
      continue;
    }
    const decoded = decodeFrame(content, first, h64);
    if (!decoded.ok) return { line: null, title: null, reason: decoded.message };
    const text = Buffer.from(decoded.plaintext);
    if (text.length === 0 || text.indexOf(10) !== text.length - 1) return { line: null, title: null, reason: 'the first zstd frame is not exactly one header line' };
    let title: string | null = null;
    if (wantTitle) {
      for (const frame of scan.frames.slice(1)) {
        const d = decodeFrame(content, frame, h64);
        if (!d.ok) break;
        title = lastTitleIn(Buffer.from(d.plaintext)) ?? title;
      }
    }
    return { line: text.toString('utf8', 0, text.length - 1), title };
  }
}

/** Reads only what a listing needs from one dsh log; never throws for a bad file. */
export async function readDshListing(path: string, opts: { title?: boolean } = {}): Promise<DshListingResult> {
  const wantTitle = opts.title ?? true;
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    return { ok: false, path, reason: (e as Error).message };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { ok: false, path, reason: 'not a regular file' };
    const magic = await readAt(fh, 0, 4);
    const zstd = startsWithZstdMagic(magic);
    const got = zstd ? await zstdHeaderAndTitle(fh, st.size, wantTitle) : await rawHeaderAndTitle(fh, st.size, wantTitle);
    if (got.line === null) return { ok: false, path, reason: ('reason' in got && typeof got.reason === 'string' && got.reason) || 'no complete header line' };
    let value: unknown;
    try {
      value = JSON.parse(got.line);
    } catch {
      return { ok: false, path, reason: 'the header line is not valid JSON' };
    }
    const parsed = parseDshHeader(value);
    if (!parsed.ok) return { ok: false, path, reason: parsed.diagnostic.message };
    const h = parsed.header;
    return {
      ok: true,
      listing: {
        path,
        encoding: zstd ? 'zstd' : 'raw',
        size: st.size,
        mtimeMs: st.mtimeMs,
        header: h,
        id: h.id,
        cwd: typeof h.cwd === 'string' ? h.cwd : null,
        createdAt: h.createdAt,
        parentSession: typeof h.parentSession === 'string' ? h.parentSession : null,
        origin: h.origin === 'subagent' ? 'subagent' : null,
        delegationDepth: h.delegationDepth,
        agentPreset: typeof h.agentPreset === 'string' ? h.agentPreset : null,
        title: got.title,
      },
    };
  } finally {
    await fh.close();
  }
}
