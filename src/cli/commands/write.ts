// Writing subcommands: migrate, relabel, title. Every write goes through the core's guarded
// writers (Part C §3, issue 15): see FORCE_HELP for what they refuse and what --force overrides.
import { stat } from 'node:fs/promises';
import { generateEntryId } from '../../core/formats/xcsh/ids';
import { readJsonlPrefix } from '../../core/formats/xcsh/jsonl';
import { loadSessionFile } from '../../core/formats/xcsh/load';
import { appendEntries, assertSessionWritable, rewriteHeaderLine, rewriteSessionFile, RewriteRefusedError } from '../../core/store/rewrite';
import { assertNotLive } from '../../core/store/rewriteGuard';
import { uneditableRecords, UnsafeRecordEditError } from '../../core/store/recordRewrite';
import { CURRENT_SESSION_VERSION } from '../../core/formats/xcsh/entryTypes';
import type { SessionEntry, SessionHeader } from '../../core/formats/xcsh/schemas';
import { applyTitle, sanitizeTitle } from '../../core/formats/xcsh/title';
import { entryLines } from '../../core/engine/xcsh/lazy/bodyScan';
import { LazyTree } from '../../core/engine/xcsh/lazy/lazyTree';
import { cliLiveWindow, rememberOwnWrite } from '../liveGuard';
import { escapeForTerminal } from '../terminalText';
import { refuseCommand, sessionIndexForWrite } from './read';
import { CliError, UsageError, writeJson, type Io } from '../util';
import { parseFileCommand } from '../fileArgs';
import { FORCE_HELP, USAGE } from '../usage';

/** A refusal as one line, `<file>: <reason>: <why>`, with the way out once (the whole file: no line). */
function refused(file: string, e: unknown): never {
  if (e instanceof RewriteRefusedError) throw new CliError(`${e.reason}: ${e.detail}${e.forceable ? ' (use --force to write anyway)' : ''}`, file, 0);
  if (e instanceof UnsafeRecordEditError) throw new CliError(`refusing to rewrite: the record cannot be edited exactly (${e.reason}); the file is left unchanged`, file, e.line);
  throw e;
}

export async function migrateCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { 'dry-run': { type: 'boolean' }, backup: { type: 'boolean' }, force: { type: 'boolean' }, pretty: { type: 'boolean' } }, USAGE.migrate, io, { more: FORCE_HELP });
  if (!args) return 0;
  // another agent's log is named as what it is (its reader refuses every write)
  refuseCommand('migrate', args);
  const { values, file } = args;
  const loaded = await loadSessionFile(file);
  if (loaded.readOnlyReason) throw new CliError(`cannot migrate: ${loaded.readOnlyReason}`, file, loaded.headerLine || 1);
  const m = loaded.migration;
  const report = {
    file,
    fromVersion: loaded.originalVersion,
    toVersion: CURRENT_SESSION_VERSION,
    idsAssigned: m.idsAssigned,
    parentsLinked: m.parentsLinked,
    compactionsMigrated: m.compactionsMigrated,
    rolesRewritten: m.rolesRewritten,
    entriesChanged: m.changedIndices.length,
    unresolvedCompactions: m.unresolvedCompactions.map((u) => ({ line: loaded.entryLines[u.entryIndex] ?? 0, firstKeptEntryIndex: u.firstKeptEntryIndex, reason: u.reason })),
    // (the first line of each: a run of unreadable lines is one diagnostic, with `lastLine`)
    unparsedLinesKept: loaded.diagnostics.filter((d) => d.kind === 'invalid-json' || d.kind === 'not-an-object' || d.kind === 'torn-tail' || d.kind === 'torn-record' || d.kind === 'too-deep').map((d) => d.line),
  };
  const needed = loaded.originalVersion < CURRENT_SESSION_VERSION || m.changedIndices.length > 0;
  if (!needed) {
    io.err(`${escapeForTerminal(file)}: already version ${loaded.originalVersion}; nothing to do\n`);
    writeJson(io, { ...report, written: false, backupPath: null }, values.pretty === true);
    return 0;
  }
  // a dry run says whether the write would be refused (dsh, version, read-only, hard link…)
  await assertSessionWritable(file, 'replace').catch((e: unknown) => refused(file, e));
  if (values['dry-run']) {
    // Every changed record is edited in its own bytes; one that cannot be, refuses the migration.
    const notKeptExactly = await uneditableRecords(file, loaded);
    io.err(`${escapeForTerminal(file)}: dry run, nothing written${notKeptExactly.length > 0 ? `; the migration would be refused (line ${notKeptExactly.map((u) => u.line).join(', ')})` : ''}\n`);
    writeJson(io, { ...report, notKeptExactly, written: false, backupPath: null }, values.pretty === true);
    return notKeptExactly.length > 0 ? 1 : 0;
  }
  const liveWindowMs = await cliLiveWindow(file, 'replace', values.force === true).catch((e: unknown) => refused(file, e));
  const r = await rewriteSessionFile(file, loaded, { expected: loaded.stat!, force: values.force === true, backup: values.backup === true, liveWindowMs }).catch((e: unknown) => refused(file, e));
  await rememberOwnWrite(file);
  writeJson(io, { ...report, notKeptExactly: [], written: true, backupPath: r.backupPath, copied: r.copied, edited: r.edited, reserialised: r.reserialised, carriedBytes: r.carriedBytes }, values.pretty === true);
  return 0;
}

