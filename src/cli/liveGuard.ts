// The CLI's answer to "was this file modified in the last few seconds?" (Part C §3, issue 14 §6).
//
// The time rule is a stand-in for what actually loses data: a process holding the file open for
// writing while a rewrite renames a new file over it (Part B §9). Where that can be seen (Linux,
// /proc), the CLI looks instead of guessing:
// - the file is exactly as the CLI's own last write left it (ownWrites.ts): not live — our own
//   `title` must not trip the `relabel` that follows it;
// - another process has it open for writing: a rewrite is refused for good (the core's fact,
//   assertNoOtherWriters); an append, which cannot orphan anything, is refused as live unless
//   --force, with the pid named;
// - nobody has it open, and the scan can tell (scanWriters): not live — a file copied a second
//   ago is not a running session;
// - the scan cannot tell (no /proc, cut short, another user's file): the time rule stands, and
//   the refusal says why.
// The core still checks breadcrumbs, what changed since the read, and open writers right before
// the rename; nothing here weakens those.
import * as fsp from 'node:fs/promises';
import { assertNoOtherWriters, LIVE_WINDOW_MS } from '../core/store/rewriteGuard';
import { scanWriters, type WriterScan } from '../core/store/openWriters';
import { RewriteRefusedError } from '../core/store/writeRefusal';
import type { WriteKind } from '../core/store/writeTarget';
import { isOwnWrite, noteOwnWrite, ownWritesFile } from './ownWrites';

export interface LiveGuardDeps {
  now?: () => number;
  /** The open-writer scan (a seam for the platforms without /proc). */
  scan?: (realPath: string, file: { dev: number; ino: number; uid: number }) => Promise<WriterScan>;
  /** Where the CLI's own writes are remembered. */
  ownWrites?: string;
}

const WHY_UNSURE: Record<NonNullable<WriterScan['inconclusive']>, string> = {
  'no-proc': 'this system cannot show which processes have a file open',
  'cut-short': 'the check for processes that have it open did not finish',
  'not-owner': "it belongs to another user, whose processes this user cannot inspect",
};

const seconds = (ms: number): string => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;

/**
 * `liveWindowMs` for the core's guards on this write: 0 when the time rule is settled here (our
 * own write, or nobody has the file open), undefined (the core's default) when the file is not
 * recent or `force` is given. Throws RewriteRefusedError `live` when the file is recent and
 * someone has it open, or may have.
 */
export async function cliLiveWindow(path: string, kind: WriteKind, force: boolean, deps: LiveGuardDeps = {}): Promise<number | undefined> {
  if (force) return undefined;
  const realPath = await fsp.realpath(path).catch(() => null);
  const st = realPath ? await fsp.stat(realPath).catch(() => null) : null;
  if (!realPath || !st) return undefined; // the writer names a missing file its own way
  const age = (deps.now ?? Date.now)() - st.mtimeMs;
  if (age >= LIVE_WINDOW_MS) return undefined;
  if (await isOwnWrite(realPath, st, deps.ownWrites ?? ownWritesFile())) return 0;
  const scan = await (deps.scan ?? scanWriters)(realPath, { dev: st.dev, ino: st.ino, uid: st.uid });
  if (scan.writers.length > 0) {
    if (kind === 'replace') await assertNoOtherWriters(path, realPath, st); // throws (not forceable)
    const who = [...new Set(scan.writers.map((w) => `pid ${w.pid}${w.command ? ` (${w.command})` : ''}`))].join(', ');
    throw new RewriteRefusedError('live', path, `${who} has it open for writing and it was modified ${seconds(age)} ago: an agent is writing it`, true);
  }
  if (scan.inconclusive === null) return 0;
  throw new RewriteRefusedError('live', path, `it was modified ${seconds(age)} ago and ${WHY_UNSURE[scan.inconclusive]}, so an agent may be writing it`, true);
}

/** After a successful write: remember it, so the next command does not take it for an agent's. */
export async function rememberOwnWrite(path: string, deps: LiveGuardDeps = {}): Promise<void> {
  const realPath = await fsp.realpath(path).catch(() => null);
  if (realPath) await noteOwnWrite(realPath, deps.ownWrites ?? ownWritesFile());
}
