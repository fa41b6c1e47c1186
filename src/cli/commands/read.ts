// Read-only subcommands: context, entries, events, tree, ls, doctor. Nothing here writes. An xcsh
// file is answered from the session engine's index (lazyRead.ts); a dsh log (chosen by content)
// by commands/dsh.ts.
import { formatDiagnostic, severityOf, type Diagnostic } from '../../core/diagnostics';
import { defaultSessionRoots, describeSkipped, groupByProject, listAllWithSkipped } from '../../core/discovery/discovery';
import { auditSessionBytes } from '../../core/formats/xcsh/byteAudit';
import { escapeForTerminal } from '../terminalText';
import { tempFileDiagnostics } from '../../core/store/tempFiles';
import { blobStoreOf, lookedIn, parse, parseFileCommand, requireDirectory, unexpectedArgument, UsageError, writeJson, type Io } from '../util';
import { dshContext, dshDoctor, dshEvents, dshTree } from './dsh';
import { entriesJson, lazyContextCommand, lazyDiagnostics, sessionIndex } from './lazyRead';
import { lazyTreeCommand } from './lazyTreeCommand';

export const USAGE = {
  context: 'usage: session-loom context <file> [--leaf <id>|null] [--blobs <dir>] [--pretty]   (dsh: [--at <seq>] [--session <id>])',
  entries: 'usage: session-loom entries <file> [--blobs <dir>] [--pretty]',
  events: 'usage: session-loom events <file> [--session <id>] [--pretty]',
  tree: 'usage: session-loom tree <file> [--json] [--pretty]   (dsh: [--session <id>])',
  ls: 'usage: session-loom ls [--root <dir>]... [--json] [--pretty]',
  doctor: 'usage: session-loom doctor <file> [--json] [--blobs <dir>] [--pretty]   (dsh: [--session <id>])',
};

/** `--blobs` names an xcsh blob store: refused on a dsh log (which has none) rather than ignored. */
export function refuseBlobs(values: Record<string, string | boolean | undefined>, usage: string): void {
  if (values.blobs !== undefined) throw new UsageError(`--blobs is for xcsh session files; a deepseek-harness (dsh) log has no blob store\n${usage}`);
}

/** Options only a dsh log takes: refused on an xcsh file rather than silently ignored. */
export function refuseDshOptions(values: Record<string, string | boolean | undefined>, usage: string): void {
  for (const o of ['at', 'session'] as const) {
    if (values[o] !== undefined) throw new UsageError(`--${o} is for deepseek-harness (dsh) logs; this is an xcsh session file\n${usage}`);
  }
}

export async function eventsCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { session: { type: 'string' }, pretty: { type: 'boolean' } }, USAGE.events, io);
  if (!args) return 0;
  const { values, file, format } = args;
  if (format !== 'dsh') throw new UsageError(`${escapeForTerminal(file)} is an xcsh session file, not a deepseek-harness (dsh) log: use "session-loom entries" for its entries`);
  return dshEvents(file, values.session as string | undefined, values.pretty === true, io, USAGE.events);
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
  const { values, file, format } = args;
  if (format === 'dsh') {
    if (values.leaf !== undefined) throw new UsageError(`--leaf names an xcsh entry; a dsh log takes --at <seq>\n${USAGE.context}`);
    refuseBlobs(values, USAGE.context);
    return dshContext(file, values.at as string | undefined, values.session as string | undefined, values.pretty === true, io, USAGE.context);
  }
  refuseDshOptions(values, USAGE.context);
  const leaf = typeof values.leaf === 'string' ? values.leaf : undefined;
  return lazyContextCommand(await sessionIndex(file), file, leaf, blobStoreOf(values.blobs), values.pretty === true, io, (ds) => warnDiagnostics(io, file, ds));
}

export async function entriesCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { blobs: { type: 'string' }, pretty: { type: 'boolean' } }, USAGE.entries, io);
  if (!args) return 0;
  const { values, file, format } = args;
  if (format === 'dsh') throw new UsageError(`${escapeForTerminal(file)} is a deepseek-harness (dsh) log: use "session-loom events" for its events`);
  // (--blobs adds the blob references' diagnostics; the entries are shown as stored.)
  await entriesJson(await sessionIndex(file), blobStoreOf(values.blobs), values.pretty === true, io);
  return 0;
}

// ---- tree ----

