// Atomic file replacement (Part A "Persistence guarantees"): a temp file in the same directory,
// fsync, rename, directory fsync, keeping the replaced file's owner, mode and extended attributes.
// Every rewrite of a session file goes through writeFileAtomicStream (src/core/store/rewrite.ts).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { dirname } from 'node:path';
import { removeStaleTempFiles, tempPathFor } from './tempFiles';
import { RewriteRefusedError } from './writeRefusal';
import { writeTargetRefusal } from './writeTarget';

/** `fsync-dir`: the best-effort directory fsync after an atomic rename (the new file is already in place). */
export type StorageOp = 'append' | 'write' | 'atomic-temp' | 'rename' | 'fsync' | 'fsync-dir';

/**
 * Fault-injection seam for tests: called before each mutating step; throwing from it makes that
 * step fail exactly as an I/O error would (so atomicity and latching are tested for real).
 */
export interface StorageFaults {
  beforeWrite?(op: StorageOp, path: string): void;
}

/** Best-effort fsync of a directory so a rename survives a power loss (not supported everywhere). */
async function fsyncDir(dir: string, faults: StorageFaults): Promise<void> {
  let fh: fsp.FileHandle | null = null;
  try {
    faults.beforeWrite?.('fsync-dir', dir);
    fh = await fsp.open(dir, 'r');
    await fh.sync();
  } catch {
    // Windows and some file systems refuse to open/fsync directories; the rename itself is done.
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/** Receives the bytes of a file being written, in order. */
export type ByteSink = (bytes: Uint8Array) => Promise<void>;

/** Bytes gathered before one write to a temp file (see writeFileAtomicStream). */
const WRITE_BATCH = 1 << 20;

/** The finished temp file, just before it replaces the target. */
export interface FinishedTemp {
  /** Adds bytes at its end (a rewrite carrying over what was appended to the original meanwhile). */
  append: ByteSink;
  sync(): Promise<void>;
}

export interface AtomicWriteOptions {
  faults?: StorageFaults;
  /**
   * Runs after the temp file is complete and fsynced, immediately before the rename: the last
   * moment to check the original and carry over its new bytes. Throwing aborts the write (the
   * temp is removed, the target untouched). Whatever it appends it must also sync.
   */
  beforeRename?: (temp: FinishedTemp) => Promise<void>;
  /**
   * Runs right after the rename, before the directory is fsynced: the first moment to look at
   * what still reached the old inode. What it throws propagates; the rename stays done.
   */
  afterRename?: (renamed: AtomicWriteResult) => Promise<void>;
}

/** Where an atomic write landed: the real path (symlinks resolved) and the new file's inode. */
export interface AtomicWriteResult {
  realPath: string;
  ino: number;
  /** Its size when it was renamed into place (what we wrote, carried-over bytes included). */
  size: number;
}

/** The path a write must replace: symlinks resolved, so a symlink stays a symlink; as given when it does not exist yet. */
async function replaceTarget(path: string): Promise<{ realPath: string; original: fs.Stats | null }> {
  const realPath = await fsp.realpath(path).catch(() => path);
  const original = await fsp.stat(realPath).catch(() => null);
  if (original) {
    const refusal = writeTargetRefusal(path, original, 'replace');
    if (refusal) throw refusal;
  }
  return { realPath, original };
}

/**
 * Gives the temp the original's owner, group and mode (issue 15 §3). A chown that fails refuses
 * the write: renaming our temp over the file would hand it to us, and its agent (another user)
 * could no longer append to it.
 */
async function copyIdentity(path: string, temp: fsp.FileHandle, original: fs.Stats): Promise<void> {
  const mine = await temp.stat();
  if (mine.uid !== original.uid || mine.gid !== original.gid) {
    try {
      await temp.chown(original.uid, original.gid);
    } catch (e) {
      throw new RewriteRefusedError(
        'identity',
        path,
        `it belongs to uid ${original.uid} gid ${original.gid}, and this process (uid ${mine.uid}) cannot give a rewritten file that owner (${(e as NodeJS.ErrnoException).code ?? String(e)}); run the write as the file's owner`,
      );
    }
  }
  // after the chown, which clears set-id bits
  await temp.chmod(original.mode & 0o7777).catch(() => undefined);
}

// Extended attributes (issue 22 §6). A rename-based rewrite gives the file a new inode, and Node
// has no xattr API (and the VSIX takes no native module), so what the old inode carried is copied
// onto the temp with the system's tools before the rename, and checked:
//   - Linux: `getfattr -d -m - -e hex` lists them (every namespace this process may read) and
//     `setfattr --restore` writes them; the temp's list must then equal the original's. Without
//     getfattr (package `attr`), GNU `cp --attributes-only --preserve=xattr` copies them — it
//     fails loudly when one cannot be set, so its success is the check.
//   - macOS: `/usr/bin/xattr` lists, reads (-px) and writes (-wx) them.
//   - An attribute that cannot be written (a `security.capability` for a non-root user, a file
//     system without user xattrs for the temp…) refuses the rewrite (`identity`), naming it:
//     nothing is written. So does a Linux or macOS system where they cannot even be checked
//     (none of those tools): we will not guess that a file has none.
//   - `security.selinux` is not copied: the new file gets the context policy gives files there,
//     as every editor's save does; setting one needs privileges a user does not have. Attributes
//     this process may not read (`trusted.*` as non-root) it cannot see, and cannot keep.
//   - Windows: no POSIX xattrs; nothing to do.
const XATTR_SKIP = /^security\.selinux=/;

interface ToolRun {
  /** The tool is not installed (ENOENT). */
  missing: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

function runTool(cmd: string, args: string[], input?: string): Promise<ToolRun> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 30_000 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: string | number }) | null;
      if (e && e.code === 'ENOENT') resolve({ missing: true, code: -1, stdout: '', stderr: '' });
      else resolve({ missing: false, code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr: stderr.trim() });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** getfattr's dump lines (`name=0x…`) of a file, minus the skipped ones, sorted; null when getfattr is missing. */
async function xattrDump(file: string): Promise<{ lines: string[]; error: string | null } | null> {
  const r = await runTool('getfattr', ['--absolute-names', '-d', '-m', '-', '-e', 'hex', '--', file]);
  if (r.missing) return null;
  if (r.code !== 0) {
    // a file system without xattr support holds none
    if (/not supported/i.test(r.stderr)) return { lines: [], error: null };
    return { lines: [], error: r.stderr || `getfattr exited with ${r.code}` };
  }
  const lines = r.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('#') && !XATTR_SKIP.test(l));
  return { lines: lines.sort(), error: null };
}

