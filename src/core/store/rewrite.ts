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
import { writeFileAtomicStream, type ByteSink } from './fileStorage';
import type { StorageFaults } from './storage';
import type { LoadedSession } from '../formats/xcsh/load';
import { prepareEntryForPersist } from '../formats/xcsh/persist';
import { rewriteSegments } from './rewriteSegments';
import { editedEntry, editedHeader, rangeReader } from './recordRewrite';
import type { BlobStore } from '../formats/xcsh/blobs';
import type { SessionEntry, SessionHeader } from '../formats/xcsh/schemas';
import { CURRENT_SESSION_VERSION } from '../formats/xcsh/schemas';
import { headerVersion } from '../formats/xcsh/migrate';
import { assertNotLive, assertUnchanged, RewriteRefusedError, writeBackup, type FileFingerprint, type GuardOptions } from './rewriteGuard';

export { RewriteRefusedError } from './rewriteGuard';
export type { GuardOptions, RewriteRefusal, FileFingerprint } from './rewriteGuard';

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

async function readRange(fh: fsp.FileHandle, start: number, end: number): Promise<Buffer> {
  const buf = Buffer.alloc(end - start);
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function refuseReadOnly(path: string, reason: string | null): void {
  if (reason) throw new RewriteRefusedError('read-only', path, `${reason} (read-only files are never written; repair into a new file instead)`);
}

async function finish(path: string, backupPath: string | null, counts: Omit<RewriteResult, 'path' | 'backupPath' | 'stat'>): Promise<RewriteResult> {
  const st = await fsp.stat(path);
  return { path, backupPath, ...counts, stat: { size: st.size, mtimeMs: st.mtimeMs } };
}

/**
 * Full atomic rewrite of a loaded session (migration, repair-in-place, entry rewrites).
 * `loaded.changed[i]` says which entries to re-serialise; entries beyond the loaded ones are
 * appended. Refuses (RewriteRefusedError): `read-only` always (force does not override);
 * `changed` always — the loaded byte offsets would no longer be valid, so forcing could corrupt;
 * `live` unless `force`.
 */
export async function rewriteSessionFile(path: string, loaded: LoadedSession, opts: RewriteOptions): Promise<RewriteResult> {
  refuseReadOnly(path, loaded.readOnlyReason);
  if (!loaded.header || !loaded.headerRange) refuseReadOnly(path, 'no session header');
  const st = await assertUnchanged(path, opts.expected);
  if (st.size !== loaded.bytes) {
    throw new RewriteRefusedError('changed', path, `it is ${st.size} bytes but ${loaded.bytes} were loaded; reload it first`);
  }
  await assertNotLive(path, st.mtimeMs, opts);
  const n = loaded.entryStarts.length;
  if (loaded.entries.length < n) throw new Error(`rewriteSessionFile: ${n - loaded.entries.length} loaded entries are missing; entries are never deleted by a rewrite`);

  const now = (opts.now ?? Date.now)();
  const backupPath = opts.backup ? await writeBackup(path, now) : null;
  const counts = { copied: 0, edited: 0, reserialised: 0, appended: 0 };
  const fh = await fsp.open(path, 'r');
  try {
    const hr = loaded.headerRange!;
    const headerBytes = await readRange(fh, hr.start, hr.end);
    const originalHeader: unknown = JSON.parse(headerBytes.toString('utf8'));
    const headerChanged = !sameJson(originalHeader, loaded.header);
    const readRecord = rangeReader(fh); // records come in file order: one read per MB, not per record
    await writeFileAtomicStream(
      path,
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
            await copyRange(fh, seg.start, seg.end, write);
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
      opts.faults,
    );
  } finally {
    await fh.close();
  }
  return finish(path, backupPath, counts);
}

/** Finds the header line in the current file: line 1, or line 2 after an oh-my-pi title line. */
async function locateHeader(fh: fsp.FileHandle, size: number): Promise<{ start: number; end: number; line: number; value: Record<string, unknown> | null }> {
  let lineStart = 0;
  for (let lineNo = 1; lineNo <= 2 && lineStart < size; lineNo++) {
    // read until the end of this line (headers are small, but do not assume a size)
    let end = -1;
    const parts: Buffer[] = [];
    let pos = lineStart;
    while (end === -1 && pos < size) {
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
 * It works on the current bytes, so `force` may override both `live` and `changed`; a file whose
 * current header is missing or newer than v3 is refused as read-only, always.
 */
export async function rewriteHeaderLine(path: string, newHeader: SessionHeader, opts: RewriteOptions): Promise<RewriteResult> {
  if (newHeader.type !== 'session' || typeof newHeader.id !== 'string') throw new Error('rewriteHeaderLine: the new header needs type "session" and a string id');
  let st: FileFingerprint;
  if (opts.force) {
    const s = await fsp.stat(path).catch(() => null);
    if (!s) throw new RewriteRefusedError('missing', path, 'the file does not exist');
    st = { size: s.size, mtimeMs: s.mtimeMs };
  } else st = await assertUnchanged(path, opts.expected);
  await assertNotLive(path, st.mtimeMs, opts);
  const fh = await fsp.open(path, 'r');
  let backupPath: string | null = null;
  try {
    const h = await locateHeader(fh, st.size);
    if (!h.value || h.value.type !== 'session' || typeof h.value.id !== 'string') refuseReadOnly(path, 'damaged: no valid session header');
    const v = headerVersion(h.value);
    if (v > CURRENT_SESSION_VERSION) refuseReadOnly(path, `version ${v} is newer than ${CURRENT_SESSION_VERSION}`);
    // only the fields that differ are edited into the header's own bytes (a refusal writes nothing)
    const header = editedHeader(await readRange(fh, h.start, h.end), newHeader, { path, line: h.line });
    backupPath = opts.backup ? await writeBackup(path, (opts.now ?? Date.now)()) : null;
    await writeFileAtomicStream(
      path,
      async (write) => {
        await copyRange(fh, 0, h.start, write);
        await write(header);
        await copyRange(fh, h.end, st.size, write);
      },
      opts.faults,
    );
  } finally {
    await fh.close();
  }
  return finish(path, backupPath, { copied: 0, edited: 0, reserialised: 0, appended: 0 });
}

export interface AppendOptions {
  /** LoadedSession.readOnlyReason: appends to a read-only session are refused. */
  readOnlyReason: string | null;
  blobs?: BlobStore;
}

/**
 * Appends entries with O_APPEND + fsync; never touches existing bytes. When the file does not
 * end with a newline (a torn tail, or a final record without `\n`), a `\n` is written first —
 * only adding bytes — so the new record can never be glued to the old last line.
 */
export async function appendEntries(path: string, entries: readonly SessionEntry[], opts: AppendOptions): Promise<RewriteResult> {
  refuseReadOnly(path, opts.readOnlyReason);
  const st = await fsp.stat(path).catch(() => null);
  if (!st) throw new RewriteRefusedError('missing', path, 'the file does not exist (create a session with writeNewSessionFile)');
  let text = '';
  for (const e of entries) text += JSON.stringify(await prepareEntryForPersist(e, opts.blobs)) + '\n';
  const fh = await fsp.open(path, 'a');
  try {
    if (st.size > 0) {
      const rf = await fsp.open(path, 'r');
      try {
        const last = await readRange(rf, st.size - 1, st.size);
        if (last[0] !== 0x0a) text = '\n' + text;
      } finally {
        await rf.close();
      }
    }
    await fh.write(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return finish(path, null, { copied: 0, edited: 0, reserialised: 0, appended: entries.length });
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
  const tmp = `${path}.${process.pid}.${Date.now()}.new`;
  let fh: fsp.FileHandle | null = await fsp.open(tmp, 'wx');
  try {
    await fh.write(text);
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
  return finish(path, null, { copied: 0, edited: 0, reserialised: 0, appended: entries.length });
}