export async function treeCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { json: { type: 'boolean' }, session: { type: 'string' }, pretty: { type: 'boolean' } }, USAGE.tree, io);
  if (!args) return 0;
  const { values, file, format } = args;
  if (format === 'dsh') return dshTree(file, values.session as string | undefined, values.json === true, values.pretty === true, io, USAGE.tree);
  refuseDshOptions(values, USAGE.tree);
  return lazyTreeCommand(await sessionIndex(file), values.json === true, values.pretty === true, io, (ds) => warnDiagnostics(io, file, ds));
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
      out += `${indent}${s.modified.slice(0, 16).replace('T', ' ')}  ${escapeForTerminal(s.id)}  ${escapeForTerminal(what)}${s.format === 'dsh' ? '  [dsh]' : ''}${s.damaged ? '  [damaged]' : ''}  ${escapeForTerminal(s.path)}\n`;
      for (const sub of g.subagents[s.path] ?? []) row(sub, indent + '  ↳ ');
    };
    for (const s of g.sessions) row(s, '  ');
  }
  io.out(out);
  return 0;
}

// ---- doctor ----

/** What doctor reports of a file, from its index. */
export interface DoctorFacts {
  /** The file was there to read (a missing one reads as empty, with nothing to audit). */
  onDisk: boolean;
  empty: boolean;
  readOnlyReason: string | null;
  /** The header's version (the loader's, before any migration); null without a header. */
  version: number | null;
  entries: number;
  diagnostics: Diagnostic[];
}

async function doctorFacts(file: string, blobs: string | boolean | undefined): Promise<DoctorFacts> {
  const ix = await sessionIndex(file);
  return { onDisk: true, empty: ix.stat.size === 0, readOnlyReason: ix.readOnlyReason, version: ix.header ? ix.originalVersion : null, entries: ix.n, diagnostics: await lazyDiagnostics(ix, blobStoreOf(blobs)) };
}

export async function doctorCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { json: { type: 'boolean' }, blobs: { type: 'string' }, session: { type: 'string' }, pretty: { type: 'boolean' } }, USAGE.doctor, io);
  if (!args) return 0;
  const { values, file, format } = args;
  if (format === 'dsh') {
    refuseBlobs(values, USAGE.doctor);
    return dshDoctor(file, values.session as string | undefined, values.json === true, values.pretty === true, io, USAGE.doctor);
  }
  refuseDshOptions(values, USAGE.doctor);
  return reportDoctor(io, file, await doctorFacts(file, values.blobs), values.json === true, values.pretty === true);
}

/** Prints doctor's report of an xcsh file's facts (with the byte audit and temp files beside it); the exit code. */
export async function reportDoctor(io: Io, file: string, facts: DoctorFacts, json: boolean, pretty: boolean): Promise<number> {
  // invalid UTF-8 and unsafe integers: what a JSON reader cannot give back (a byte scan, doctor only)
  const all = facts.onDisk ? [...facts.diagnostics, ...(await auditSessionBytes(file))].sort((a, b) => a.line - b.line) : facts.diagnostics;
  const diagnostics = [...all, ...(await tempFileDiagnostics(file))].map((d) => ({ ...d, severity: severityOf(d.kind) }));
  // info-level notes (a BOM, the oh-my-pi title line, blank lines) are reported, not findings
  const findings = diagnostics.filter((d) => d.severity !== 'info').length;
  // Without a header there is no version to report: the loader's 1 ("absent = 1") is what it
  // migrates from, not something the file says (issue 14 §7).
  const header = facts.version !== null ? 'present' : 'missing';
  if (json) {
    writeJson(
      io,
      { file, readOnlyReason: facts.readOnlyReason, header, version: facts.version, entries: facts.entries, findings, diagnostics },
      pretty,
    );
  } else {
    for (const d of diagnostics) io.err(`${diagnosticLine(file, d)} (${d.severity})\n`);
    const shown = escapeForTerminal(file);
    const found = `${findings} finding${findings === 1 ? '' : 's'}`;
    if (facts.empty) io.err(`${shown}: empty file (0 bytes): no session in it yet${findings === 0 ? '' : `; ${found}`}\n`);
    else if (header === 'missing') io.err(`${shown}: no header (damaged, read-only; ${facts.entries} entries); ${found}\n`);
    else io.err(findings === 0 ? `${shown}: clean (${facts.entries} entries)\n` : `${shown}: ${found}\n`);
  }
  return findings === 0 ? 0 : 1;
}
