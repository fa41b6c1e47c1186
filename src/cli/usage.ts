// Every command's usage line and the help paragraphs the commands share: what `--help` prints
// without loading the commands themselves (main.ts loads only the command that runs).
import { wrapText } from './util';

export const USAGE = {
  context: 'usage: session-loom context <file> [--leaf <id>|null] [--blobs <dir>] [--pretty]   (dsh: [--at <seq>] [--session <id>])',
  entries: 'usage: session-loom entries <file> [--blobs <dir>] [--pretty]',
  events: 'usage: session-loom events <file> [--session <id>] [--pretty]',
  tree: 'usage: session-loom tree <file> [--json] [--pretty]   (dsh: [--session <id>])',
  ls: 'usage: session-loom ls [--root <dir>]... [--json] [--pretty]',
  doctor: 'usage: session-loom doctor <file> [--json] [--blobs <dir>] [--pretty]   (dsh: [--session <id>])',
  search: 'usage: session-loom search <query> [--root <dir>]... [--index <dir>] [--limit N] [--json] [--pretty]',
  history: 'usage: session-loom history [--db <path>]... [--search <query>] [--cwd <dir>] [--limit N] [--locate] [--root <dir>]... [--json] [--pretty]',
  export: 'usage: session-loom export <file> [--leaf <id>] --format md|html [--branch] [-o <out>] [--blobs <dir>]   (dsh: [--session <id>])',
  fork: 'usage: session-loom fork <file> <entryId> [-o <out>] [--pretty]',
  migrate: 'usage: session-loom migrate <file> [--dry-run] [--backup] [--force] [--pretty]',
  relabel: 'usage: session-loom relabel <file> <entryId> (<label> | --clear) [--force] [--pretty]',
  title: 'usage: session-loom title <file> <title> [--force] [--backup] [--pretty]',
};

/** The query language, one paragraph (wrapped where it is printed, `query: ` hanging). */
export const QUERY_HELP =
  'query: words (AND-ed, whole words), word* (prefix), "exact phrase", -exclude, role:user, tool:bash, project:<name>, agent:xcsh|dsh|claude|codex, after:2026-06-01, before:2026-07-01';

/** What every write refuses, and the one thing --force changes (in --help). */
export const FORCE_HELP = wrapText(
  'Writes refuse a file that looks live: named by a terminal breadcrumb, or modified in the last 5 seconds — ' +
    "unless the CLI's own last write left it so, or (Linux) no process has it open: a fresh copy is not a running session. " +
    '--force overrides exactly these two guesses. Nothing overrides the other refusals: the file changed since it was read ' +
    '(title reads it afresh), another process holds it open for writing (a rewrite would orphan what it appends), it is ' +
    'read-only (no owner write bit), damaged, a dsh log, or its header version is not 1, 2, 3 or absent; and migrate and ' +
    'title never rewrite a hard-linked file or one whose owner they cannot keep. Bytes appended while a file is rewritten ' +
    'are carried over into the new file ("carriedBytes").',
);
