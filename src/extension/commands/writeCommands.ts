// The commands that write session files: relabel (append a `label` entry), set title (header-only
// rewrite), migrate to v3 (guarded full rewrite with a backup) and repair into a new file.
// Every one goes through the core's writers and guardedWrite (Part C §1, §3, §7, §8, §9).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { diagnosticLines } from '../../core/diagnostics';
import { decodeCwd } from '../../core/formats/xcsh/cwd';
import { idFromFileName } from '../../core/discovery/discovery';
import { readSessionName } from '../../core/sessionName';
import { generateEntryId } from '../../core/formats/xcsh/ids';
import { readJsonlPrefix } from '../../core/formats/xcsh/jsonl';
import { loadSessionFile, type LoadedSession } from '../../core/formats/xcsh/load';
import { headerVersion, migrateSession } from '../../core/formats/xcsh/migrate';
import { appendEntries, rewriteHeaderLine, rewriteSessionFile, RewriteRefusedError, writeNewSessionFile } from '../../core/store/rewrite';
import { CURRENT_SESSION_VERSION } from '../../core/formats/xcsh/entryTypes';
import type { SessionEntry, SessionHeader } from '../../core/formats/xcsh/schemas';
import { applyTitle, sanitizeTitle } from '../../core/formats/xcsh/title';
import { buildTreeIndex } from '../../core/tree/tree';
import { entryPreview, roleOf } from '../../core/tree/treeView';
import type { SessionsTreeProvider } from '../sessions/sessionsTreeProvider';
import { assertWritable, guardedWrite, liveWindowFor, noteOwnWrite, requireTrust } from './guardedWrite';
import { prompts, reportingErrors } from './prompts';
import { revealAndSelect } from './viewCommands';
import { targetEntry, targetFiles } from './targets';

// `action` below is the command's name, already localized ("Relabel Entry"…).

function readOnly(action: string, file: string, loaded: LoadedSession): boolean {
  const reason = loaded.readOnlyReason;
  if (!reason) return false;
  const name = path.basename(file);
  prompts.error(
    loaded.header
      ? vscode.l10n.t('{0}: {1} is read-only ({2}).', action, name, reason)
      : vscode.l10n.t('{0}: {1} is read-only ({2}). Use "Repair into New File…".', action, name, reason),
  );
  return true;
}

/** The one session file a write command acts on, in a trusted workspace (else says why and gives undefined). */
function oneSessionToWrite(provider: SessionsTreeProvider, arg: unknown, action: string): string | undefined {
  const file = targetFiles(provider, arg, undefined)[0];
  if (!file) return void prompts.error(vscode.l10n.t('{0}: select a session in the Sessions view.', action));
  return requireTrust(action) ? file : undefined;
}

// ---------- relabel ----------

