// The CLI on deepseek-harness logs (issue 10): `events`, and the dsh side of `context`, `tree`
// and `doctor`. Read-only: nothing here opens a file for writing. A SQLite store holds many
// sessions: `--session <id>` picks one; without it the store's sessions are listed (exit 2).
import { DshModel } from '../../core/engine/dsh/dshModel';
import { severityOf } from '../../core/diagnostics';
import { dshContextAt, DshSessionNotFoundError, eventsWithClosers, listDshDatabaseSessions, loadDshSource, type DshLog } from '../../core/formats/dsh/index';
import { startsWithSqliteMagic } from '../../core/formats/detect';
import { readFileHead } from '../../core/store/fileHead';
import { escapeForTerminal } from '../terminalText';
import { CliError, UsageError, writeJson, type Io } from '../util';

/** A SQLite store given without `--session`: its sessions, and exit 2 (a choice is needed). */
export async function listStoreSessions(file: string, io: Io, usage: string): Promise<number> {
  const sessions = await listDshDatabaseSessions(file);
  io.err(`${escapeForTerminal(file)}: a dsh SQLite store with ${sessions.length} session${sessions.length === 1 ? '' : 's'}; pick one with --session <id>\n${usage}\n`);
  writeJson(io, { format: 'dsh', store: file, sessions }, false);
  return 2;
}

async function isStore(file: string): Promise<boolean> {
  return startsWithSqliteMagic((await readFileHead(file, 16)).data);
}

/**
 * `--session <id>` picks one session of a SQLite store: on a log file (raw or .jsonl.zstd, one
 * session) it is a usage error, not silently ignored. True when the file is a store.
 */
export async function checkSessionOption(file: string, session: string | undefined, usage: string): Promise<boolean> {
  const store = await isStore(file);
  if (session !== undefined && !store) throw new UsageError(`--session picks a session of a dsh SQLite store; ${escapeForTerminal(file)} is a dsh log of one session\n${usage}`);
  return store;
}

/** The log of a dsh file, or of one session of a store; null when a store needs `--session`. */
async function loadLog(file: string, session: string | undefined, usage: string): Promise<DshLog | null> {
  if ((await checkSessionOption(file, session, usage)) && session === undefined) return null;
  try {
    return await loadDshSource(file, session !== undefined ? { session } : {});
  } catch (e) {
    if (e instanceof DshSessionNotFoundError) throw new CliError(e.message.slice(file.length + 2), file, 0);
    throw e;
  }
}

function warn(io: Io, file: string, log: DshLog): void {
  for (const d of log.diagnostics) if (severityOf(d.kind) !== 'info') io.err(`${escapeForTerminal(file)}:${d.line > 0 ? d.line : 1}: ${d.kind}: ${escapeForTerminal(d.message)}\n`);
}

export async function dshEvents(file: string, session: string | undefined, pretty: boolean, io: Io, usage: string): Promise<number> {
  const log = await loadLog(file, session, usage);
  if (!log) return listStoreSessions(file, io, usage);
  warn(io, file, log);
  writeJson(io, { format: 'dsh', header: log.header, state: log.state, events: eventsWithClosers(log), closers: log.closers.length, diagnostics: log.diagnostics }, pretty);
  return 0;
}

export async function dshContext(file: string, at: string | undefined, session: string | undefined, pretty: boolean, io: Io, usage: string): Promise<number> {
  const log = await loadLog(file, session, usage);
  if (!log) return listStoreSessions(file, io, usage);
  const last = log.events.length + log.closers.length - 1;
  let seq: number | undefined;
  if (at !== undefined) {
    seq = Number(at);
    if (!Number.isInteger(seq) || seq < 0 || seq > last) throw new CliError(`no event with seq ${JSON.stringify(at)} (the log has seqs 0–${last})`, file, 0);
  }
  warn(io, file, log);
  const ctx = dshContextAt(log, seq);
  writeJson(io, { format: 'dsh', at: ctx.at, messages: ctx.messages, system: ctx.system, tools: ctx.tools, model: ctx.model }, pretty);
  return 0;
}

/** Turns → steps → events, indented; a run of streamed chunks is one line. */
export async function dshTree(file: string, session: string | undefined, json: boolean, pretty: boolean, io: Io, usage: string): Promise<number> {
  if ((await checkSessionOption(file, session, usage)) && session === undefined) return listStoreSessions(file, io, usage);
  const model = await DshModel.open(file, session !== undefined ? { session } : {});
  const { rows } = await model.tree({ filter: 'all', search: '', leafId: null, focusEntryId: null, start: 0, count: Number.MAX_SAFE_INTEGER });
  const shown = rows.filter((r) => r.kind !== 'chunk');
  if (json) {
    writeJson(io, { format: 'dsh', state: model.log.state, rows: shown.map((r) => ({ id: r.entryId, depth: r.depth, kind: r.kind, text: r.text, ...(r.label ? { label: r.label } : {}) })) }, pretty);
    return 0;
  }
  warn(io, file, model.log);
  let out = '';
  for (const r of shown) out += `${'  '.repeat(r.depth)}${escapeForTerminal(r.entryId)} ${escapeForTerminal(r.kind)}: ${escapeForTerminal(r.text)}${r.label ? ` [${escapeForTerminal(r.label)}]` : ''}\n`;
  io.out(out);
  return 0;
}

/** Every diagnostic with its line, byte offset or seq; exit 1 on a torn or corrupt log (or any finding). */
export async function dshDoctor(file: string, session: string | undefined, json: boolean, pretty: boolean, io: Io, usage: string): Promise<number> {
  const log = await loadLog(file, session, usage);
  if (!log) return listStoreSessions(file, io, usage);
  const diagnostics = log.diagnostics.map((d) => ({ ...d, severity: severityOf(d.kind) }));
  const findings = diagnostics.filter((d) => d.severity !== 'info').length;
  const bad = log.state === 'torn' || log.state === 'corrupt';
  if (json) {
    writeJson(io, { file, format: 'dsh', state: log.state, events: log.events.length, closers: log.closers.length, findings, diagnostics }, pretty);
  } else {
    const shown = escapeForTerminal(file);
    for (const d of diagnostics) {
      const where = [d.offset !== undefined ? `byte ${d.offset}` : null, d.seq !== undefined ? `seq ${d.seq}` : null].filter(Boolean).join(', ');
      io.err(`${shown}:${d.line > 0 ? d.line : 1}: ${d.kind}: ${escapeForTerminal(d.message)}${where ? ` (${where})` : ''} (${d.severity})\n`);
    }
    io.err(`${shown}: dsh log, ${log.state}; ${log.events.length} events${log.closers.length ? ` + ${log.closers.length} closers in memory` : ''}; ${findings === 0 ? 'no findings' : `${findings} finding${findings === 1 ? '' : 's'}`}\n`);
  }
  return findings === 0 && !bad ? 0 : 1;
}
