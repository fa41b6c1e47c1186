// Our temp files next to a session file: `.<name>.<12 hex>.tmp`, in the real file's folder (so
// the rename or link that publishes it never crosses a device). A write killed midway leaves
// one behind; nothing else ever creates that name.
//
// Cleanup: every write to a file first removes ITS stale temps, those untouched for
// STALE_TEMP_AGE_MS (10 minutes). A temp being written is touched with every chunk, so a
// concurrent writer's temp is never that old; where /proc exists, a temp some process still
// holds open for writing is kept whatever its age. `doctor` lists them all (read-only).
import * as fsp from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { Diagnostic } from '../diagnostics';
import { processesWritingTo } from './openWriters';

export const STALE_TEMP_AGE_MS = 10 * 60_000;

/** A fresh temp path for writing `realPath` (the target after symlinks are resolved). */
export function tempPathFor(realPath: string): string {
  return join(dirname(realPath), `.${basename(realPath)}.${randomBytes(6).toString('hex')}.tmp`);
}

function tempNamePattern(realPath: string): RegExp {
  return new RegExp(`^\\.${basename(realPath).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.[0-9a-f]{12}\\.tmp$`);
}

export interface TempFile {
  path: string;
  bytes: number;
  mtimeMs: number;
  /** Untouched for STALE_TEMP_AGE_MS: the next write to the file removes it. */
  stale: boolean;
}

async function realPathOrSelf(path: string): Promise<string> {
  return fsp.realpath(path).catch(() => path);
}

/** Our temp files for `path` (regular files only), oldest first. Never throws. */
export async function findTempFiles(path: string, now: number = Date.now()): Promise<TempFile[]> {
  const real = await realPathOrSelf(path);
  const dir = dirname(real);
  const pattern = tempNamePattern(real);
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  const out: TempFile[] = [];
  for (const name of names) {
    if (!pattern.test(name)) continue;
    const p = join(dir, name);
    const st = await fsp.lstat(p).catch(() => null);
    if (!st?.isFile()) continue;
    out.push({ path: p, bytes: st.size, mtimeMs: st.mtimeMs, stale: now - st.mtimeMs >= STALE_TEMP_AGE_MS });
  }
  return out.sort((a, b) => a.mtimeMs - b.mtimeMs);
}

/** The temp files an interrupted write left for `path` that the next write will remove. */
export async function findStaleTempFiles(path: string, now: number = Date.now()): Promise<TempFile[]> {
  return (await findTempFiles(path, now)).filter((t) => t.stale);
}

/** Removes `path`'s stale temps that no process holds open for writing. Best effort; returns what it removed. */
export async function removeStaleTempFiles(path: string, now: number = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const t of await findStaleTempFiles(path, now)) {
    const st = await fsp.lstat(t.path).catch(() => null);
    if (!st?.isFile() || now - st.mtimeMs < STALE_TEMP_AGE_MS) continue;
    if ((await processesWritingTo(t.path, st.dev, st.ino)).length > 0) continue;
    await fsp.unlink(t.path).then(
      () => removed.push(t.path),
      () => undefined,
    );
  }
  return removed;
}

/** One `leftover-temp-file` diagnostic per temp of ours beside `path` (for `doctor`; never removes anything). */
export async function tempFileDiagnostics(path: string, now: number = Date.now()): Promise<Diagnostic[]> {
  return (await findTempFiles(path, now)).map((t) => ({
    line: 0,
    kind: 'leftover-temp-file' as const,
    message: t.stale
      ? `${t.path} (${t.bytes} bytes, untouched for ${Math.round((now - t.mtimeMs) / 60_000)} min) was left by an interrupted write; the next write to this session removes it`
      : `${t.path} (${t.bytes} bytes) belongs to a write that is running or was interrupted less than ${STALE_TEMP_AGE_MS / 60_000} min ago; the next write after that removes it`,
  }));
}
