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
import { constants as fsConstants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { readRange } from './fileHead';
import { writeFileAtomicStream, type AtomicWriteResult, type ByteSink, type StorageFaults } from './atomicWrite';
import type { LoadedSession } from '../formats/xcsh/load';
import { prepareEntryForPersist } from '../formats/xcsh/persist';
import { rewriteSegments } from './rewriteSegments';
import { editedEntry, editedHeader, rangeReader } from './recordRewrite';
import type { BlobStore } from '../formats/xcsh/blobs';
import type { SessionEntry, SessionHeader } from '../formats/xcsh/schemas';
import { assertFingerprint, assertNoOtherWriters, assertNotLive, writeBackup, type FileFingerprint, type GuardOptions } from './rewriteGuard';
import { awaitOldInode, placeLate, settleBeforeRename, watchTail, type TailWatch } from './tailCarry';
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
   * onto the end of the new file (issue 15 §1): none is lost, they follow our bytes, and they
   * keep the order they were written in (issue 22 §4).
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

/** How many times the new file is rewritten again to put late bytes of the old one in order. */
const MAX_ORDER_REPAIRS = 5;

/**
 * The temp + settle + live check + rename of one round; `watch` is on the file being replaced,
 * `afterRename` sees the new file before the directory fsync.
 */
function publish(watch: TailWatch, produce: (write: ByteSink) => Promise<void>, opts: RewriteOptions, afterRename: (renamed: AtomicWriteResult) => Promise<void>): Promise<AtomicWriteResult> {
  const o = watch.original;
  return writeFileAtomicStream(o.realPath, produce, {
    faults: opts.faults,
    beforeRename: async (temp) => {
      await settleBeforeRename(watch, temp);
      // an agent may have opened it while we streamed; the scan takes a moment, so settle after it
      await assertNoOtherWriters(o.path, o.realPath, o.st);
      await settleBeforeRename(watch, temp);
    },
    afterRename,
  });
}

/**
 * The one way an existing session file is replaced (issue 15 §1, §3): a temp next to the real
 * file with its owner and mode, then — immediately before the rename — the original checked
 * again and what was appended to it meanwhile carried over, then the rename. `basedOn` bytes of
 * the original (mtime `mtimeMs`) are what `produce` reads; `mayCarry` is false when `produce`
 * writes past the original's end. Returns the bytes carried over.
 *
 * Late bytes and their order (issue 22 §4). A program that appends by opening the path for each
 * record (pi's appendFileSync) and opened it just before the rename writes that record into the
 * old inode after our last look, while its NEXT record, opened after the rename, goes to the new
 * file. File order decides the default leaf, so the late bytes must come before everything
 * appended to the new file: every write to the old inode comes from an open before the rename,
 * every write to the new file from an open after it, so "old inode first" is the order each
 * writer wrote in. So:
 *   1. right after the rename, and again once the old inode is final (tailCarry.ts
 *      awaitOldInode: no process holds it open any more), its new bytes are appended to the new
 *      file only while that still ends where we left it, and read back there (placeLate);
 *   2. when the new file had grown first, or an append beat ours: the new file is rewritten once
 *      more, the same guarded way, as [our bytes][the late bytes][what was appended to it], and
 *      the same steps follow that rename — up to MAX_ORDER_REPAIRS times (each round's window is
 *      a few microseconds; it converges at once in practice).
 * When a repair is refused (a process now holds the new file open for writing, it was replaced)
 * or the rounds run out, no byte is dropped: the late bytes end up at the end of the file and an
 * error says that records may be out of order — never silently.
 */
async function replaceOriginal(original: OpenOriginal, basedOn: number, mtimeMs: number, mayCarry: boolean, produce: (write: ByteSink) => Promise<void>, opts: RewriteOptions): Promise<number> {
  let watch = await watchTail(original, basedOn, mtimeMs, mayCarry);
  let carried = 0;
  let again: OpenOriginal | null = null; // our handle on a new file we rewrite again
  // per round: the new file's bytes [0, end) are ours in order; late bytes not yet in it, in
  // order; and where one of our appends landed out of order (it is in the file, to be moved)
  let end = 0;
  let pending: Buffer[] = [];
  let misplaced: { bytes: Buffer; at: number } | null = null;
  const pass = async (w: TailWatch, renamed: AtomicWriteResult): Promise<void> => {
    if (misplaced || pending.length > 0) {
      // the round needs a repair already: just collect
      const r = await placeLate(w, renamed, -1);
      if (r.kind === 'not-appended') pending.push(r.bytes);
      return;
    }
    const r = await placeLate(w, renamed, end);
    if (r.kind === 'placed') end = r.end;
    else if (r.kind === 'not-appended') pending.push(r.bytes);
    else if (r.kind === 'out-of-order') misplaced = { bytes: r.bytes, at: r.at };
  };
  const startRound = (w: TailWatch) => async (renamed: AtomicWriteResult) => {
    end = renamed.size;
    pending = [];
    misplaced = null;
    await pass(w, renamed);
  };
  let renamed = await publish(watch, produce, opts, startRound(watch));
  try {
    for (let round = 0; ; round++) {
      const stillOpenBy = await awaitOldInode(watch);
      await pass(watch, renamed);
      carried += watch.copiedTo - watch.basedOn;
      const late = Buffer.concat([...(misplaced ? [(misplaced as { bytes: Buffer }).bytes] : []), ...pending]);
      if (late.length === 0) {
        if (stillOpenBy) throw new Error(`${original.path}: the rewrite is complete, but ${stillOpenBy} still holds the replaced file open; what it writes from now on is not in the new file`);
        return carried;
      }
      const cut = misplaced as { bytes: Buffer; at: number } | null;
      const unplaced = Buffer.concat(pending);
      const target = renamed;
      const outOfOrder = async (why: string): Promise<never> => {
        if (unplaced.length > 0) await appendAtEnd(original.path, target, unplaced);
        throw new Error(
          `${original.path}: ${late.length} bytes another program appended to the old file during the rewrite are at the end of the new file, after bytes appended to the new file meanwhile, so records may be out of the order they were written in (${why}); check the file's last records`,
        );
      };
      if (round >= MAX_ORDER_REPAIRS) return outOfOrder(`still racing after ${MAX_ORDER_REPAIRS} repairs`);
      await again?.fh.close();
      again = null;
      try {
        again = { ...(await openOriginal(target.realPath, 'replace')), path: original.path };
      } catch (e) {
        return outOfOrder(e instanceof RewriteRefusedError ? `${e.reason}: ${e.detail}` : e instanceof Error ? e.message : String(e));
      }
      const next = again;
      if (next.st.ino !== target.ino) return outOfOrder('another program replaced the new file');
      const size = next.st.size;
      const ours = end;
      watch = await watchTail(next, size, next.st.mtimeMs, true);
      try {
        renamed = await publish(
          watch,
          async (write) => {
            await copyRange(next.fh, 0, ours, write);
            await write(late);
            if (!cut) await copyRange(next.fh, ours, size, write);
            else {
              await copyRange(next.fh, ours, cut.at, write);
              await copyRange(next.fh, cut.at + cut.bytes.length, size, write);
            }
          },
          opts,
          startRound(watch),
        );
      } catch (e) {
        return outOfOrder(e instanceof RewriteRefusedError ? `${e.reason}: ${e.detail}` : e instanceof Error ? e.message : String(e));
      }
    }
  } finally {
    await again?.fh.close().catch(() => undefined);
  }
}

/** Appends `bytes` at the end of the file we renamed into place (O_APPEND, fsynced): kept, if not in order. */
async function appendAtEnd(path: string, renamed: AtomicWriteResult, bytes: Buffer): Promise<void> {
  const out = await fsp.open(renamed.realPath, fsConstants.O_WRONLY | fsConstants.O_APPEND);
  try {
    if ((await out.stat()).ino !== renamed.ino) throw new Error(`${path}: ${bytes.length} bytes appended to the old file during the rewrite could not be carried over: another program replaced the new file meanwhile`);
    for (let off = 0; off < bytes.length; ) off += (await out.write(bytes, off, bytes.length - off)).bytesWritten;
    await out.sync();
  } finally {
    await out.close();
  }
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
  // A new session file (a fork, a repair) holds the session's words: the user's alone, whatever the umask.
  let fh: fsp.FileHandle | null = await fsp.open(tmp, 'wx', 0o600);
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
      await fsp.writeFile(path, text, { flag: 'wx', mode: 0o600 });
    }
  } finally {
    await fh?.close().catch(() => undefined);
    await fsp.unlink(tmp).catch(() => undefined);
  }
  return finish(path, null, { copied: 0, edited: 0, reserialised: 0, appended: entryCount, carriedBytes: 0 });
}
