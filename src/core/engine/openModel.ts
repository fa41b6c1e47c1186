// Opens the session model of a file, choosing the format by content, never by name alone
// (issue 10): a Codex rollout (its session_meta first, plain or zstd) is Codex's, another zstd
// frame or an SQLite store is dsh's, a first record with dsh's header is dsh's, anything else is
// read as xcsh (which shows damaged files as damaged).
//
// Everything that differs between formats lives behind a model, and the little a caller must know
// before opening one lives here, in the format's reader (issue 23): which commands and options it
// has no answer to (and the sentence saying so), and whether the file holds several sessions of
// which one must be chosen. The CLI asks these and the model's documents; it never branches on
// the format itself.
import { CLAUDE_READ_ONLY_REASON } from '../formats/claude/detect';
import { CODEX_READ_ONLY_REASON, startsWithSqliteMagic, type SessionFormat } from '../formats/detect';
import { DshSessionNotFoundError, listDshDatabaseSessions } from '../formats/dsh/index';
import { sniffSessionFile } from '../formats/sniff';
import { readFileHead } from '../store/fileHead';
import { OptionError, TargetError, type OptionValues } from './documents';
import type { LocalSessionModel, ModelOptions } from './model';
import { ClaudeModel } from './claude/claudeModel';
import { CodexModel } from './codex/codexModel';
import { DshModel } from './dsh/dshModel';
import { LazyXcshModel } from './xcsh/lazy/lazyModel';
import { countMessages } from '../formats/xcsh/countMessages';
import type { TailPeek } from '../../protocol/messages';
import { peekSessionTail } from './xcsh/tailPeek';
import { peekClaudeTail } from './claude/claudePeek';
import { peekCodexTail } from './codex/codexPeek';

/**
 * The format of a session file, from its first bytes (formats/sniff.ts decides, for every reader).
 * A file that is not a session at all is read as xcsh, which shows it as damaged; the CLI refuses
 * it first (sniffSessionFile).
 */
export async function detectFileFormat(path: string): Promise<SessionFormat> {
  const sniff = await sniffSessionFile(path);
  return sniff.kind === 'session' ? sniff.format : 'xcsh';
}

/** The commands that read a session file (the CLI's). */
export type SessionCommand = 'context' | 'entries' | 'events' | 'tree' | 'doctor' | 'export' | 'fork' | 'migrate' | 'relabel' | 'title';

/** A command the format has no answer to: a usage error (another command answers), or a refusal. */
export interface CommandRefusal {
  usage: boolean;
  message: string;
}

/** A file of several sessions opened without choosing one: what to say, and the sessions as data. */
export interface SessionChoice {
  message: string;
  json: unknown;
}

export interface SessionReader {
  readonly format: SessionFormat;
  /** Null when the format answers the command. */
  refuseCommand(command: SessionCommand, path: string): CommandRefusal | null;
  /** The sentence refusing the first option of another format the command was given, or null. */
  foreignOption(command: SessionCommand, options: OptionValues): string | null;
  /**
   * A file that holds several sessions, opened without `--session`: the choice to offer (null when
   * there is nothing to choose). Throws OptionError for a session named in a file of one session.
   */
  chooseSession(path: string, session: string | undefined): Promise<SessionChoice | null>;
  /** The model. Throws TargetError when the session named is not in the file. */
  open(path: string, opts: ModelOptions): Promise<LocalSessionModel>;
  /** How many messages the file holds, the number its model's summary gives (a Sessions row's count, issue 14). */
  countMessages(path: string): Promise<number>;
  /**
   * Whether its model lists the session's branch rows for the Sessions view (`segments`, `runEntries`).
   * A format without them (dsh's turns) shows its entries in the editor; its Sessions row holds
   * only its subagents and forks.
   */
  readonly branchRowsInView: boolean;
  /**
   * The latest messages of the conversation the file ends on, read from its last bytes while the
   * whole file is read (the editor's and the Sessions view's first paint of a big session); absent
   * for a format without one.
   */
  peekTail?(path: string): Promise<TailPeek | null>;
}

/** The message count of a model's summary, the model let go after. */
async function countBySummary(reader: Pick<SessionReader, 'open'>, path: string): Promise<number> {
  const model = await reader.open(path, {});
  try {
    return (await model.summary()).totals.messages;
  } finally {
    model.dispose();
  }
}

const NOT_DSH = (o: string): string => `--${o} is for deepseek-harness (dsh) logs; this is an xcsh session file`;

const xcshReader: SessionReader = {
  format: 'xcsh',
  refuseCommand: (command, path) =>
    command === 'events' ? { usage: true, message: `${path} is an xcsh session file, not a deepseek-harness (dsh) log: use "session-loom entries" for its entries` } : null,
  foreignOption: (_command, options) => {
    for (const o of ['at', 'session']) if (options[o] !== undefined) return NOT_DSH(o);
    return null;
  },
  chooseSession: async () => null,
  open: (path, opts) => LazyXcshModel.open(path, opts),
  countMessages: (path) => countMessages(path),
  branchRowsInView: true,
  peekTail: (path) => peekSessionTail(path),
};

