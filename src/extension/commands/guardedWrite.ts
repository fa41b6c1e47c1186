// Part C §3 for every write the view makes: refuse when the file changed since it was read or
// looks live, say why, and offer an explicit "Write anyway" that retries with `force`. The retry
// re-reads the file, so "anyway" never writes content computed from stale bytes: an appended
// entry links to the current leaf, a migration rewrites what is on disk now.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { assertNotLive, assertUnchanged, RewriteRefusedError, type FileFingerprint } from '../../core/store/rewriteGuard';
import { prompts, writeAnyway } from './prompts';

// `action` in these helpers is the command's name, already localized ("Relabel Entry"…).

/** Writes need a trusted workspace (capabilities.untrustedWorkspaces: limited). */
export function requireTrust(action: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  prompts.error(vscode.l10n.t('{0}: writing session files needs a trusted workspace.', action));
  return false;
}

// A file we just wrote ourselves is fresh, not live: a second relabel a moment after the first
// must not ask "write anyway". We remember the fingerprint our last write left; while the file
// still has it, the "modified in the last seconds" rule is waived (breadcrumbs still count).
const ownWrites = new Map<string, string>();

export async function noteOwnWrite(file: string): Promise<void> {
  const st = await fs.stat(file).catch(() => undefined);
  if (st) ownWrites.set(path.resolve(file), `${st.size}:${st.mtimeMs}`);
}

/** Whether the file (size, mtime as last stat'ed) is exactly as our last write left it: fresh, not live. */
export function isOwnWrite(file: string, size: number, mtimeMs: number): boolean {
  return ownWrites.get(path.resolve(file)) === `${size}:${mtimeMs}`;
}

/** `liveWindowMs` for the core's guards: 0 while the file is exactly as our last write left it. */
export async function liveWindowFor(file: string): Promise<number | undefined> {
  const st = await fs.stat(file).catch(() => undefined);
  return st && ownWrites.get(path.resolve(file)) === `${st.size}:${st.mtimeMs}` ? 0 : undefined;
}

/** For writes the core does not guard itself (appends): the same checks as a guarded rewrite. */
export async function assertWritable(file: string, expected: FileFingerprint | null, force: boolean): Promise<void> {
  if (force) return;
  if (expected) {
    const st = await assertUnchanged(file, expected);
    await assertNotLive(file, st.mtimeMs, { liveWindowMs: await liveWindowFor(file) });
  }
}

/**
 * The modal's detail: the core's reason in words ("it was modified 2344 ms ago…", no advice: here
 * the choice is the "Write anyway" button) and the full path.
 */
export function refusalDetail(err: RewriteRefusedError): string {
  const reason = err.detail.replace(/modified (\d+) ms ago/, (_, ms: string) => `modified ${(Number(ms) / 1000).toFixed(1)} s ago`);
  return `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.\n\n${err.path}`;
}

/**
 * Runs `attempt(false)`; on a `changed` refusal or a forceable `live` one (the mtime/breadcrumb
 * guesses) asks (modal) whether to write anyway and then runs `attempt(true)`. Returns undefined
 * when the user declined or the write was refused for good (read-only, dsh, identity, missing,
 * exists, or a process holding the file open for writing — "Write anyway" cannot help there),
 * after saying so.
 */
export async function guardedWrite<T>(file: string, action: string, attempt: (force: boolean) => Promise<T>): Promise<T | undefined> {
  // Every successful write is remembered, so our own fresh write never reads as "live".
  const write = async (force: boolean): Promise<T> => {
    const result = await attempt(force);
    await noteOwnWrite(file);
    return result;
  };
  try {
    return await write(false);
  } catch (err) {
    if (!(err instanceof RewriteRefusedError)) throw err;
    const name = path.basename(file);
    if (err.forceable || err.reason === 'changed') {
      const message =
        err.reason === 'live'
          ? vscode.l10n.t('{0}: {1} looks live: it was modified moments ago or a running agent has it open. Writing now may lose what the agent appends.', action, name)
          : vscode.l10n.t('{0}: {1} changed since it was read. Writing anyway re-reads it first.', action, name);
      const anyway = writeAnyway();
      const choice = await prompts.confirm(message, refusalDetail(err), anyway);
      if (choice !== anyway) return undefined;
      try {
        return await write(true);
      } catch (again) {
        if (!(again instanceof RewriteRefusedError)) throw again;
        prompts.error(vscode.l10n.t('{0} refused: {1}', action, again.message));
        return undefined;
      }
    }
    prompts.error(vscode.l10n.t('{0} refused: {1}', action, err.message));
    return undefined;
  }
}
