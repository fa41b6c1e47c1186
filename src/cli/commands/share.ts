// Subcommands that make something new from a session without touching it (issue 13): export (the
// context at a leaf as Markdown or a self-contained HTML page) and fork (a new session file with
// the root → entry path). Neither writes to the source (Part C §1).
import { writeFile } from 'node:fs/promises';
import { contextMarkdown } from '../../core/export/contextMarkdown';
import { buildExportData } from '../../core/export/exportData';
import { readExportAssets, renderExportHtml } from '../../core/export/htmlExport';
import { forkSessionFile, ForkRefusedError } from '../../core/fork/forkSession';
import { RewriteRefusedError } from '../../core/store/rewrite';
import { escapeDocumentForTerminal, escapeForTerminal } from '../terminalText';
import { CliError, errorText, UsageError, writeJson, type Io } from '../util';
import { parseFileCommand } from '../fileArgs';
import { openForCommand, refuseCommand } from './read';
import { PRIVATE_FILE_MODE } from '../../core/store/privateDir';
import { USAGE } from '../usage';

export async function exportCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(
    argv,
    { leaf: { type: 'string' }, format: { type: 'string' }, branch: { type: 'boolean' }, output: { type: 'string', short: 'o' }, blobs: { type: 'string' }, session: { type: 'string' } },
    USAGE.export,
    io,
  );
  if (!args) return 0;
  const { values, file } = args;
  const format = values.format;
  if (format !== 'md' && format !== 'html') throw new UsageError(`--format must be md or html\n${USAGE.export}`);
  const blobDir = typeof values.blobs === 'string' ? values.blobs : undefined;
  const leafArg = typeof values.leaf === 'string' ? values.leaf : undefined;
  if (values.branch && format !== 'html') throw new UsageError(`--branch is for --format html (the Markdown is always one branch)\n${USAGE.export}`);
  // --session picks one session of a store (a dsh SQLite store), as for context, events, tree and
  // doctor: the reader refuses it where it does not apply; a store without it lists its sessions (exit 2).
  let text: string;
  const model = await openForCommand('export', args, USAGE.export, io, blobDir ? { blobDir } : {});
  if (typeof model === 'number') return model;
  try {
    if (leafArg !== undefined && !(await model.has(leafArg))) throw new CliError(`no entry with id "${leafArg}"`, file, 0);
    if (format === 'md') text = await contextMarkdown(model, leafArg);
    else {
      // dist/cli.js: the webview bundle and the codicons are built beside it (esbuild.mjs)
      const data = await buildExportData(model, { leafId: leafArg ?? null, scope: values.branch ? 'branch' : 'session' });
      text = renderExportHtml(data, await readExportAssets(__dirname));
    }
  } finally {
    model.dispose();
  }
  const out = values.output;
  if (typeof out === 'string') {
    // a new file only: an export never replaces a file (the session itself included)
    await writeFile(out, text, { flag: 'wx', mode: PRIVATE_FILE_MODE }).catch((e: NodeJS.ErrnoException) => {
      throw new CliError(e.code === 'EEXIST' ? 'the output file exists; an export never overwrites' : errorText(e), out, 0);
    });
    io.err(`${escapeForTerminal(out)}: written (${Buffer.byteLength(text)} bytes)\n`);
  } else if (format === 'md' && io.isTerminal) {
    // Markdown on a terminal is read there: the tool output, titles and cwd in it may carry escape
    // sequences (OSC 52 sets the clipboard, OSC 0 the title, CSI 2J/3J clears the screen), shown
    // escaped as every other command shows them. To a pipe it is the Markdown as is, as with -o.
    // (The HTML page is not meant for a terminal; it is written as is.)
    io.out(escapeDocumentForTerminal(text));
  } else io.out(text);
  return 0;
}

export async function forkCommand(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { output: { type: 'string', short: 'o' }, pretty: { type: 'boolean' } }, USAGE.fork, io, { positionals: 2 });
  if (!args) return 0;
  const { values, positionals, file } = args;
  const entryId = positionals[1];
  if (!entryId) throw new UsageError(`missing <entryId>\n${USAGE.fork}`);
  refuseCommand('fork', args);
  try {
    const r = await forkSessionFile(file, entryId, typeof values.output === 'string' ? { outPath: values.output } : {});
    writeJson(io, { file: r.path, sessionId: r.header.id, parentSession: r.header.parentSession, title: r.header.title, entries: r.entries.length, pathLength: r.pathLength, labelsCarried: r.labelsCarried }, values.pretty === true);
    return 0;
  } catch (e) {
    if (e instanceof ForkRefusedError) throw new CliError(e.message, e.path ?? file, 0);
    if (e instanceof RewriteRefusedError) throw new CliError(e.message, e.path ?? file, 0);
    throw e;
  }
}