const dshReader: SessionReader = {
  format: 'dsh',
  refuseCommand: (command, path) => {
    if (command === 'entries') return { usage: true, message: `${path} is a deepseek-harness (dsh) log: use "session-loom events" for its events` };
    if (command === 'fork') return { usage: false, message: 'a deepseek-harness (dsh) log is read-only: it cannot be forked' };
    return null;
  },
  foreignOption: (command, options) => {
    if (command === 'context' && options.leaf !== undefined) return '--leaf names an xcsh entry; a dsh log takes --at <seq>';
    if (options.blobs !== undefined) return '--blobs is for xcsh session files; a deepseek-harness (dsh) log has no blob store';
    return null;
  },
  // An SQLite store holds many sessions: `--session <id>` picks one; without it, its sessions are listed.
  chooseSession: async (path, session) => {
    const store = startsWithSqliteMagic((await readFileHead(path, 16)).data);
    if (session !== undefined && !store) throw new OptionError(`--session picks a session of a dsh SQLite store; ${path} is a dsh log of one session`);
    if (!store || session !== undefined) return null;
    const sessions = await listDshDatabaseSessions(path);
    return { message: `a dsh SQLite store with ${sessions.length} session${sessions.length === 1 ? '' : 's'}; pick one with --session <id>`, json: { format: 'dsh', store: path, sessions } };
  },
  open: (path, opts) =>
    DshModel.open(path, opts).catch((e: unknown) => {
      if (e instanceof DshSessionNotFoundError) throw new TargetError(e.message.slice(path.length + 2), path);
      throw e;
    }),
  countMessages(path) {
    return countBySummary(this, path);
  },
  branchRowsInView: false,
};

/** Another agent's log, read-only: its records are `entries`, and every write and `--at`/`--session`/`--blobs` are refused. */
function foreignAgentReader(format: SessionFormat, noun: string, readOnlyReason: string, options: Record<string, string>, open: SessionReader['open'], peekTail?: SessionReader['peekTail']): SessionReader {
  return {
    ...(peekTail ? { peekTail } : {}),
    format,
    refuseCommand: (command, path) => {
      if (command === 'events') return { usage: true, message: `${path} is ${noun}: use "session-loom entries" for its records` };
      if (command === 'fork') return { usage: false, message: `${noun} is read-only: it cannot be forked` };
      if (command === 'migrate' || command === 'relabel' || command === 'title') return { usage: false, message: `cannot ${command === 'title' ? 'set the title' : command}: ${readOnlyReason}` };
      return null;
    },
    foreignOption: (_command, values) => {
      for (const o of ['at', 'session', 'blobs']) if (values[o] !== undefined) return options[o]!;
      return null;
    },
    chooseSession: async () => null,
    open,
    countMessages: (path) => countBySummary({ open }, path),
    branchRowsInView: true,
  };
}

const codexReader = foreignAgentReader(
  'codex',
  'an OpenAI Codex CLI rollout',
  CODEX_READ_ONLY_REASON,
  {
    at: '--at is for deepseek-harness (dsh) logs; a Codex rollout takes --leaf <node id>',
    session: '--session picks a session of a dsh SQLite store; a Codex rollout holds one session',
    blobs: '--blobs is for xcsh session files; a Codex rollout keeps its images inline',
  },
  (path, opts) => CodexModel.open(path, opts),
  (path) => peekCodexTail(path),
);

const claudeReader = foreignAgentReader(
  'claude',
  'a Claude Code transcript',
  CLAUDE_READ_ONLY_REASON,
  {
    at: '--at is for deepseek-harness (dsh) logs; a Claude Code transcript takes --leaf <uuid>',
    session: '--session picks a session of a dsh SQLite store; a Claude Code transcript holds one session',
    blobs: '--blobs is for xcsh session files; a Claude Code transcript keeps its images inline',
  },
  (path, opts) => ClaudeModel.open(path, opts),
  (path) => peekClaudeTail(path),
);

const READERS: Record<SessionFormat, SessionReader> = { xcsh: xcshReader, dsh: dshReader, codex: codexReader, claude: claudeReader };

/** The reader of a format. */
export function sessionReader(format: SessionFormat): SessionReader {
  return READERS[format];
}

/** How many messages a session file holds, counted by its format's reader. */
export async function countSessionMessages(path: string): Promise<number> {
  return sessionReader(await detectFileFormat(path)).countMessages(path);
}

/** A big session's latest messages, read from its end (its format's peekTail), or null. */
export async function peekSessionFile(path: string): Promise<TailPeek | null> {
  const reader = sessionReader(await detectFileFormat(path));
  return reader.peekTail ? reader.peekTail(path) : null;
}

/** The model of a session file: one per format (an xcsh file: a compact index, bodies on disk). */
export async function openSessionModel(path: string, opts: ModelOptions = {}): Promise<LocalSessionModel> {
  return sessionReader(await detectFileFormat(path)).open(path, opts);
}
