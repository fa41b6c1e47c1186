// session-loom: the core's command line. JSON on stdout; human messages and errors on stderr as
// `file:line: message`, or `file: message` for what concerns the whole file (missing, live,
// read-only…: no line to point at, and `:1:` would name one); exit 0 on success (nothing found
// included: ls, search and history say on stderr where they looked), 1 on an error (or doctor
// findings), 2 on bad usage (one line, then the command's usage or the way to --help).
import { escapeForTerminal, escapeLinesForTerminal } from './terminalText';
import { FORCE_HELP, QUERY_HELP, USAGE } from './usage';
import { CliError, errorText, processIo, UsageError, wrapText, type Io } from './util';

type Command = (argv: string[], io: Io) => Promise<number>;

/**
 * Each command's module is loaded when it runs, not before: the bundle (dist/cli.js) evaluates only
 * what the command needs (esbuild keeps the top level of a module reached only by require() lazy). A search
 * at the terminal was paying ~50 ms to set up every reader, model and writer of the CLI first.
 */
const lazy =
  <K extends string>(load: () => Record<K, Command>, name: K): Command =>
  (argv, io) =>
    load()[name](argv, io);
/* eslint-disable @typescript-eslint/no-require-imports -- a require() is what esbuild leaves lazy in a CommonJS bundle */
const read = (): typeof import('./commands/read') => require('./commands/read');
const share = (): typeof import('./commands/share') => require('./commands/share');
const write = (): typeof import('./commands/write') => require('./commands/write');
const search = (): typeof import('./commands/search') => require('./commands/search');
const history = (): typeof import('./commands/history') => require('./commands/history');
/* eslint-enable @typescript-eslint/no-require-imports */

const COMMANDS: Record<string, Command> = {
  context: lazy(read, 'contextCommand'),
  entries: lazy(read, 'entriesCommand'),
  events: lazy(read, 'eventsCommand'),
  tree: lazy(read, 'treeCommand'),
  ls: lazy(read, 'lsCommand'),
  doctor: lazy(read, 'doctorCommand'),
  search: lazy(search, 'searchCommand'),
  history: lazy(history, 'historyCommand'),
  migrate: lazy(write, 'migrateCommand'),
  relabel: lazy(write, 'relabelCommand'),
  title: lazy(write, 'titleCommand'),
  export: lazy(share, 'exportCommand'),
  fork: lazy(share, 'forkCommand'),
};

/** A command's usage line (kept whole: the README's synopsis is these lines) and its description, wrapped. */
const command = (usage: string, description: string): string => `${usage}\n${wrapText(description, { indent: '    ' })}\n`;

/** Every line at most HELP_WIDTH columns, but the usage lines (test/cli/helpAndReadme.test.ts). */
export const HELP =
  wrapText(
    'session-loom — view and safely edit coding-agent session files (xcsh, pi, oh-my-pi), and view deepseek-harness (dsh) ' +
      'logs read-only (raw, .jsonl.zstd, SQLite stores). JSON goes to stdout, messages to stderr as "file:line: message". ' +
      'Exit status: 0 on success, also when nothing is found (ls, search and history then say on stderr where they looked); ' +
      '1 on an error (a missing file, or a <file> that is not a session: a binary, an image, JSON that is not session ' +
      'records) and when doctor has findings; 2 on bad usage (an unknown command or option, an extra argument, an option ' +
      "that does not apply). session-loom <command> --help: one command's usage; session-loom --version (or -V): the version.",
  ) +
  '\n\n' +
  command(USAGE.context, 'the model context at a leaf (default: the last entry in file order) as JSON; a dsh log takes --at <seq> instead of --leaf') +
  command(USAGE.entries, '{header, entries, diagnostics, leafId} after in-memory migration (holds the whole file: it prints every entry; context, tree and doctor read a v3 session in windows instead)') +
  command(
    USAGE.events,
    'a deepseek-harness log: {format, header, state, events, closers, diagnostics} (closers: the synthetic events of an interrupted turn, applied in memory and never written); ' +
      "--session picks one session of a dsh SQLite store (without it, exit 2 and the store's sessions)",
  ) +
  command(USAGE.tree, 'the branch tree as text: the path to the default leaf at one level, each side branch indented under the entry it forks from (labels in [brackets], the default leaf marked); a dsh log as turns → steps → events') +
  command(
    USAGE.ls,
    'sessions grouped by project (their cwd), subagents and forks indented under their session (default roots: ~/.xcsh/agent/sessions, and ~/.omp/agent/sessions, ~/.pi/agent/sessions, ~/.dsh/sessions, ' +
      'Claude Code\'s ~/.claude/projects ($CLAUDE_CONFIG_DIR/projects) and Codex\'s ~/.codex/sessions and ~/.codex/archived_sessions ($CODEX_HOME) when present; those two read-only, marked [claude] and [codex]); ' +
      'nothing found: exit 0, and where it looked on stderr',
  ) +
  command(USAGE.doctor, 'diagnostics; exit 0 when clean, 1 when there are findings (a file without a header says "header": "missing" and "version": null)') +
  command(
    USAGE.search,
    'full-text search across every session (an index kept in ~/.cache/session-loom, built on first use); no match: exit 0, and the roots it searched on stderr; ' +
      'a search leaves a server in the background that answers the next ones faster and stops after 10 idle minutes (SESSION_LOOM_SEARCH_SERVER=0: none)',
  ) +
  `${wrapText(QUERY_HELP, { indent: '      ', hang: ' '.repeat(6 + 'query: '.length) })}\n` +
  command(
    USAGE.history,
    "the agent's prompt history (~/.xcsh/agent/history.db, else ~/.omp's or ~/.pi's), newest first, read-only; no history database: exit 0, and where it looked on stderr",
  ) +
  command(
    USAGE.export,
    'the context at a leaf (default: the last entry) as Markdown (what the model sees, like /dump) or as one self-contained HTML page that works offline ' +
      '(the whole tree, or --branch: the path to the leaf only); stdout unless -o names a new file (Markdown shown on a terminal ' +
      'has its control characters escaped; to a pipe or a file it is written as is); --session picks one session of a dsh SQLite store',
  ) +
  command(USAGE.fork, "a new v3 session file beside the source (or at -o) with the root → entry path, a fresh id, parentSession = the source's id; the source is never written") +
  command(USAGE.migrate, 'rewrite a v1/v2 file as v3 (atomic; unparsable lines kept verbatim in place)') +
  command(USAGE.relabel, 'append a label entry') +
  command(USAGE.title, 'set the session title (replaces the header line only; every other byte kept)') +
  `\n${FORCE_HELP}\n`;

