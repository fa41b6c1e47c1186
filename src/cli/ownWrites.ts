// What the CLI itself last wrote, kept between runs (issue 14 §6).
//
// The live guard's time rule reads "modified in the last few seconds" as "an agent may be
// writing it". Right after `session-loom title`, the file is fresh because WE wrote it, and the
// next command (a relabel a second later) must not be refused for it. The extension keeps the
// identity of its own last write in memory; a CLI run ends, so it keeps the same identity in a
// small file in its cache folder: per real path, the device, inode, size and mtime our write left.
// While the file still has exactly those, nobody has written it since, and the time rule is
// waived (breadcrumbs and open writers still count). Anything else — an agent's append, a copy
// over it, a touch — changes one of them, and the rule applies again.
//
// Best effort both ways: a record that cannot be read or written only means the time rule
// applies as if there were none. Two CLI runs writing at once may lose one record (last rename
// wins): again, only a refusal that --force overrides.
import * as fsp from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../core/store/privateDir';

export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

interface OwnWrite extends FileIdentity {
  path: string;
}

/** Enough for any interactive run of commands; the oldest records go first. */
const MAX_RECORDS = 64;
/** A record file larger than this is not ours (or is damaged): ignored. */
const MAX_RECORD_BYTES = 64 * 1024;

/** `$XDG_CACHE_HOME/session-loom` (Linux and others), `~/Library/Caches/…` (macOS), `%LOCALAPPDATA%\…` (Windows). */
export function cliCacheDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'session-loom', 'Cache');
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', 'session-loom');
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'session-loom');
}

export function ownWritesFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(cliCacheDir(env), 'own-writes.json');
}

function isRecord(x: unknown): x is OwnWrite {
  if (!x || typeof x !== 'object') return false;
  const r = x as Record<string, unknown>;
  return typeof r.path === 'string' && ['dev', 'ino', 'size', 'mtimeMs'].every((k) => typeof r[k] === 'number');
}

async function readRecords(file: string): Promise<OwnWrite[]> {
  try {
    const st = await fsp.stat(file);
    if (!st.isFile() || st.size > MAX_RECORD_BYTES) return [];
    const parsed: unknown = JSON.parse(await fsp.readFile(file, 'utf8'));
    const writes = (parsed as { writes?: unknown })?.writes;
    return Array.isArray(writes) ? writes.filter(isRecord) : [];
  } catch {
    return [];
  }
}

/** Whether `realPath` is exactly as the CLI's last write to it left it. */
export async function isOwnWrite(realPath: string, now: FileIdentity, file: string = ownWritesFile()): Promise<boolean> {
  const r = (await readRecords(file)).find((w) => w.path === realPath);
  return r !== undefined && r.dev === now.dev && r.ino === now.ino && r.size === now.size && r.mtimeMs === now.mtimeMs;
}

/** Remembers the identity `realPath` has now, after a write of ours. Never throws. */
export async function noteOwnWrite(realPath: string, file: string = ownWritesFile()): Promise<void> {
  try {
    const st = await fsp.stat(realPath);
    const mine: OwnWrite = { path: realPath, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
    const writes = [mine, ...(await readRecords(file)).filter((w) => w.path !== realPath)].slice(0, MAX_RECORDS);
    // Private whatever the umask (issue 22 §7): the folder 0700, made level by level (privateDir.ts).
    await makePrivateDir(dirname(file));
    // a temp and a rename: a reader never sees half a record file
    const tmp = `${file}.${process.pid}.tmp`;
    await fsp.writeFile(tmp, JSON.stringify({ version: 1, writes }) + '\n', { mode: PRIVATE_FILE_MODE });
    await fsp.chmod(tmp, PRIVATE_FILE_MODE); // (a leftover temp of a killed run keeps its mode through writeFile)
    await fsp.rename(tmp, file).catch(async (e: unknown) => {
      await fsp.unlink(tmp).catch(() => undefined);
      throw e;
    });
  } catch {
    // best effort (see the top of the file)
  }
}