/** Appends one `label` entry (Part A taxonomy: `label` absent clears). Returns the entry, if written. */
export async function relabelEntry(provider: SessionsTreeProvider, arg?: unknown, second?: unknown): Promise<SessionEntry | undefined> {
  const action = vscode.l10n.t('Relabel Entry');
  const target = targetEntry(provider, arg, second);
  if (!target) return void prompts.error(vscode.l10n.t('Relabel Entry: select an entry in the Sessions view.'));
  if (!requireTrust(action)) return undefined;
  const { file, entryId } = target;
  const first = await loadSessionFile(file);
  if (readOnly(action, file, first)) return undefined;
  const index = buildTreeIndex(first.entries);
  if (!index.has(entryId)) return void prompts.error(vscode.l10n.t('Relabel Entry: no entry {0} in {1}.', entryId, path.basename(file)));
  // Part C §10: the id shown for an entry without one is made from its bytes; the file does not hold it.
  if (first.syntheticIds?.has(entryId)) return void prompts.error(vscode.l10n.t('Relabel Entry: entry {0} has no id in {1} (the id shown is made from its bytes), so a label cannot name it.', entryId, path.basename(file)));
  const current = index.labels.get(entryId) ?? '';
  // Name the entry the way the tree does (role or type, then its text), not only by its id.
  const target0 = index.get(entryId)!;
  const raw = await prompts.input({
    title: vscode.l10n.t('Label of {0} entry {1}', roleOf(target0) ?? target0.type, entryId),
    value: current,
    prompt: vscode.l10n.t('“{0}” — an empty label clears the label.', entryPreview(target0, 80)),
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
  const action = vscode.l10n.t('Set Session Title');
  const file = oneSessionToWrite(provider, arg, action);
  if (!file) return undefined;
  const loaded = await loadSessionFile(file);
  if (readOnly(action, file, loaded)) return undefined;
  const raw = await prompts.input({
    title: vscode.l10n.t('Title of {0}', path.basename(file)),
    value: loaded.header?.title ?? '',
    prompt: vscode.l10n.t('Control characters become spaces; an empty title is refused.'),
    validateInput: (v) => (sanitizeTitle(v) === null ? vscode.l10n.t('The title is empty.') : undefined),
  });
  if (raw === undefined) return undefined;
  const title = sanitizeTitle(raw);
  if (title === null) return void prompts.error(vscode.l10n.t('Set Session Title: the title is empty.'));

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
  const parts = [
    vscode.l10n.t('v{0} → v{1}', r.fromVersion, r.toVersion),
    loaded.entries.length === 1 ? vscode.l10n.t('{0} of {1} entry touched', r.entriesTouched, 1) : vscode.l10n.t('{0} of {1} entries touched', r.entriesTouched, loaded.entries.length),
    r.idsAssigned === 1 ? vscode.l10n.t('{0} id assigned', 1) : vscode.l10n.t('{0} ids assigned', r.idsAssigned),
  ];
  if (r.compactionsMigrated) parts.push(r.compactionsMigrated === 1 ? vscode.l10n.t('{0} compaction relinked', 1) : vscode.l10n.t('{0} compactions relinked', r.compactionsMigrated));
  if (r.rolesRewritten) parts.push(r.rolesRewritten === 1 ? vscode.l10n.t('{0} hookMessage role → custom', 1) : vscode.l10n.t('{0} hookMessage roles → custom', r.rolesRewritten));
  const unresolved = r.unresolvedCompactions.length;
  if (unresolved) parts.push(unresolved === 1 ? vscode.l10n.t('{0} compaction left unresolved', 1) : vscode.l10n.t('{0} compactions left unresolved', unresolved));
  // A run of unreadable lines is one diagnostic with a count (issue 15).
  const unreadable = loaded.diagnostics.filter((d) => d.kind === 'invalid-json' || d.kind === 'not-an-object' || d.kind === 'too-deep').reduce((n, d) => n + (d.count ?? 1), 0);
  if (unreadable) parts.push(unreadable === 1 ? vscode.l10n.t('{0} unreadable line kept verbatim', 1) : vscode.l10n.t('{0} unreadable lines kept verbatim', unreadable));
  return vscode.l10n.t('• {0}: {1}', path.basename(file), parts.join(', '));
}

/** Migrates one or more sessions to v3 after a dry-run summary and a confirmation. */
export async function migrateSessions(provider: SessionsTreeProvider, arg?: unknown, selection?: unknown): Promise<MigrateOutcome[]> {
  const action = vscode.l10n.t('Migrate to v3');
  const files = targetFiles(provider, arg, selection);
  if (files.length === 0) return void prompts.error(vscode.l10n.t('Migrate to v3: select one or more sessions in the Sessions view.')), [];
  if (!requireTrust(action)) return [];
  const plans: { file: string; loaded: LoadedSession }[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    const loaded = await loadSessionFile(file);
    if (loaded.readOnlyReason) skipped.push(vscode.l10n.t('• {0}: read-only ({1})', path.basename(file), loaded.readOnlyReason));
    else if (loaded.originalVersion >= CURRENT_SESSION_VERSION) skipped.push(vscode.l10n.t('• {0}: already v{1}', path.basename(file), loaded.originalVersion));
    else plans.push({ file, loaded });
  }
  if (plans.length === 0) {
    prompts.info(vscode.l10n.t('Migrate to v3: nothing to migrate.\n{0}', skipped.join('\n')));
    return [];
  }
  const detail = [
    ...plans.map((p) => migrationLine(p.file, p.loaded)),
    '',
    vscode.l10n.t('Each original is copied to <file>.bak-<time> first; the file is then rewritten atomically. Unchanged records keep their bytes.'),
    ...(skipped.length ? ['', vscode.l10n.t('Skipped:'), ...skipped] : []),
  ].join('\n');
  const question =
    plans.length === 1
      ? vscode.l10n.t('Migrate “{0}” to v3?', await readSessionName(plans[0]!.file))
      : vscode.l10n.t('Migrate {0} sessions to v3?', plans.length);
  const migrate = vscode.l10n.t('Migrate');
  const go = await prompts.confirm(question, detail, migrate);
  if (go !== migrate) return [];

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
    // Every outcome has a backup (rewriteSessionFile with `backup: true`); some not migrated means
    // two sessions or more were planned.
    const backups = outcomes.map((o) => o.backupPath && path.basename(o.backupPath)).filter(Boolean).join(', ');
    const left = notMigrated.join(', ');
    const one = outcomes.length === 1;
    prompts.info(
      notMigrated.length === 0
        ? one
          ? vscode.l10n.t('Migrated {0} session to v3. Backup next to it: {1}.', outcomes.length, backups)
          : vscode.l10n.t('Migrated {0} sessions to v3. Backups next to them: {1}.', outcomes.length, backups)
        : one
          ? vscode.l10n.t('Migrated {0} of {1} sessions to v3. Backup next to it: {2}. Not migrated (left unchanged): {3}.', outcomes.length, plans.length, backups, left)
          : vscode.l10n.t('Migrated {0} of {1} sessions to v3. Backups next to them: {2}. Not migrated (left unchanged): {3}.', outcomes.length, plans.length, backups, left),
    );
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
  notes.push(base.cwd ? vscode.l10n.t('header rebuilt (id {0}, cwd {1})', id, base.cwd) : vscode.l10n.t('header rebuilt (id {0})', id));
  if (headerVersion(base) < CURRENT_SESSION_VERSION) {
    const m = migrateSession(base, loaded.entries);
    notes.push(m.report.idsAssigned === 1 ? vscode.l10n.t('migrated v1 → v3 ({0} id assigned)', 1) : vscode.l10n.t('migrated v1 → v3 ({0} ids assigned)', m.report.idsAssigned));
    return { header: m.header, entries: m.entries, notes };
  }
  return { header: base, entries: loaded.entries, notes };
}

/** Selects a session's row in the Sessions view (best effort: the view may be hidden). */
async function revealSession(provider: SessionsTreeProvider, file: string): Promise<void> {
  const find = () => provider.findSession(file);
  await revealAndSelect(provider, await find(), find, false).catch(() => undefined);
}

/** Writes the recoverable part of a damaged session to a new file next to it; the original is untouched. */
export async function repairIntoNewFile(provider: SessionsTreeProvider, arg?: unknown): Promise<string | undefined> {
  const action = vscode.l10n.t('Repair into New File');
  const file = oneSessionToWrite(provider, arg, action);
  if (!file) return undefined;
  const loaded = await loadSessionFile(file);
  if (loaded.header && loaded.originalVersion > CURRENT_SESSION_VERSION) {
    return void prompts.error(
      vscode.l10n.t('Repair into New File: {0} is version {1}, newer than {2}; it is never rewritten.', path.basename(file), loaded.originalVersion, CURRENT_SESSION_VERSION),
    );
  }
  const { header, entries, notes } = await recoveredSession(file, loaded);
  const count = (kind: string) => loaded.diagnostics.filter((d) => d.kind === kind);
  const dropped = [...count('invalid-json'), ...count('not-an-object'), ...count('too-deep'), ...count('invalid-entry')].sort((a, b) => a.line - b.line);
  if (dropped.length) {
    const lines = dropped.map(diagnosticLines).join(', ');
    const n = dropped.reduce((sum, d) => sum + (d.count ?? 1), 0);
    notes.push(n === 1 ? vscode.l10n.t('{0} unreadable line dropped (line {1})', n, lines) : vscode.l10n.t('{0} unreadable lines dropped (line {1})', n, lines));
  }
  const glued = count('glued-records').length;
  if (glued) notes.push(glued === 1 ? vscode.l10n.t('{0} glued record split', 1) : vscode.l10n.t('{0} glued records split', glued));
  if (count('torn-tail').length) notes.push(vscode.l10n.t('torn last line dropped'));
  const detail = [
    entries.length === 1 ? vscode.l10n.t('{0} entry recovered.', 1) : vscode.l10n.t('{0} entries recovered.', entries.length),
    ...notes.map((n) => `• ${n}`),
    '',
    vscode.l10n.t('The original stays untouched: {0}', file),
  ].join('\n');
  const repair = vscode.l10n.t('Repair');
  const go = await prompts.confirm(vscode.l10n.t('Repair “{0}” into a new file?', await readSessionName(file)), detail, repair);
  if (go !== repair) return undefined;
  for (let n = 1; n < 100; n++) {
    const target = await repairTarget(file, n);
    try {
      await writeNewSessionFile(target, header, entries);
      // Our own fresh file: not "live" in the view although it was modified a moment ago.
      await noteOwnWrite(target);
      await provider.fileChanged(target);
      await revealSession(provider, target);
      // Not awaited: the notification stays until clicked or dismissed; the command is done.
      const openSession = vscode.l10n.t('Open Session');
      const wrote =
        entries.length === 1
          ? vscode.l10n.t('Repair into New File: wrote {0} ({1} entry) next to the original, which is unchanged.', path.basename(target), 1)
          : vscode.l10n.t('Repair into New File: wrote {0} ({1} entries) next to the original, which is unchanged.', path.basename(target), entries.length);
      void Promise.resolve(prompts.info(wrote, openSession)).then((open) =>
        open === openSession ? vscode.commands.executeCommand('sessionLoom.openSession', vscode.Uri.file(target)) : undefined,
      );
      return target;
    } catch (err) {
      if (err instanceof RewriteRefusedError && err.reason === 'exists') continue;
      throw err;
    }
  }
  prompts.error(vscode.l10n.t('Repair into New File: too many repaired copies next to {0}.', path.basename(file)));
  return undefined;
}

export function registerWriteCommands(provider: SessionsTreeProvider): vscode.Disposable {
  const run = reportingErrors;
  return vscode.Disposable.from(
    vscode.commands.registerCommand('sessionLoom.relabelEntry', run((a?: unknown, b?: unknown) => relabelEntry(provider, a, b))),
    vscode.commands.registerCommand('sessionLoom.setSessionTitle', run((a?: unknown) => setSessionTitle(provider, a))),
    vscode.commands.registerCommand('sessionLoom.migrate', run((a?: unknown, sel?: unknown) => migrateSessions(provider, a, sel))),
    vscode.commands.registerCommand('sessionLoom.repairSession', run((a?: unknown) => repairIntoNewFile(provider, a))),
  );
}
