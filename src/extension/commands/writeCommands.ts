// The commands that write session files: relabel (append a `label` entry), set title (header-only
// rewrite), migrate to v3 (guarded full rewrite with a backup) and repair into a new file.
// Every one goes through the core's writers and guardedWrite (Part C §1, §3, §7, §8, §9).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { decodeCwd } from '../../core/cwd';
import { idFromFileName } from '../../core/discovery';
import { generateEntryId } from '../../core/ids';
import { readJsonlPrefix } from '../../core/jsonl';
import { loadSessionFile, type LoadedSession } from '../../core/load';
import { headerVersion, migrateSession } from '../../core/migrate';
import { appendEntries, rewriteHeaderLine, rewriteSessionFile, RewriteRefusedError, writeNewSessionFile } from '../../core/rewrite';
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from '../../core/schemas';
import { applyTitle, sanitizeTitle } from '../../core/title';
import { buildTreeIndex } from '../../core/tree';
import { entryPreview, roleOf } from '../../core/treeView';
import type { SessionsTreeProvider } from '../sessions/sessionsTreeProvider';
import { assertWritable, guardedWrite, liveWindowFor, noteOwnWrite, requireTrust } from './guardedWrite';
import { prompts } from './prompts';
import { revealAndSelect } from './viewCommands';
import { targetEntry, targetFiles } from './targets';

function readOnly(action: string, file: string, loaded: LoadedSession): boolean {
  if (!loaded.readOnlyReason) return false;
  prompts.error(`${action}: ${path.basename(file)} is read-only (${loaded.readOnlyReason}).${loaded.header ? '' : ' Use "Repair into New File…".'}`);
  return true;
}

/** The one session file a write command acts on, in a trusted workspace (else says why and gives undefined). */
function oneSessionToWrite(provider: SessionsTreeProvider, arg: unknown, action: string): string | undefined {
  const file = targetFiles(provider, arg, undefined)[0];
  if (!file) return void prompts.error(`${action}: select a session in the Sessions view.`);
  return requireTrust(action) ? file : undefined;
}

// ---------- relabel ----------

/** Appends one `label` entry (Part A taxonomy: `label` absent clears). Returns the entry, if written. */
export async function relabelEntry(provider: SessionsTreeProvider, arg?: unknown, second?: unknown): Promise<SessionEntry | undefined> {
  const action = 'Relabel Entry';
  const target = targetEntry(provider, arg, second);
  if (!target) return void prompts.error(`${action}: select an entry in the Sessions view.`);
  if (!requireTrust(action)) return undefined;
  const { file, entryId } = target;
  const first = await loadSessionFile(file);
  if (readOnly(action, file, first)) return undefined;
  const index = buildTreeIndex(first.entries);
  if (!index.has(entryId)) return void prompts.error(`${action}: no entry ${entryId} in ${path.basename(file)}.`);
  const current = index.labels.get(entryId) ?? '';
  // Name the entry the way the tree does (role or type, then its text), not only by its id.
  const target0 = index.get(entryId)!;
  const raw = await prompts.input({
    title: `Label of ${roleOf(target0) ?? target0.type} entry ${entryId}`,
    value: current,
    prompt: `“${entryPreview(target0, 80)}” — an empty label clears the label.`,
    valueSelection: [0, current.length],
  });
  if (raw === undefined) return undefined;
  const label = sanitizeTitle(raw) ?? '';
  if (label === current) return undefined;

  const written = await guardedWrite(file, action, async (force) => {
    const loaded = force ? await loadSessionFile(file) : first;
    await assertWritable(file, loaded.stat, force);
    const idx = force ? buildTreeIndex(loaded.entries) : index;
    const entry: SessionEntry = {
      type: 'label',
      id: generateEntryId(new Set(idx.byId.keys())),
      parentId: idx.defaultLeafId,
      timestamp: new Date().toISOString(),
      targetId: entryId,
      ...(label !== '' ? { label } : {}),
    } as SessionEntry;
    await appendEntries(file, [entry], { readOnlyReason: loaded.readOnlyReason });
    return entry;
  });
  if (written) await provider.fileChanged(file);
  return written;
}

