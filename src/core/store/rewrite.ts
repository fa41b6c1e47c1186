// Guarded writes to session files (Part C §3, §7): full rewrite, header-only rewrite, append,
// and a new file for "repair". The one rule: never lose a byte we did not mean to change.
//
// A full rewrite re-reads the original (its size+mtime must match what was loaded, so the byte
// offsets in LoadedSession are still valid) and emits, in file order:
//   - unchanged records: their original bytes, copied;
//   - records the migration changed: their original bytes with exactly its edits (recordRewrite.ts);
//     a record that cannot be edited exactly refuses the whole rewrite, naming its line;
//   - records a caller replaced (changed, without edits): re-serialised through prepareEntryForPersist;
//   - everything between records (blank lines, lines we could not parse, a BOM, the oh-my-pi
//     title line, a torn tail): copied verbatim, in place (Part C §7).
// Records that were glued on one line get a newline between them (the rewrite is the repair).
import * as fsp from 'node:fs/promises';
import { readRange } from './fileHead';
import { writeFileAtomicStream, type ByteSink } from './fileStorage';
import type { StorageFaults } from './storage';
import type { LoadedSession } from '../formats/xcsh/load';
import { prepareEntryForPersist } from '../formats/xcsh/persist';
import { rewriteSegments } from './rewriteSegments';
import { editedEntry, editedHeader, rangeReader } from './recordRewrite';
import type { BlobStore } from '../formats/xcsh/blobs';
import type { SessionEntry, SessionHeader } from '../formats/xcsh/schemas';
import { assertFingerprint, assertNoOtherWriters, assertNotLive, writeBackup, type FileFingerprint, type GuardOptions } from './rewriteGuard';
import { carryAfterRename, settleBeforeRename, watchTail } from './tailCarry';
import { tempPathFor } from './tempFiles';
import { headerWriteRefusal, refuseReadOnly, RewriteRefusedError } from './writeRefusal';
import { openOriginal, type OpenOriginal, type WriteKind } from './writeTarget';

export { RewriteRefusedError, headerWriteRefusal } from './writeRefusal';
export type { RewriteRefusal } from './writeRefusal';
export type { GuardOptions, FileFingerprint } from './rewriteGuard';

export interface RewriteOptions extends GuardOptions {
  /** Write `<file>.bak-<timestamp>` (a copy of the original bytes) first. */
  backup?: boolean;
  /** Blob store for image externalisation of re-serialised entries. */
  blobs?: BlobStore;
  /** Test seam: fault injection into the atomic write. */
  faults?: StorageFaults;
}

export interface RewriteResult {
  path: string;
  backupPath: string | null;
  /** Entries written from their original bytes / edited in their original bytes / re-serialised / newly appended. */
  copied: number;
  edited: number;
  reserialised: number;
  appended: number;
  /** The new file's fingerprint (for the next guarded write). */
  stat: FileFingerprint;
  /**
   * Bytes another program appended to the original while it was being rewritten, carried over
   * onto the end of the new file (issue 15 §1): none is lost, but they follow our bytes.
   */
  carriedBytes: number;
}

const NL = Buffer.from('\n');
const COPY_CHUNK = 1 << 20;

