// Which other processes hold a file open for writing (Linux, through /proc).
//
// Why (Part B §9): the agent keeps its session file open with O_APPEND. A rewrite replaces the
// file by rename, and everything the agent appends afterwards goes to the orphaned inode — lost,
// however carefully the rewrite itself copied. No heuristic (mtime, breadcrumbs) can see a quiet
// agent that is about to write; /proc can. Elsewhere (macOS, Windows) there is no cheap equivalent,
// and the scan reports nothing: the other guards remain.
//
// Bounded and best effort: it never throws, stops at a deadline and an fd budget, and skips
// processes it may not inspect (other users' processes when not root). It stats an fd's target
// only when the link names a file with the same base name (session file names are unique), so
// it never touches unrelated files — a hung network mount elsewhere cannot hang it.
import * as fsp from 'node:fs/promises';
import { basename } from 'node:path';

export interface OpenWriter {
  pid: number;
  fd: number;
  /** /proc/<pid>/comm, when readable. */
  command: string | null;
}

export interface WriterScanLimits {
  /** Stop after this long (ms); what was found so far is returned. Default 2000. */
  deadlineMs?: number;
  /** Stop after looking at this many fds in total. Default 200000. */
  maxFds?: number;
}

const O_ACCMODE = 0o3; // O_RDONLY 0, O_WRONLY 1, O_RDWR 2 (Linux, every architecture)

/** The fd is open for writing: `flags:` in /proc/<pid>/fdinfo/<fd> is octal open(2) flags. */
async function openForWriting(pid: number, fd: string): Promise<boolean> {
  try {
    const info = await fsp.readFile(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    const m = /^flags:\s*([0-7]+)/m.exec(info);
    // unreadable flags: assume it may write (refusing is the safe side)
    return m ? (parseInt(m[1]!, 8) & O_ACCMODE) !== 0 : true;
  } catch {
    return false; // the fd was closed meanwhile
  }
}

/**
 * Processes other than this one holding the file `realPath` (device `dev`, inode `ino`) open for
 * writing. [] where /proc is not available.
 */
export async function processesWritingTo(realPath: string, dev: number, ino: number, limits: WriterScanLimits = {}): Promise<OpenWriter[]> {
  return (await scanWriters(realPath, { dev, ino, uid: -1 }, limits)).writers;
}

export interface WriterScan {
  writers: OpenWriter[];
  /**
   * Why an empty `writers` does not prove that no process holds the file open, or null when it
   * does: no /proc fd links (not Linux), the scan stopped at its deadline or fd budget, or we run
   * as neither root nor the file's owner, so the owner's processes (its agent) are hidden from us.
   * Processes hidden from the owner or root themselves — other users' (who cannot write a file
   * without group/other write bits), non-dumpable ones like ssh-agent — are not counted against
   * it: a coding agent is an ordinary process of the file's owner.
   */
  inconclusive: 'no-proc' | 'cut-short' | 'not-owner' | null;
}

/**
 * processesWritingTo, and whether finding nobody is a fact: the CLI lets a file modified moments
 * ago be written when nobody holds it open (a fresh copy is not a running session, issue 14 §6).
 * `file.uid`: the file's owner (-1: unknown, not judged).
 */
export async function scanWriters(realPath: string, file: { dev: number; ino: number; uid: number }, limits: WriterScanLimits = {}): Promise<WriterScan> {
  const deadline = Date.now() + (limits.deadlineMs ?? 2000);
  let budget = limits.maxFds ?? 200_000;
  const name = basename(realPath);
  let pids: string[];
  try {
    pids = await fsp.readdir('/proc');
  } catch {
    return { writers: [], inconclusive: 'no-proc' };
  }
  // /proc exists elsewhere too (a BSD with procfs) but without fd links: no /proc/self/fd, no scan
  if (!(await fsp.access('/proc/self/fd').then(() => true, () => false))) return { writers: [], inconclusive: 'no-proc' };
  const found: OpenWriter[] = [];
  const me = process.getuid?.() ?? -1;
  let inconclusive: WriterScan['inconclusive'] = file.uid >= 0 && me !== 0 && me !== file.uid ? 'not-owner' : null;
  for (const p of pids) {
    if (!/^\d+$/.test(p)) continue;
    const pid = Number(p);
    if (pid === process.pid) continue;
    if (budget <= 0 || Date.now() > deadline) {
      inconclusive = 'cut-short';
      break;
    }
    let fds: string[];
    try {
      fds = await fsp.readdir(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to inspect
    }
    budget -= fds.length;
    const hits = await Promise.all(
      fds.map(async (fd) => {
        const link = `/proc/${pid}/fd/${fd}`;
        try {
          const target = await fsp.readlink(link);
          // "/path/name" or "/path/name (deleted)"; sockets, pipes and anon inodes are skipped
          if (!target.startsWith('/') || !target.replace(/ \(deleted\)$/, '').endsWith(`/${name}`)) return null;
          const st = await fsp.stat(link);
          if (st.dev !== file.dev || st.ino !== file.ino) return null;
          return (await openForWriting(pid, fd)) ? Number(fd) : null;
        } catch {
          return null;
        }
      }),
    );
    const mine = hits.filter((fd): fd is number => fd !== null);
    if (mine.length === 0) continue;
    const command = await fsp.readFile(`/proc/${pid}/comm`, 'utf8').then(
      (c) => c.trim(),
      () => null,
    );
    for (const fd of mine) found.push({ pid, fd, command });
  }
  return { writers: found, inconclusive };
}