export async function relabelCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { clear: { type: 'boolean' }, force: { type: 'boolean' }, pretty: { type: 'boolean' } }, USAGE.relabel, io, { more: FORCE_HELP, positionals: 3 });
  if (!args) return 0;
  // another agent's log is named as what it is (its reader refuses every write)
  refuseCommand('relabel', args);
  const { values, positionals, file } = args;
  const target = positionals[1];
  if (!target) throw new UsageError(`missing <entryId>\n${USAGE.relabel}`);
  const raw = positionals[2];
  if (values.clear && raw !== undefined) throw new UsageError(`give a label or --clear, not both\n${USAGE.relabel}`);
  if (!values.clear && raw === undefined) throw new UsageError(`missing <label> (or --clear)\n${USAGE.relabel}`);
  const label = raw === undefined ? undefined : sanitizeTitle(raw);
  if (raw !== undefined && label === null) throw new UsageError('the label is empty after removing control characters (use --clear to remove a label)');
  // Read through the session engine's index (kept in the CLI's cache for a big session): a label
  // on a 500 MB session reads what was appended since the last command, not the whole file.
  const ix = await sessionIndexForWrite(file);
  if (ix.readOnlyReason) throw new CliError(`cannot relabel: ${ix.readOnlyReason}`, file, ix.headerLine || 1);
  // before the version advice below: a dsh log or a version "4" must be named as what it is
  await assertSessionWritable(file, 'append').catch((e: unknown) => refused(file, e));
  // The ids of a v1/v2 file exist only in memory until it is migrated: a label appended now would
  // name an id the file does not contain.
  if (ix.originalVersion < CURRENT_SESSION_VERSION) {
    throw new CliError(`the file is version ${ix.originalVersion}; run "session-loom migrate" first (its entry ids are not on disk yet)`, file, ix.headerLine || 1);
  }
  const tree = new LazyTree(ix);
  if (!tree.has(target)) throw new CliError(`no entry with id "${target}"`, file, 0);
  // Part C §10: an id made for an entry without one is shown everywhere but is not in the file.
  if (ix.reshape && [...ix.reshape.madeIds.values()].includes(target)) {
    throw new CliError(`entry "${target}" has no id on disk (it was made from the entry's bytes to show it); a label naming it would name nothing in the file`, file, (await entryLines(ix))[tree.indexOf(target)]!);
  }
  const liveWindowMs = await cliLiveWindow(file, 'append', values.force === true).catch((e: unknown) => refused(file, e));
  await assertNotLive(file, ix.stat.mtimeMs, { force: values.force === true, liveWindowMs }).catch((e: unknown) => refused(file, e));
  const taken = new Set<string>();
  for (let i = 0; i < tree.n; i++) taken.add(tree.idAt(i));
  const entry: Record<string, unknown> = {
    type: 'label',
    id: generateEntryId(taken),
    parentId: tree.defaultLeafId,
    timestamp: new Date().toISOString(),
    targetId: target,
  };
  if (label !== undefined) entry.label = label;
  await appendEntries(file, [entry as SessionEntry], { readOnlyReason: ix.readOnlyReason }).catch((e: unknown) => refused(file, e));
  await rememberOwnWrite(file);
  writeJson(io, { file, entry }, values.pretty === true);
  return 0;
}

export async function titleCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { force: { type: 'boolean' }, backup: { type: 'boolean' }, pretty: { type: 'boolean' } }, USAGE.title, io, { more: FORCE_HELP, positionals: Infinity });
  if (!args) return 0;
  // another agent's log is named as what it is (its reader refuses every write)
  refuseCommand('title', args);
  const { values, positionals, file } = args;
  const raw = positionals[1];
  if (raw === undefined) throw new UsageError(`missing <title>\n${USAGE.title}`);
  if (positionals.length > 2) throw new UsageError(`too many arguments (quote the title)\n${USAGE.title}`);
  if (sanitizeTitle(raw) === null) throw new UsageError('the title is empty after removing control characters and spaces');
  const liveWindowMs = await cliLiveWindow(file, 'replace', values.force === true).catch((e: unknown) => refused(file, e));
  const st = await stat(file);
  // The header as it is ON DISK (not the in-memory migrated one: a v1 file must stay v1).
  const prefix = await readJsonlPrefix(file, 1 << 20);
  const rec = prefix.records[0];
  if (!rec || rec.value.type !== 'session' || typeof rec.value.id !== 'string') {
    throw new CliError('cannot set the title: no valid session header (the file is damaged and read-only)', file, rec?.line ?? 1);
  }
  const header = applyTitle(rec.value as SessionHeader, raw, 'user')!;
  const r = await rewriteHeaderLine(file, header, { expected: { size: st.size, mtimeMs: st.mtimeMs }, force: values.force === true, backup: values.backup === true, liveWindowMs }).catch((e: unknown) =>
    refused(file, e),
  );
  await rememberOwnWrite(file);
  writeJson(io, { file, line: rec.line, title: header.title, titleSource: header.titleSource, backupPath: r.backupPath, carriedBytes: r.carriedBytes }, values.pretty === true);
  return 0;
}
