// Read-only subcommands: context, entries, events, tree, ls, doctor. Nothing here writes. Each opens
// the session's model through its format's reader (core/engine/openModel.ts) and prints the
// model's documents (core/engine/documents.ts): no command knows which agent wrote the file.
import { join } from 'node:path';
import { formatDiagnostic, severityOf, type Diagnostic } from '../../core/diagnostics';
import { defaultSessionRoots, describeSkipped, groupByProject, listAllWithSkipped } from '../../core/discovery/discovery';
import { OptionError, TargetError, type DoctorReport, type TreeLine } from '../../core/engine/documents';
import type { LocalSessionModel, ModelOptions } from '../../core/engine/model';
import { sessionReader, type SessionCommand, type SessionReader } from '../../core/engine/openModel';
import { cachedOrBuiltIndex, IndexCache } from '../../core/engine/xcsh/lazy/indexCache';
import type { LazyIndexData } from '../../core/engine/xcsh/lazy/lazyIndex';
import type { SessionFormat } from '../../core/formats/detect';
import { writeJsonObject } from '../jsonStream';
import { cliCacheDir } from '../ownWrites';
import { escapeForTerminal, jsonForTerminal } from '../terminalText';
import { CliError, lookedIn, parse, requireDirectory, unexpectedArgument, UsageError, writeJson, type Io } from '../util';
import { parseFileCommand } from '../fileArgs';
import { USAGE } from '../usage';

/** The command's file and options, once parseFileCommand has checked them. */
export interface FileArgs {
  values: Record<string, string | boolean | undefined>;
  file: string;
  format: SessionFormat;
}

/** The reader of the command's file, once it has said the command applies (a refusal is thrown). */
export function refuseCommand(command: SessionCommand, args: FileArgs): SessionReader {
  const reader = sessionReader(args.format);
  const refusal = reader.refuseCommand(command, args.file);
  if (refusal) throw refusal.usage ? new UsageError(escapeForTerminal(refusal.message)) : new CliError(refusal.message, args.file, 0);
  return reader;
}

/**
 * The model of the session a command is about, opened by its format's reader once the reader has
 * said the command and its options apply; a number is the exit code when there is nothing to open
 * (a store of several sessions, whose sessions were listed to choose from).
 */
export async function openForCommand(command: SessionCommand, args: FileArgs, usage: string, io: Io, opts: ModelOptions = {}): Promise<LocalSessionModel | number> {
  const { values, file } = args;
  const reader = refuseCommand(command, args);
  const foreign = reader.foreignOption(command, values);
  if (foreign) throw new UsageError(`${escapeForTerminal(foreign)}\n${usage}`);
  const session = typeof values.session === 'string' ? values.session : undefined;
  const choice = await reader.chooseSession(file, session).catch((e: unknown) => {
    throw e instanceof OptionError ? new UsageError(`${escapeForTerminal(e.message)}\n${usage}`) : e;
  });
  if (choice) {
    io.err(`${escapeForTerminal(file)}: ${escapeForTerminal(choice.message)}\n${usage}\n`);
    writeJson(io, choice.json, false);
    return 2;
  }
  // A big session's index is kept in the CLI's cache folder (`index/`, as the extension keeps its
  // own): the next command on it reads only what was appended since (indexCache.ts).
  return reader.open(file, { indexCache: cliIndexCache(), keepIndexFirst: true, ...opts, ...(session !== undefined ? { session } : {}) }).catch((e: unknown) => {
    throw e instanceof TargetError ? new CliError(e.detail, file, 0) : e;
  });
}

/** The CLI's cache of big sessions' indexes (`index/` in its cache folder, as the extension keeps its own). */
export function cliIndexCache(): IndexCache {
  return new IndexCache(join(cliCacheDir(), 'index'));
}

/**
 * The engine's index of an xcsh file a writer reads (the kept one plus what was appended since,
 * or built and kept): the facts a write checks, without the whole file in memory.
 */
export async function sessionIndexForWrite(file: string): Promise<LazyIndexData> {
  const cache = cliIndexCache();
  const { index, built } = await cachedOrBuiltIndex(file, cache);
  if (built) await cache.save(index);
  return index;
}

/** Runs `answer` on the command's model, a request it cannot answer said against the file. */
async function withModel(command: SessionCommand, args: FileArgs, usage: string, io: Io, answer: (model: LocalSessionModel) => Promise<number>): Promise<number> {
  const model = await openForCommand(command, args, usage, io);
  if (typeof model === 'number') return model;
  try {
    return await answer(model);
  } catch (e) {
    throw e instanceof TargetError ? new CliError(e.detail, args.file, 0) : e;
  } finally {
    model.dispose();
  }
}

/** `file:line: kind: message` for a terminal: the path and the message come from outside (terminalText.ts). */
function diagnosticLine(file: string, d: Diagnostic): string {
  return escapeForTerminal(formatDiagnostic(file, d));
}

export function warnDiagnostics(io: Io, file: string, diagnostics: readonly Diagnostic[]): void {
  for (const d of diagnostics) if (severityOf(d.kind) !== 'info') io.err(`${diagnosticLine(file, d)}\n`);
}

export async function contextCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { leaf: { type: 'string' }, blobs: { type: 'string' }, at: { type: 'string' }, session: { type: 'string' }, pretty: { type: 'boolean' } }, USAGE.context, io);
  if (!args) return 0;
  return withModel('context', args, USAGE.context, io, async (model) => {
    const { warnings, members } = await model.documents().context(args.values);
    warnDiagnostics(io, args.file, warnings);
    await writeJsonObject(io, members, args.values.pretty === true);
    return 0;
  });
}