// ---------- set title ----------

/** The header exactly as stored (not migrated in memory), line 1 or line 2 after a title line. */
async function storedHeader(file: string): Promise<SessionHeader | undefined> {
  const prefix = await readJsonlPrefix(file, 1 << 20);
  const h = prefix.records[0]?.value;
  return h && h.type === 'session' && typeof h.id === 'string' ? (h as SessionHeader) : undefined;
}

export async function setSessionTitle(provider: SessionsTreeProvider, arg?: unknown): Promise<string | undefined> {
  const action = 'Set Session Title';
  const file = oneSessionToWrite(provider, arg, action);
  if (!file) return undefined;
  const loaded = await loadSessionFile(file);
  if (readOnly(action, file, loaded)) return undefined;
  const raw = await prompts.input({
    title: `Title of ${path.basename(file)}`,
    value: loaded.header?.title ?? '',
    prompt: 'Control characters become spaces; an empty title is refused.',
    validateInput: (v) => (sanitizeTitle(v) === null ? 'The title is empty.' : undefined),
  });
  if (raw === undefined) return undefined;
  const title = sanitizeTitle(raw);
  if (title === null) return void prompts.error(`${action}: the title is empty.`);

  const done = await guardedWrite(file, action, async (force) => {
    const stored = await storedHeader(file);
    if (!stored) throw new RewriteRefusedError('read-only', file, 'no valid session header');
    const next = applyTitle(stored, title, 'user');
    if (!next) return title;
    await rewriteHeaderLine(file, next, { expected: loaded.stat ?? { size: -1, mtimeMs: -1 }, force, liveWindowMs: await liveWindowFor(file) });
    return title;
  });
  if (done !== undefined) await provider.fileChanged(file);
  return done;
}

// ---------- migrate ----------

export interface MigrateOutcome {
  file: string;
  backupPath: string | null;
}

function migrationLine(file: string, loaded: LoadedSession): string {
  const r = loaded.migration;
  const parts = [`v${r.fromVersion} → v${r.toVersion}`, `${r.entriesTouched} of ${loaded.entries.length} entries touched`, `${r.idsAssigned} ids assigned`];
  if (r.compactionsMigrated) parts.push(`${r.compactionsMigrated} compactions relinked`);
  if (r.rolesRewritten) parts.push(`${r.rolesRewritten} hookMessage roles → custom`);
  if (r.unresolvedCompactions.length) parts.push(`${r.unresolvedCompactions.length} compactions left unresolved`);
  const unreadable = loaded.diagnostics.filter((d) => d.kind === 'invalid-json' || d.kind === 'not-an-object').length;
  if (unreadable) parts.push(`${unreadable} unreadable lines kept verbatim`);
  return `• ${path.basename(file)}: ${parts.join(', ')}`;
}