/** Streams bytes [start, end) of an open file into `write`. */
async function copyRange(fh: fsp.FileHandle, start: number, end: number, write: ByteSink): Promise<void> {
  let pos = start;
  while (pos < end) {
    const len = Math.min(COPY_CHUNK, end - pos);
    const buf = Buffer.allocUnsafe(len);
    const { bytesRead } = await fh.read(buf, 0, len, pos);
    if (bytesRead === 0) throw new Error(`unexpected end of file at byte ${pos}`);
    await write(buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function finish(path: string, backupPath: string | null, counts: Omit<RewriteResult, 'path' | 'backupPath' | 'stat'>): Promise<RewriteResult> {
  const st = await fsp.stat(path);
  return { path, backupPath, ...counts, stat: { size: st.size, mtimeMs: st.mtimeMs } };
}

/**
 * The one way an existing session file is replaced (issue 15 §1, §3): a temp next to the real
 * file with its owner and mode, then — immediately before the rename — the original checked
 * again and what was appended to it meanwhile carried over, then the rename, then whatever still
 * reached the old inode appended too. `basedOn` bytes of the original (mtime `mtimeMs`) are what
 * `produce` reads; `mayCarry` is false when `produce` writes past the original's end. Returns the
 * bytes carried over.
 */
async function replaceOriginal(original: OpenOriginal, basedOn: number, mtimeMs: number, mayCarry: boolean, produce: (write: ByteSink) => Promise<void>, opts: RewriteOptions): Promise<number> {
  const watch = await watchTail(original, basedOn, mtimeMs, mayCarry);
  const renamed = await writeFileAtomicStream(original.realPath, produce, {
    faults: opts.faults,
    beforeRename: async (temp) => {
      await settleBeforeRename(watch, temp);
      // an agent may have opened it while we streamed; the scan takes a moment, so settle after it
      await assertNoOtherWriters(original.path, original.realPath, original.st);
      await settleBeforeRename(watch, temp);
    },
  });
  await carryAfterRename(watch, renamed);
  return watch.carriedBeforeRename + watch.carriedAfterRename;
}

/**
 * Full atomic rewrite of a loaded session (migration, repair-in-place, entry rewrites).
 * `loaded.changed[i]` says which entries to re-serialise; entries beyond the loaded ones are
 * appended. Refuses (RewriteRefusedError), `force` or not: `read-only` (the loader's reason, or
 * what the header ON DISK says: damaged, dsh, a version other than 1/2/3/absent; a mode without
 * owner-write); `identity` (hard link, owner we cannot keep, not a regular file); `changed` — the
 * loaded byte offsets would no longer be valid, so forcing could corrupt; `live` when another
 * process holds it open for writing. `live` from the mtime/breadcrumb guesses unless `force`.
 */
export async function rewriteSessionFile(path: string, loaded: LoadedSession, opts: RewriteOptions): Promise<RewriteResult> {
  refuseReadOnly(path, loaded.readOnlyReason);
  if (!loaded.header || !loaded.headerRange) refuseReadOnly(path, 'damaged: no session header');
  const n = loaded.entryStarts.length;
  if (loaded.entries.length < n) throw new Error(`rewriteSessionFile: ${n - loaded.entries.length} loaded entries are missing; entries are never deleted by a rewrite`);
  const original = await openOriginal(path, 'replace');
  const fh = original.fh;
  const counts = { copied: 0, edited: 0, reserialised: 0, appended: 0, carriedBytes: 0 };
  let backupPath: string | null = null;
  try {
    const st = { size: original.st.size, mtimeMs: original.st.mtimeMs };
    assertFingerprint(path, opts.expected, st);
    if (st.size !== loaded.bytes) {
      throw new RewriteRefusedError('changed', path, `it is ${st.size} bytes but ${loaded.bytes} were loaded; reload it first`);
    }
    const hr = loaded.headerRange!;
    const headerBytes = await readRange(fh, hr.start, hr.end);
    let originalHeader: unknown = null;
    try {
      originalHeader = JSON.parse(headerBytes.toString('utf8'));
    } catch {
      originalHeader = null;
    }
    // the stored header, not the loader's verdict, decides (a dsh log reads as a v1 header)
    refuseReadOnly(path, headerWriteRefusal(originalHeader));
    await assertNotLive(path, st.mtimeMs, opts);
    await assertNoOtherWriters(path, original.realPath, original.st);

    backupPath = opts.backup ? await writeBackup(original.realPath, (opts.now ?? Date.now)()) : null;
    const headerChanged = !sameJson(originalHeader, loaded.header);
    const readRecord = rangeReader(fh); // records come in file order: one read per MB, not per record
    counts.carriedBytes = await replaceOriginal(
      original,
      st.size,
      st.mtimeMs,
      loaded.entries.length === n,
      async (write) => {
        for (const seg of rewriteSegments(loaded, st.size)) {
          if (seg.kind === 'copy') await copyRange(fh, seg.start, seg.end, write);
          else if (seg.kind === 'newline') await write(NL);
          else if (seg.kind === 'header') {
            if (headerChanged) await write(editedHeader(headerBytes, loaded.header!, { path, line: loaded.headerLine }));
            else await copyRange(fh, seg.start, seg.end, write);
          } else if (loaded.changed?.[seg.index] === true && loaded.entryEdits?.has(seg.index)) {
            await write(editedEntry(await readRecord(seg.start, seg.end), loaded, seg.index));
            counts.edited++;
          } else if (loaded.changed?.[seg.index] === true) {
            await write(Buffer.from(JSON.stringify(await prepareEntryForPersist(loaded.entries[seg.index], opts.blobs)), 'utf8'));
            counts.reserialised++;
          } else {
            // an unchanged record: its own bytes, read through the same 1 MB window
            await write(await readRecord(seg.start, seg.end));
            counts.copied++;
          }
        }
        if (loaded.entries.length > n) {
          if (!loaded.endsWithNewline) await write(NL);
          for (let i = n; i < loaded.entries.length; i++) {
            await write(Buffer.from(JSON.stringify(await prepareEntryForPersist(loaded.entries[i], opts.blobs)) + '\n', 'utf8'));
            counts.appended++;
          }
        }
      },
      opts,
    );
  } finally {
    await fh.close();
  }
  return finish(path, backupPath, counts);
}

/** A header line longer than this is not read (value null: no valid header). */
const HEADER_LINE_CAP = 1 << 20;

/** Finds the header line in the current file: line 1, or line 2 after an oh-my-pi title line. */
async function locateHeader(fh: fsp.FileHandle, size: number): Promise<{ start: number; end: number; line: number; value: Record<string, unknown> | null }> {
  let lineStart = 0;
  for (let lineNo = 1; lineNo <= 2 && lineStart < size; lineNo++) {
    // read until the end of this line (headers are small, but do not assume a size)
    let end = -1;
    const parts: Buffer[] = [];
    let pos = lineStart;
    while (end === -1 && pos < size) {
      if (pos - lineStart > HEADER_LINE_CAP) return { start: 0, end: 0, line: lineNo, value: null };
      const chunk = await readRange(fh, pos, Math.min(size, pos + 65536));
      const nl = chunk.indexOf(0x0a);
      if (nl !== -1) {
        parts.push(chunk.subarray(0, nl));
        end = pos + nl;
      } else {
        parts.push(chunk);
        pos += chunk.length;
        if (chunk.length === 0) break;
      }
    }
    if (end === -1) end = size;
    let bytes = Buffer.concat(parts);
    let start = lineStart;
    if (lineNo === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      bytes = bytes.subarray(3);
      start += 3;
    }
    let textEnd = end;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) {
      bytes = bytes.subarray(0, bytes.length - 1);
      textEnd--;
    }
    let value: Record<string, unknown> | null = null;
    try {
      const v: unknown = JSON.parse(bytes.toString('utf8'));
      if (v && typeof v === 'object' && !Array.isArray(v)) value = v as Record<string, unknown>;
    } catch {
      value = null;
    }
    if (lineNo === 1 && value?.type === 'title') {
      lineStart = end + 1;
      continue;
    }
    return { start, end: textEnd, line: lineNo, value };
  }
  return { start: 0, end: 0, line: 1, value: null };
}

/**
 * Part C §7: replaces ONLY the header line and keeps every other byte unchanged (setSessionName).
 * It works on the current bytes, so `force` may override both `live` (the guesses) and
 * `changed`; refused always: a current header that is missing, a dsh log's, or whose version is
 * not 1/2/3/absent (`read-only`), the rest as for rewriteSessionFile.
 */
export async function rewriteHeaderLine(path: string, newHeader: SessionHeader, opts: RewriteOptions): Promise<RewriteResult> {
  if (newHeader.type !== 'session' || typeof newHeader.id !== 'string') throw new Error('rewriteHeaderLine: the new header needs type "session" and a string id');
  const original = await openOriginal(path, 'replace');
  const fh = original.fh;
  let backupPath: string | null = null;
  let carriedBytes = 0;
  try {
    const st = { size: original.st.size, mtimeMs: original.st.mtimeMs };
    if (!opts.force) assertFingerprint(path, opts.expected, st, true);
    await assertNotLive(path, st.mtimeMs, opts);
    const h = await locateHeader(fh, st.size);
    refuseReadOnly(path, headerWriteRefusal(h.value));
    // `"version": Infinity` would be written as `null`: judge what is about to be written too
    refuseReadOnly(path, headerWriteRefusal(newHeader));
    // only the fields that differ are edited into the header's own bytes (a refusal writes nothing)
    const header = editedHeader(await readRange(fh, h.start, h.end), newHeader, { path, line: h.line });
    await assertNoOtherWriters(path, original.realPath, original.st);
    backupPath = opts.backup ? await writeBackup(original.realPath, (opts.now ?? Date.now)()) : null;
    carriedBytes = await replaceOriginal(
      original,
      st.size,
      st.mtimeMs,
      true,
      async (write) => {
        await copyRange(fh, 0, h.start, write);
        await write(header);
        await copyRange(fh, h.end, st.size, write);
      },
      opts,
    );
  } finally {
    await fh.close();
  }
  return finish(path, backupPath, { copied: 0, edited: 0, reserialised: 0, appended: 0, carriedBytes });
}

/** Opens an existing session file for a write of `kind`, refusing what every writer refuses before it starts. */
async function openSessionToWrite(path: string, kind: WriteKind): Promise<OpenOriginal> {
  const original = await openOriginal(path, kind);
  try {
    refuseReadOnly(path, headerWriteRefusal((await locateHeader(original.fh, original.st.size)).value));
    return original;
  } catch (e) {
    await original.fh.close();
    throw e;
  }
}

/**
 * Throws the RewriteRefusedError a write of `kind` to `path` would meet before it starts —
 * missing, not a regular file, read-only mode, a hard link (rewrites), and from the header as
 * stored: damaged, dsh, an unwritable version — without writing. For commands that should say so
 * before anything else (a dry run, or ahead of their own checks). The live and changed guards
 * are not part of it.
 */
export async function assertSessionWritable(path: string, kind: WriteKind): Promise<void> {
  await (await openSessionToWrite(path, kind)).fh.close();
}

export interface AppendOptions {
  /** LoadedSession.readOnlyReason: appends to a read-only session are refused. */
  readOnlyReason: string | null;
  blobs?: BlobStore;
}

/**
 * Appends entries with O_APPEND + fsync to the real file (through any symlink; an append keeps
 * hard links, owner and mode by nature); never touches existing bytes. Refuses like the rewrites:
 * a read-only mode, and — from the header as stored — a damaged file, a dsh log, a version other
 * than 1/2/3/absent. When the file does not end with a newline (a torn tail, or a final record
 * without `\n`), a `\n` is written first — only adding bytes — so the new record can never be
 * glued to the old last line.
 */
export async function appendEntries(path: string, entries: readonly SessionEntry[], opts: AppendOptions): Promise<RewriteResult> {
  refuseReadOnly(path, opts.readOnlyReason);
  const original = await openSessionToWrite(path, 'append');
  try {
    const size = original.st.size;
    let text = '';
    for (const e of entries) text += JSON.stringify(await prepareEntryForPersist(e, opts.blobs)) + '\n';
    if (size > 0 && (await readRange(original.fh, size - 1, size))[0] !== 0x0a) text = '\n' + text;
    const fh = await fsp.open(original.realPath, 'a');
    try {
      if ((await fh.stat()).ino !== original.st.ino) throw new RewriteRefusedError('changed', path, 'it was replaced while being appended to; reload it first');
      await fh.write(text);
      await fh.sync();
    } finally {
      await fh.close();
    }
  } finally {
    await original.fh.close();
  }
  return finish(path, null, { copied: 0, edited: 0, reserialised: 0, appended: entries.length, carriedBytes: 0 });
}

/**
 * "Repair into a new file": writes header + entries to a path that must not exist. The content
 * is written to a temp file and hard-linked into place (link fails if the target exists, and a
 * reader never sees a half-written file); falls back to O_EXCL where links are unsupported.
 */
export async function writeNewSessionFile(path: string, header: SessionHeader, entries: readonly SessionEntry[], opts: { blobs?: BlobStore } = {}): Promise<RewriteResult> {
  if (await fsp.stat(path).then(() => true, () => false)) throw new RewriteRefusedError('exists', path, 'the file already exists; a repair never overwrites');
  let text = JSON.stringify(header) + '\n';
  for (const e of entries) text += JSON.stringify(await prepareEntryForPersist(e, opts.blobs)) + '\n';
  return writeNewSessionText(path, text, entries.length);
}

/**
 * Writes prepared JSONL text (a header line, then entry lines) to a path that must not exist, as
 * writeNewSessionFile does. For a fork, which copies its source's records byte for byte.
 */
export async function writeNewSessionText(path: string, text: string | Uint8Array, entryCount: number): Promise<RewriteResult> {
  if (await fsp.stat(path).then(() => true, () => false)) throw new RewriteRefusedError('exists', path, 'the file already exists; a new session file never overwrites');
  const tmp = tempPathFor(path);
  let fh: fsp.FileHandle | null = await fsp.open(tmp, 'wx');
  try {
    await (typeof text === 'string' ? fh.write(text) : fh.write(text));
    await fh.sync();
    await fh.close();
    fh = null;
    try {
      await fsp.link(tmp, path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new RewriteRefusedError('exists', path, 'the file already exists; a repair never overwrites');
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw e;
      await fsp.writeFile(path, text, { flag: 'wx' });
    }
  } finally {
    await fh?.close().catch(() => undefined);
    await fsp.unlink(tmp).catch(() => undefined);
  }
  return finish(path, null, { copied: 0, edited: 0, reserialised: 0, appended: entryCount, carriedBytes: 0 });
}