/** The version of package.json, put in by the build (esbuild.mjs `define`); `dev` when run from source. */
declare const SESSION_LOOM_VERSION: string | undefined;
export const VERSION = typeof SESSION_LOOM_VERSION === 'string' ? SESSION_LOOM_VERSION : 'dev';

/** The second line of every usage error from the command line itself: the way to the help. */
const HELP_HINT = "Run 'session-loom --help' for usage.";

export async function run(argv: string[], io: Io = processIo): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.out(HELP);
    return 0;
  }
  if (cmd === '--version' || cmd === '-V') {
    io.out(`session-loom ${VERSION}\n`);
    return 0;
  }
  if (cmd === undefined) {
    io.err(`usage: session-loom <command> [<args>]   (commands: ${Object.keys(COMMANDS).join(', ')})\n${HELP_HINT}\n`);
    return 2;
  }
  const fn = COMMANDS[cmd];
  if (!fn) {
    io.err(`session-loom: unknown ${cmd.startsWith('-') ? 'option' : 'command'} "${escapeForTerminal(cmd)}"\n${HELP_HINT}\n`);
    return 2;
  }
  // A fresh Io per run: the command notes on it the file it is about (io.subject).
  const cio: Io = { out: (t) => io.out(t), err: (t) => io.err(t), isTerminal: io.isTerminal === true };
  try {
    return await fn(rest, cio);
  } catch (e) {
    // The file name and the message carry text from paths and files: escaped (terminalText.ts).
    // A usage error's own line breaks (message, then the usage) are kept; its pieces from the
    // command line were escaped where it was made.
    if (e instanceof CliError) {
      const where = e.file !== null ? `${escapeForTerminal(e.file)}${e.line > 0 ? `:${e.line}` : ''}: ` : 'session-loom: ';
      io.err(`${where}${e instanceof UsageError ? escapeLinesForTerminal(e.message) : escapeForTerminal(e.message)}\n`);
      return e.exitCode;
    }
    // Anything else is blamed on the path it names (a system error carries one: the cache folder,
    // an output file…), else on the file the command is about, else on no file at all — never on
    // whichever argument came first.
    const path = (e as NodeJS.ErrnoException | null)?.path;
    const file = typeof path === 'string' ? path : cio.subject;
    io.err(`${file !== undefined ? `${escapeForTerminal(file)}: ` : 'session-loom: '}${escapeForTerminal(errorText(e))}\n`);
    return 1;
  }
}

/**
 * The process around a run: its arguments, its exit status, and a closed pipe (`session-loom … |
 * head`), which is not an error worth a stack trace. Resolves when the command is done.
 */
export async function main(): Promise<void> {
  // The search server (searchServer.ts), started in the background by a search: not a command of the CLI's usage.
  if (process.argv[2] === '--search-server' && process.argv.length === 3) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only in the server
    return (require('./searchServer') as typeof import('./searchServer')).serveSearch();
  }
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  await run(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`session-loom: ${escapeForTerminal(String(e))}\n`);
      process.exitCode = 1;
    },
  );
}

// dist/cli.js (src/cli/launch.ts) runs this bundle through V8's code cache and calls main();
// run directly (`node dist/cliMain.js`, or from source), it starts itself.
if (require.main === module) void main();
