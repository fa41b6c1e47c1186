// Writing subcommands: migrate, relabel, title. Every write goes through part 1's guarded paths
// (Part C §3): size+mtime must match what was read, and a live file is refused unless --force.
import { stat } from 'node:fs/promises';
import { generateEntryId } from '../../core/formats/xcsh/ids';
import { readJsonlPrefix } from '../../core/formats/xcsh/jsonl';
import { loadSessionFile } from '../../core/formats/xcsh/load';
import { appendEntries, rewriteHeaderLine, rewriteSessionFile, RewriteRefusedError } from '../../core/store/rewrite';
import { assertNotLive } from '../../core/store/rewriteGuard';
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from '../../core/formats/xcsh/schemas';
import { applyTitle, sanitizeTitle } from '../../core/formats/xcsh/title';
import { buildTreeIndex } from '../../core/tree/tree';
import { CliError, parseFileCommand, UsageError, writeJson, type Io } from '../util';

export const USAGE = {
  migrate: 'usage: session-loom migrate <file> [--dry-run] [--backup] [--force]',
  relabel: 'usage: session-loom relabel <file> <entryId> (<label> | --clear) [--force]',
  title: 'usage: session-loom title <file> <title> [--force] [--backup]',
};

function refused(file: string, e: unknown): never {
  if (e instanceof RewriteRefusedError) throw new CliError(`${e.reason}: ${e.message}${e.reason === 'live' ? ' (use --force to override)' : ''}`, file, 1);
  throw e;
}

export async function migrateCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { 'dry-run': { type: 'boolean' }, backup: { type: 'boolean' }, force: { type: 'boolean' }, pretty: { type: 'boolean' } }, USAGE.migrate, io);
  if (!args) return 0;
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
    io.err(`${file}: already version ${loaded.originalVersion}; nothing to do\n`);
    writeJson(io, { ...report, written: false, backupPath: null }, values.pretty === true);
    return 0;
  }
  if (values['dry-run']) {
    io.err(`${file}: dry run, nothing written\n`);
    writeJson(io, { ...report, written: false, backupPath: null }, values.pretty === true);
    return 0;
  }
  const r = await rewriteSessionFile(file, loaded, { expected: loaded.stat!, force: values.force === true, backup: values.backup === true }).catch((e: unknown) => refused(file, e));
  writeJson(io, { ...report, written: true, backupPath: r.backupPath, copied: r.copied, reserialised: r.reserialised }, values.pretty === true);
  return 0;
}

export async function relabelCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { clear: { type: 'boolean' }, force: { type: 'boolean' }, pretty: { type: 'boolean' } }, USAGE.relabel, io);
  if (!args) return 0;
  const { values, positionals, file } = args;
  const target = positionals[1];
  if (!target) throw new UsageError(`missing <entryId>\n${USAGE.relabel}`);
  const raw = positionals[2];
  if (values.clear && raw !== undefined) throw new UsageError(`give a label or --clear, not both\n${USAGE.relabel}`);
  if (!values.clear && raw === undefined) throw new UsageError(`missing <label> (or --clear)\n${USAGE.relabel}`);
  const label = raw === undefined ? undefined : sanitizeTitle(raw);
  if (raw !== undefined && label === null) throw new UsageError('the label is empty after removing control characters (use --clear to remove a label)');
  const loaded = await loadSessionFile(file);
  if (loaded.readOnlyReason) throw new CliError(`cannot relabel: ${loaded.readOnlyReason}`, file, loaded.headerLine || 1);
  // The ids of a v1/v2 file exist only in memory until it is migrated: a label appended now would
  // name an id the file does not contain.
  if (loaded.originalVersion < CURRENT_SESSION_VERSION || loaded.changed) {
    throw new CliError(`the file is version ${loaded.originalVersion}; run "session-loom migrate" first (its entry ids are not on disk yet)`, file, loaded.headerLine || 1);
  }
  const tree = buildTreeIndex(loaded.entries, loaded.entryLines);
  if (!tree.has(target)) throw new CliError(`no entry with id "${target}"`, file, 0);
  await assertNotLive(file, loaded.stat!.mtimeMs, { force: values.force === true }).catch((e: unknown) => refused(file, e));
  const taken = new Set(tree.byId.keys());
  const entry: Record<string, unknown> = {
    type: 'label',
    id: generateEntryId(taken),
    parentId: tree.defaultLeafId,
    timestamp: new Date().toISOString(),
    targetId: target,
  };
  if (label !== undefined) entry.label = label;
  await appendEntries(file, [entry as SessionEntry], { readOnlyReason: loaded.readOnlyReason }).catch((e: unknown) => refused(file, e));
  writeJson(io, { file, entry }, values.pretty === true);
  return 0;
}

export async function titleCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { force: { type: 'boolean' }, backup: { type: 'boolean' }, pretty: { type: 'boolean' } }, USAGE.title, io);
  if (!args) return 0;
  const { values, positionals, file } = args;
  const raw = positionals[1];
  if (raw === undefined) throw new UsageError(`missing <title>\n${USAGE.title}`);
  if (positionals.length > 2) throw new UsageError(`too many arguments (quote the title)\n${USAGE.title}`);
  if (sanitizeTitle(raw) === null) throw new UsageError('the title is empty after removing control characters and spaces');
  const st = await stat(file);
  // The header as it is ON DISK (not the in-memory migrated one: a v1 file must stay v1).
  const prefix = await readJsonlPrefix(file, 1 << 20);
  const rec = prefix.records[0];
  if (!rec || rec.value.type !== 'session' || typeof rec.value.id !== 'string') {
    throw new CliError('cannot set the title: no valid session header (the file is damaged and read-only)', file, rec?.line ?? 1);
  }
  const header = applyTitle(rec.value as SessionHeader, raw, 'user')!;
  await rewriteHeaderLine(file, header, { expected: { size: st.size, mtimeMs: st.mtimeMs }, force: values.force === true, backup: values.backup === true }).catch((e: unknown) =>
    refused(file, e),
  );
  writeJson(io, { file, line: rec.line, title: header.title, titleSource: header.titleSource }, values.pretty === true);
  return 0;
}