/** Migrates one or more sessions to v3 after a dry-run summary and a confirmation. */
export async function migrateSessions(provider: SessionsTreeProvider, arg?: unknown, selection?: unknown): Promise<MigrateOutcome[]> {
  const action = 'Migrate to v3';
  const files = targetFiles(provider, arg, selection);
  if (files.length === 0) return void prompts.error(`${action}: select one or more sessions in the Sessions view.`), [];
  if (!requireTrust(action)) return [];
  const plans: { file: string; loaded: LoadedSession }[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    const loaded = await loadSessionFile(file);
    if (loaded.readOnlyReason) skipped.push(`• ${path.basename(file)}: read-only (${loaded.readOnlyReason})`);
    else if (loaded.originalVersion >= CURRENT_SESSION_VERSION) skipped.push(`• ${path.basename(file)}: already v${loaded.originalVersion}`);
    else plans.push({ file, loaded });
  }
  if (plans.length === 0) {
    prompts.info(`${action}: nothing to migrate.\n${skipped.join('\n')}`);
    return [];
  }
  const detail = [
    ...plans.map((p) => migrationLine(p.file, p.loaded)),
    '',
    'Each original is copied to <file>.bak-<time> first; the file is then rewritten atomically. Unchanged records keep their bytes.',
    ...(skipped.length ? ['', 'Skipped:', ...skipped] : []),
  ].join('\n');
  const go = await prompts.confirm(`Migrate ${plans.length === 1 ? path.basename(plans[0]!.file) : `${plans.length} sessions`} to v3?`, detail, 'Migrate');
  if (go !== 'Migrate') return [];

  const outcomes: MigrateOutcome[] = [];
  const notMigrated: string[] = [];
  for (const { file, loaded } of plans) {
    const result = await guardedWrite(file, action, async (force) => {
      const fresh = force ? await loadSessionFile(file) : loaded;
      if (fresh.readOnlyReason) throw new RewriteRefusedError('read-only', file, fresh.readOnlyReason);
      return rewriteSessionFile(file, fresh, { expected: fresh.stat ?? { size: -1, mtimeMs: -1 }, backup: true, force, liveWindowMs: await liveWindowFor(file) });
    });
    if (result) outcomes.push({ file, backupPath: result.backupPath });
    else notMigrated.push(path.basename(file));
    await provider.fileChanged(file);
  }
  if (outcomes.length > 0) {
    const of = notMigrated.length > 0 ? ` of ${plans.length}` : '';
    const backups = outcomes.map((o) => o.backupPath && path.basename(o.backupPath)).filter(Boolean);
    const left = notMigrated.length > 0 ? ` Not migrated (left unchanged): ${notMigrated.join(', ')}.` : '';
    prompts.info(`Migrated ${outcomes.length}${of} session${plans.length === 1 ? '' : 's'} to v3. Backup${backups.length === 1 ? '' : 's'} next to ${outcomes.length === 1 ? 'it' : 'them'}: ${backups.join(', ')}.${left}`);
  }
  return outcomes;
}

// ---------- repair into a new file ----------

/** `<name>.repaired.jsonl`, or `<name>.repaired-N.jsonl` when taken. */
async function repairTarget(file: string, n: number): Promise<string> {
  const base = file.replace(/\.jsonl$/, '');
  return n === 1 ? `${base}.repaired.jsonl` : `${base}.repaired-${n}.jsonl`;
}

function firstTimestamp(entries: readonly SessionEntry[]): string | undefined {
  for (const e of entries) if (typeof e.timestamp === 'string') return e.timestamp;
  return undefined;
}

/** Header and entries for the new file: the loaded ones, or a header rebuilt from the file name. */
async function recoveredSession(file: string, loaded: LoadedSession): Promise<{ header: SessionHeader; entries: SessionEntry[]; notes: string[] }> {
  const notes: string[] = [];
  if (loaded.header) return { header: loaded.header, entries: loaded.entries, notes };
  const st = await fs.stat(file);
  const projectDir = path.basename(path.dirname(file));
  const rawId = idFromFileName(file);
  const id = /^[0-9a-f-]{8,}$/i.test(rawId) ? rawId : `r${generateEntryId(new Set())}${generateEntryId(new Set())}`.slice(0, 13);
  const allHaveIds = loaded.entries.every((e) => typeof e.id === 'string');
  const base: SessionHeader = {
    type: 'session',
    version: allHaveIds ? CURRENT_SESSION_VERSION : 1,
    id,
    timestamp: firstTimestamp(loaded.entries) ?? new Date(st.mtimeMs).toISOString(),
    ...(decodeCwd(projectDir).path ? { cwd: decodeCwd(projectDir).path! } : {}),
  } as SessionHeader;
  notes.push(`header rebuilt (id ${id}${base.cwd ? `, cwd ${base.cwd}` : ''})`);
  if (headerVersion(base) < CURRENT_SESSION_VERSION) {
    const m = migrateSession(base, loaded.entries);
    notes.push(`migrated v1 → v3 (${m.report.idsAssigned} ids assigned)`);
    return { header: m.header, entries: m.entries, notes };
  }
  return { header: base, entries: loaded.entries, notes };
}

