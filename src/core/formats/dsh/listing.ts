// Listing a dsh session without loading it (dsh-format.md §1 "Discovery"): only the header is
// read: the first line of a raw log, the first frame of a zstd log (read in 8 KiB steps until it
// is complete, so a header longer than 8 KiB works too). Trust the header's cwd, not the folder.
//
// The title (the latest `session/title`) costs more, so it is best effort and bounded:
// - raw: the last 256 KiB are searched backwards for a `session/title` line, else the first 64 KiB;
// - zstd: the complete frames within the first 64 KiB are decoded (a frame cannot be found from
//   the end without walking every frame before it) and the last title there wins.
// So a listing reads ~8 KiB per session, plus at most 320 KiB (raw) or 64 KiB (zstd) for titles.
// Decoding is capped (zstdDecode.ts): the header frame at 1 MiB of content, each title frame at
// 4 MiB; a frame claiming or giving more is refused, never allocated (a decompression bomb).
import { open, type FileHandle } from 'node:fs/promises';
import { startsWithZstdMagic } from '../detect';
import { parseDshHeader } from './header';
import { decodeFrame, loadXxh64, MAX_HEADER_FRAME_CONTENT } from './zstdDecode';
import { scanZstdFrames } from './zstdFrames';
import type { DshHeader } from './types';
import { readRange } from '../../store/fileHead';

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

/** `length` bytes at `position` (fewer at the end of the file). */
const readAt = (fh: FileHandle, position: number, length: number): Promise<Buffer> => readRange(fh, position, position + length);

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

/** Whether `head` starts (after an optional BOM and whitespace) with `{`, as a JSON record does. */
function startsLikeJson(head: Uint8Array): boolean {
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x09 || head[i] === 0x0d || head[i] === 0x0a)) i++;
  return i >= head.length || head[i] === 0x7b;
}

async function rawHeaderAndTitle(fh: FileHandle, size: number, wantTitle: boolean): Promise<{ line: string | null; title: string | null; reason?: string }> {
  const chunks: Buffer[] = [];
  let line: string | null = null;
  let held = 0;
  for (let pos = 0; pos < size; pos += STEP) {
    const chunk = await readAt(fh, pos, Math.min(STEP, size - pos));
    if (pos === 0 && !startsLikeJson(chunk)) return { line: null, title: null, reason: 'the first line is not JSON (it does not start with "{"): no session header' };
    const nl = chunk.indexOf(10);
    const part = nl === -1 ? chunk : chunk.subarray(0, nl);
    // JSON text never holds a NUL byte: a NUL-filled file (a sparse or zeroed tail) is junk.
    if (part.indexOf(0) !== -1) return { line: null, title: null, reason: `the first line holds a NUL byte (within its first ${pos + part.length} bytes): not JSON, no session header` };
    held += part.length;
    if (held > MAX_HEADER_FRAME_CONTENT) return { line: null, title: null, reason: `the first line is longer than ${MAX_HEADER_FRAME_CONTENT} bytes: no session header is that long` };
    chunks.push(part);
    if (nl !== -1) {
      line = Buffer.concat(chunks).toString('utf8');
      break;
    }
  }
  if (line === null || !wantTitle) return { line, title: null };
  const tailStart = Math.max(0, size - TITLE_TAIL);
  let title = lastTitleIn(await readAt(fh, tailStart, size - tailStart));
  if (title === null && tailStart > 0) title = lastTitleIn(await readAt(fh, 0, Math.min(TITLE_HEAD, size)));
  return { line, title };
}

/**
 * The most of a file read to find its header frame complete: the header line is capped at
 * MAX_HEADER_FRAME_CONTENT decoded, and zstd never stores a block bigger than its content (a
 * block that does not compress is stored raw), so a header frame is at most that plus its block
 * headers and a few bytes of frame header.
 */
const HEADER_FRAME_BYTES = MAX_HEADER_FRAME_CONTENT + 1024;
/** Each title frame of a listing is decoded under this cap (titles are best effort). */
const TITLE_FRAME_CONTENT = 4 * 1024 * 1024;

async function zstdHeaderAndTitle(fh: FileHandle, size: number, wantTitle: boolean): Promise<{ line: string | null; title: string | null; reason?: string }> {
  const h64 = await loadXxh64();
  let content = await readAt(fh, 0, Math.min(size, wantTitle ? TITLE_HEAD : STEP));
  for (;;) {
    const scan = scanZstdFrames(content);
    const first = scan.frames[0];
    if (!first) {
      if (scan.invalid) return { line: null, title: null, reason: scan.invalid.message };
      if (content.length >= size) return { line: null, title: null, reason: 'the file ends before its first zstd frame is complete' };
      if (content.length >= HEADER_FRAME_BYTES) {
        return { line: null, title: null, reason: `the first zstd frame is not complete within ${HEADER_FRAME_BYTES} bytes: no header frame is that long (the header line alone is at most ${MAX_HEADER_FRAME_CONTENT} bytes)` };
      }
      // A header longer than one read: read on (doubling) until the first frame is complete.
      const more = Math.min(Math.max(STEP, content.length), size - content.length, HEADER_FRAME_BYTES - content.length);
      content = Buffer.concat([content, await readAt(fh, content.length, more)]);
      continue;
    }
    const decoded = decodeFrame(content, first, h64, MAX_HEADER_FRAME_CONTENT);
    if (!decoded.ok) return { line: null, title: null, reason: decoded.message };
    const text = Buffer.from(decoded.plaintext);
    if (text.length === 0 || text.indexOf(10) !== text.length - 1) return { line: null, title: null, reason: 'the first zstd frame is not exactly one header line' };
    let title: string | null = null;
    if (wantTitle) {
      for (const frame of scan.frames.slice(1)) {
        const d = decodeFrame(content, frame, h64, TITLE_FRAME_CONTENT);
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
