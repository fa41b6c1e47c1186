// session-loom: the core's command line. JSON on stdout; human messages and errors on stderr as
// `file:line: message`, or `file: message` for what concerns the whole file (missing, live,
// read-only…: no line to point at, and `:1:` would name one); exit 0 on success, 1 on an error
// (or doctor findings), 2 on bad usage.
import { contextCommand, doctorCommand, entriesCommand, eventsCommand, lsCommand, treeCommand, USAGE as READ } from './commands/read';
import { historyCommand, QUERY_HELP, searchCommand, USAGE as FIND } from './commands/searchHistory';
import { exportCommand, forkCommand, USAGE as SHARE } from './commands/share';
import { FORCE_HELP, migrateCommand, relabelCommand, titleCommand, USAGE as WRITE } from './commands/write';
import { escapeForTerminal, escapeLinesForTerminal } from './terminalText';
import { CliError, processIo, UsageError, type Io } from './util';

const COMMANDS: Record<string, (argv: string[], io: Io) => Promise<number>> = {
  context: contextCommand,
  entries: entriesCommand,
  events: eventsCommand,
  tree: treeCommand,
  ls: lsCommand,
  doctor: doctorCommand,
  search: searchCommand,
  history: historyCommand,
  migrate: migrateCommand,
  relabel: relabelCommand,
  title: titleCommand,
  export: exportCommand,
  fork: forkCommand,
};

export const HELP = `session-loom — view and safely edit coding-agent session files (xcsh, pi, oh-my-pi),\nand view deepseek-harness (dsh) logs read-only (raw, .jsonl.zstd, SQLite stores)

${READ.context}
    the model context at a leaf (default: the last entry in file order) as JSON
${READ.entries}
    {header, entries, diagnostics, leafId} after in-memory migration (holds the whole file: it prints
    every entry; context, tree and doctor read a v3 session in windows instead)
${READ.events}
    a deepseek-harness log: {format, header, state, events, closers, diagnostics} (closers: the
    synthetic events of an interrupted turn, applied in memory and never written)
${READ.tree}
    the branch tree as indented text (labels in [brackets], the default leaf marked); a dsh log
    as turns → steps → events
${READ.ls}
    sessions grouped by project (default roots: ~/.xcsh/agent/sessions, and ~/.omp/agent/sessions,
    ~/.pi/agent/sessions, ~/.dsh/sessions when present); nothing found: where it looked, on stderr
${READ.doctor}
    diagnostics; exit 0 when clean, 1 when there are findings (a file without a header: "header":
    "missing", "version": null)
${FIND.search}
    full-text search across every session (an index kept in ~/.cache/session-loom, built on first use)
    ${QUERY_HELP.replace(/\n/g, '\n    ')}
${FIND.history}
    the agent's prompt history (~/.xcsh/agent/history.db), newest first, read-only
${SHARE.export}
    the context at a leaf (default: the last entry) as Markdown (what the model sees, like /dump)
    or as one self-contained HTML page that works offline (the whole tree, or --branch: the
    path to the leaf only); stdout unless -o names a new file
${SHARE.fork}
    a new v3 session file beside the source (or at -o) with the root → entry path, a fresh id,
    parentSession = the source's id; the source is never written
${WRITE.migrate}
    rewrite a v1/v2 file as v3 (atomic; unparsable lines kept verbatim in place)
${WRITE.relabel}
    append a label entry
${WRITE.title}
    set the session title (replaces the header line only; every other byte kept)

${FORCE_HELP}
`;

export async function run(argv: string[], io: Io = processIo): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.out(HELP);
    return cmd === undefined ? 2 : 0;
  }
  const fn = COMMANDS[cmd];
  if (!fn) {
    io.err(`session-loom: unknown command "${escapeForTerminal(cmd)}"\n\n${HELP}`);
    return 2;
  }
  try {
    return await fn(rest, io);
  } catch (e) {
    // The file name and the message carry text from paths and files: escaped (terminalText.ts).
    // A usage error's own line breaks (message, then the usage) are kept; its pieces from the
    // command line were escaped where it was made.
    if (e instanceof CliError) {
      const where = e.file !== null ? `${escapeForTerminal(e.file)}${e.line > 0 ? `:${e.line}` : ''}: ` : 'session-loom: ';
      io.err(`${where}${e instanceof UsageError ? escapeLinesForTerminal(e.message) : escapeForTerminal(e.message)}\n`);
      return e.exitCode;
    }
    const err = e as NodeJS.ErrnoException;
    const file = rest.find((a) => !a.startsWith('-'));
    io.err(`${file ? `${escapeForTerminal(file)}: ` : 'session-loom: '}${err.code ? `${escapeForTerminal(err.code)}: ` : ''}${escapeForTerminal(err.message ?? String(e))}\n`);
    return 1;
  }
}

if (require.main === module) {
  // `session-loom … | head` closes the pipe early: that is not an error worth a stack trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  run(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`session-loom: ${escapeForTerminal(String(e))}\n`);
      process.exitCode = 1;
    },
  );
}