/** A path as getfattr quotes it in `# file:` lines (setfattr --restore reads \ooo escapes). */
function quotePath(p: string): string {
  let out = '';
  for (const b of Buffer.from(p, 'utf8')) out += /[A-Za-z0-9._/+,:@~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, '0')}`;
  return out;
}

/** Copies the original's extended attributes onto the temp, or refuses (see above). */
async function copyXattrs(path: string, from: string, to: string): Promise<void> {
  const refuse = (detail: string): RewriteRefusedError => new RewriteRefusedError('identity', path, `${detail}; a rewrite would drop them, so nothing was written`);
  if (process.platform === 'linux') {
    const dump = await xattrDump(from);
    if (dump === null) {
      const cp = await runTool('cp', ['--attributes-only', '--preserve=xattr', '--', from, to]);
      if (cp.missing || cp.code !== 0) {
        throw refuse(`its extended attributes cannot be checked: getfattr (package "attr") is not installed and "cp --preserve=xattr" ${cp.missing ? 'is not available' : `failed (${cp.stderr})`}`);
      }
      return;
    }
    if (dump.error) throw refuse(`its extended attributes cannot be read (${dump.error})`);
    if (dump.lines.length === 0) return;
    const names = dump.lines.map((l) => l.slice(0, l.indexOf('='))).join(', ');
    const set = await runTool('setfattr', ['--restore=-'], `# file: ${quotePath(to)}\n${dump.lines.join('\n')}\n\n`);
    if (set.missing) throw refuse(`it has extended attributes (${names}) and setfattr is not installed`);
    if (set.code !== 0) throw refuse(`it has extended attributes (${names}) that cannot be given to the rewritten file (${set.stderr || `setfattr exited with ${set.code}`})`);
    const copied = await xattrDump(to);
    if (!copied || copied.error || copied.lines.join('\n') !== dump.lines.join('\n')) throw refuse(`it has extended attributes (${names}) that did not all arrive on the rewritten file`);
    return;
  }
  if (process.platform === 'darwin') {
    const list = await runTool('xattr', [from]);
    if (list.missing || list.code !== 0) throw refuse(`its extended attributes cannot be checked (xattr ${list.missing ? 'is not available' : `failed: ${list.stderr}`})`);
    const names = list.stdout.split('\n').filter((n) => n !== '');
    for (const name of names) {
      const value = await runTool('xattr', ['-px', name, from]);
      const hex = value.stdout.replace(/\s+/g, '');
      const set = value.code === 0 ? await runTool('xattr', ['-wx', name, hex, to]) : value;
      if (set.code !== 0) throw refuse(`it has the extended attribute ${name}, which cannot be given to the rewritten file (${set.stderr})`);
    }
  }
}