const OPEN_SESSION = 'Open Session';

/** Selects a session's row in the Sessions view (best effort: the view may be hidden). */
async function revealSession(provider: SessionsTreeProvider, file: string): Promise<void> {
  const find = () => provider.findSession(file);
  await revealAndSelect(provider, await find(), find, false).catch(() => undefined);
}

/** Writes the recoverable part of a damaged session to a new file next to it; the original is untouched. */
export async function repairIntoNewFile(provider: SessionsTreeProvider, arg?: unknown): Promise<string | undefined> {
  const action = 'Repair into New File';
  const file = oneSessionToWrite(provider, arg, action);
  if (!file) return undefined;
  const loaded = await loadSessionFile(file);
  if (loaded.header && loaded.originalVersion > CURRENT_SESSION_VERSION) {
    return void prompts.error(`${action}: ${path.basename(file)} is version ${loaded.originalVersion}, newer than ${CURRENT_SESSION_VERSION}; it is never rewritten.`);
  }
  const { header, entries, notes } = await recoveredSession(file, loaded);
  const count = (kind: string) => loaded.diagnostics.filter((d) => d.kind === kind);
  const dropped = [...count('invalid-json'), ...count('not-an-object'), ...count('invalid-entry')];
  if (dropped.length) notes.push(`${dropped.length} unreadable line${dropped.length === 1 ? '' : 's'} dropped (line ${dropped.map((d) => d.line).join(', ')})`);
  if (count('glued-records').length) notes.push(`${count('glued-records').length} glued records split`);
  if (count('torn-tail').length) notes.push('torn last line dropped');
  const detail = [`${entries.length} entries recovered.`, ...notes.map((n) => `• ${n}`), '', `The original stays untouched: ${file}`].join('\n');
  const go = await prompts.confirm(`Repair ${path.basename(file)} into a new file?`, detail, 'Repair');
  if (go !== 'Repair') return undefined;
  for (let n = 1; n < 100; n++) {
    const target = await repairTarget(file, n);
    try {
      await writeNewSessionFile(target, header, entries);
      // Our own fresh file: not "live" in the view although it was modified a moment ago.
      await noteOwnWrite(target);
      await provider.fileChanged(target);
      await revealSession(provider, target);
      // Not awaited: the notification stays until clicked or dismissed; the command is done.
      void Promise.resolve(prompts.info(`${action}: wrote ${path.basename(target)} (${entries.length} entries) next to the original, which is unchanged.`, OPEN_SESSION)).then((open) =>
        open === OPEN_SESSION ? vscode.commands.executeCommand('sessionLoom.openSession', vscode.Uri.file(target)) : undefined,
      );
      return target;
    } catch (err) {
      if (err instanceof RewriteRefusedError && err.reason === 'exists') continue;
      throw err;
    }
  }
  prompts.error(`${action}: too many repaired copies next to ${path.basename(file)}.`);
  return undefined;
}

export function registerWriteCommands(provider: SessionsTreeProvider): vscode.Disposable {
  const run =
    <A extends unknown[]>(fn: (...a: A) => Promise<unknown>) =>
    async (...a: A) => {
      try {
        return await fn(...a);
      } catch (err) {
        prompts.error(`Session Loom: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      }
    };
  return vscode.Disposable.from(
    vscode.commands.registerCommand('sessionLoom.relabelEntry', run((a?: unknown, b?: unknown) => relabelEntry(provider, a, b))),
    vscode.commands.registerCommand('sessionLoom.setSessionTitle', run((a?: unknown) => setSessionTitle(provider, a))),
    vscode.commands.registerCommand('sessionLoom.migrate', run((a?: unknown, sel?: unknown) => migrateSessions(provider, a, sel))),
    vscode.commands.registerCommand('sessionLoom.repairSession', run((a?: unknown) => repairIntoNewFile(provider, a))),
  );
}