/** `entries` (an xcsh file's entries) and `events` (a dsh log's): the session's records, as the format calls them. */
async function recordsCommand(command: 'entries' | 'events', argv: string[], io: Io, options: Parameters<typeof parseFileCommand>[1]): Promise<number> {
  const args = await parseFileCommand(argv, options, USAGE[command], io);
  if (!args) return 0;
  return withModel(command, args, USAGE[command], io, async (model) => {
    const { warnings, members } = await model.documents().records(args.values);
    warnDiagnostics(io, args.file, warnings);
    await writeJsonObject(io, members, args.values.pretty === true);
    return 0;
  });
}

export function entriesCommand(argv: string[], io: Io): Promise<number> {
  return recordsCommand('entries', argv, io, { blobs: { type: 'string' }, pretty: { type: 'boolean' } });
}

export function eventsCommand(argv: string[], io: Io): Promise<number> {
  return recordsCommand('events', argv, io, { session: { type: 'string' }, pretty: { type: 'boolean' } });
}

// ---- tree ----

/** One row of the text tree: prefix, id, preview, `[label]`, and the default leaf's marker (layout: xcshDocuments.ts). */
export function treeLineText(r: TreeLine): string {
  return `${r.newTree ? '\n' : ''}${r.lead}${escapeForTerminal(r.id)} ${escapeForTerminal(r.preview)}${r.label !== undefined ? ` [${escapeForTerminal(r.label)}]` : ''}${r.leaf ? '  ← leaf' : ''}\n`;
}

export async function treeCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { json: { type: 'boolean' }, session: { type: 'string' }, pretty: { type: 'boolean' } }, USAGE.tree, io);
  if (!args) return 0;
  return withModel('tree', args, USAGE.tree, io, async (model) => {
    const docs = model.documents();
    if (args.values.json) {
      await docs.treeJson(args.values.pretty === true, (json) => io.out(jsonForTerminal(json)));
      return 0;
    }
    const { warnings, notes, lines } = await docs.treeText();
    warnDiagnostics(io, args.file, warnings);
    for (const note of notes) io.err(`${escapeForTerminal(args.file)}: ${escapeForTerminal(note)}\n`);
    await lines((batch) => {
      let out = '';
      for (const line of batch) out += treeLineText(line);
      io.out(out);
    });
    return 0;
  });
}

// ---- ls ----

export async function lsCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { root: { type: 'string', multiple: true }, json: { type: 'boolean' }, pretty: { type: 'boolean' } }, USAGE.ls);
  if (values.help) return (io.out(USAGE.ls + '\n'), 0);
  if (positionals.length > 0) throw unexpectedArgument(positionals[0]!, USAGE.ls);
  const rootOpt = values.root as unknown as string[] | undefined;
  // A root named on the command line must be a folder: a typo is an error, not "no sessions".
  for (const root of rootOpt ?? []) await requireDirectory(root);
  const roots = rootOpt && rootOpt.length > 0 ? rootOpt : defaultSessionRoots();
  const { sessions, skipped } = await listAllWithSkipped(roots);
  // What was left out goes to stderr in both modes: --json keeps its array on stdout unchanged.
  for (const s of skipped) io.err(`${escapeForTerminal(s.path)}: skipped: ${escapeForTerminal(describeSkipped(s))}\n`);
  const groups = groupByProject(sessions);
  // An empty listing says where it looked: a missing ~/.xcsh is not the same as an empty one.
  if (groups.length === 0) io.err(await lookedIn('no sessions found', roots));
  if (values.json) {
    writeJson(io, groups, values.pretty === true);
    return 0;
  }
  let out = '';
  for (const g of groups) {
    out += `${escapeForTerminal(g.project)}\n`;
    const row = (s: (typeof g.sessions)[number], indent: string): void => {
      const what = s.title ?? s.firstUserMessage?.replace(/\s+/g, ' ').slice(0, 60) ?? '(no messages)';
      // Claude Code and Codex sessions: the time of their last record (a copied file's mtime says nothing)
      const when = (s.lastRecord ?? s.modified).slice(0, 16).replace('T', ' ');
      const marks = `${s.format !== 'xcsh' ? `  [${s.format}]` : ''}${s.relation && s.relation !== 'subagent' ? `  [${s.relation}]` : ''}${s.damaged ? '  [damaged]' : ''}`;
      out += `${indent}${when}  ${escapeForTerminal(s.id)}  ${escapeForTerminal(what)}${marks}  ${escapeForTerminal(s.path)}\n`;
      for (const sub of g.subagents[s.path] ?? []) row(sub, indent + '  ↳ ');
    };
    for (const s of g.sessions) row(s, '  ');
  }
  io.out(out);
  return 0;
}

// ---- doctor ----

export async function doctorCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { json: { type: 'boolean' }, blobs: { type: 'string' }, session: { type: 'string' }, pretty: { type: 'boolean' } }, USAGE.doctor, io);
  if (!args) return 0;
  return withModel('doctor', args, USAGE.doctor, io, async (model) => printDoctor(io, args.file, await model.documents().doctor(args.values), args.values.json === true, args.values.pretty === true));
}

/** Prints doctor's report: the JSON document, or each finding and the verdict on stderr; the exit code. */
export function printDoctor(io: Io, file: string, report: DoctorReport, json: boolean, pretty: boolean): number {
  if (json) writeJson(io, report.json, pretty);
  else {
    for (const d of report.diagnostics) {
      const where = report.where?.(d);
      io.err(`${diagnosticLine(file, d)}${where ? ` (${where})` : ''} (${d.severity})\n`);
    }
    io.err(`${escapeForTerminal(file)}: ${escapeForTerminal(report.verdict)}\n`);
  }
  return report.exitCode;
}