/**
 * Temp file next to the real file (so the rename cannot cross devices) with the original's
 * owner, group and mode + fsync + rename + directory fsync. The content is produced piecewise by
 * `produce` (a rewrite streams most bytes straight from the original file). On any failure the
 * temp file is removed and the target is untouched. Refuses (RewriteRefusedError) a target whose
 * identity a rename would break (writeTarget.ts). Stale temps of earlier, killed writes to the
 * same file are removed first (tempFiles.ts).
 */
export async function writeFileAtomicStream(path: string, produce: (write: ByteSink) => Promise<void>, opts: AtomicWriteOptions = {}): Promise<AtomicWriteResult> {
  const faults = opts.faults ?? {};
  const { realPath, original } = await replaceTarget(path);
  await removeStaleTempFiles(realPath);
  const dir = dirname(realPath);
  const tmp = tempPathFor(realPath);
  let fh: fsp.FileHandle | null = null;
  let ino: number;
  let size: number;
  try {
    fh = await fsp.open(tmp, 'wx', 0o600);
    if (original) {
      await copyIdentity(path, fh, original);
      // after the chown, which clears security.capability
      await copyXattrs(path, realPath, tmp);
    }
    const out = fh;
    let written = 0;
    const writeNow = async (buf: Uint8Array): Promise<void> => {
      faults.beforeWrite?.('atomic-temp', tmp);
      let off = 0;
      while (off < buf.length) {
        const { bytesWritten } = await out.write(buf, off, buf.length - off);
        off += bytesWritten;
      }
      written += buf.length;
    };
    // A rewrite emits one small piece per record: gathered into 1 MB writes, a 50 MB migrate
    // costs ~50 system calls instead of one per record (which made it I/O-bound for minutes).
    const pending = Buffer.allocUnsafe(WRITE_BATCH);
    let used = 0;
    const flush = async (): Promise<void> => {
      if (used === 0) return;
      const n = used;
      used = 0;
      await writeNow(pending.subarray(0, n));
    };
    const write: ByteSink = async (buf) => {
      if (used + buf.length > WRITE_BATCH) await flush();
      if (buf.length >= WRITE_BATCH) return writeNow(buf);
      pending.set(buf, used);
      used += buf.length;
    };
    await produce(write);
    await flush();
    faults.beforeWrite?.('fsync', tmp);
    await fh.sync();
    ino = (await fh.stat()).ino;
    faults.beforeWrite?.('rename', path);
    // from here to the rename: nothing but a close, so the window after the last check stays tiny
    await opts.beforeRename?.({ append: writeNow, sync: () => out.sync() });
    size = written;
    await fh.close();
    fh = null;
    await fsp.rename(tmp, realPath);
  } catch (e) {
    await fh?.close().catch(() => undefined);
    await fsp.unlink(tmp).catch(() => undefined);
    throw e;
  }
  const renamed = { realPath, ino, size };
  try {
    await opts.afterRename?.(renamed);
  } finally {
    await fsyncDir(dir, faults);
  }
  return renamed;
}
