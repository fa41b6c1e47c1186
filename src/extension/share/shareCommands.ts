// Export and fork from the session editor and the Sessions view (issue 13): Copy Context, Export
// Context as Markdown…, New Session from Here…, Copy Resume Command. Nothing here writes to the
// session a command acts on (Part C §1); a fork is a new file beside it.
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { contextMarkdown } from '../../core/export/contextMarkdown';
import { buildExportData } from '../../core/export/exportData';
import { readExportAssets, renderExportHtml } from '../../core/export/htmlExport';
import type { SessionModel } from '../../core/engine/model';
import { detectFileFormat, openSessionModel, sessionReader } from '../../core/engine/openModel';
import { resumeCommand } from '../../core/discovery/resume';
import { forkSessionFile, ForkRefusedError } from '../../core/fork/forkSession';
import { RewriteRefusedError } from '../../core/store/rewrite';
import { readNameFacts, readSessionName, sessionFileStem } from '../../core/sessionName';
import { activeEditor, editorOf } from '../editor/editorSelection';
import { isLoomNode, targetFiles } from '../commands/targets';
import { noteOwnWrite, requireTrust } from '../commands/guardedWrite';
import { prompts, reportingErrors } from '../commands/prompts';
import { revealAndSelect } from '../commands/viewCommands';
import type { SessionsTreeProvider } from '../sessions/sessionsTreeProvider';

/** The file and entry a command acts on; `entryId` null means the session's default leaf. */
export interface ShareTarget {
  file: string;
  entryId: string | null;
}

/**
 * From a Sessions-view entry or session row, a (file, entryId) pair from another command or a
 * test, a right click on a row of the editor's tree (`{webviewSection: 'entry', entryId}`), or
 * else the leaf the active session editor shows.
 */
export function shareTarget(provider: SessionsTreeProvider, arg: unknown, second: unknown): ShareTarget | undefined {
  if (isLoomNode(arg)) {
    if (arg.kind === 'entry') return { file: arg.session.file, entryId: arg.entryId };
    const file = targetFiles(provider, arg, undefined)[0];
    return file ? { file, entryId: null } : undefined;
  }
  if ((arg instanceof vscode.Uri && arg.scheme === 'file') || typeof arg === 'string') {
    const file = arg instanceof vscode.Uri ? arg.fsPath : path.resolve(arg);
    return { file, entryId: typeof second === 'string' ? second : (editorOf(file)?.leafId() ?? null) };
  }
  const editor = activeEditor();
  if (editor) {
    const fromMenu = typeof arg === 'object' && arg !== null ? (arg as { entryId?: unknown }).entryId : undefined;
    return { file: editor.uri.fsPath, entryId: typeof fromMenu === 'string' ? fromMenu : editor.leafId() };
  }
  const file = targetFiles(provider, undefined, undefined)[0];
  return file ? { file, entryId: null } : undefined;
}

function expandHome(p: string): string {
  return p.startsWith('~') ? path.join(os.homedir(), p.slice(1)) : p;
}

/** The model of an open editor of the file, or one loaded for this command (disposed after). */
async function withModel<T>(file: string, fn: (model: SessionModel) => Promise<T>): Promise<T> {
  const open = editorOf(file);
  if (open) return fn(await open.model());
  const blobDir = expandHome(vscode.workspace.getConfiguration('sessionLoom').get<string>('blobStore', '').trim());
  const model = await openSessionModel(file, { l10nT: vscode.l10n.t, ...(blobDir ? { blobDir } : {}) });
  try {
    return await fn(model);
  } finally {
    model.dispose();
  }
}

async function markdownOf(t: ShareTarget): Promise<string> {
  return withModel(t.file, async (model) => {
    if (t.entryId !== null && !(await model.has(t.entryId))) throw new Error(vscode.l10n.t('no entry {0} in {1}', t.entryId, path.basename(t.file)));
    return contextMarkdown(model, t.entryId ?? undefined, vscode.l10n.t);
  });
}

export async function copyContext(provider: SessionsTreeProvider, arg?: unknown, second?: unknown): Promise<string | undefined> {
  const t = shareTarget(provider, arg, second);
  if (!t) return void prompts.error(vscode.l10n.t('Copy Context: open a session or select an entry first.'));
  const md = await markdownOf(t);
  await vscode.env.clipboard.writeText(md);
  void vscode.window.setStatusBarMessage(vscode.l10n.t('Context copied as Markdown'), 3000);
  return md;
}

export async function exportContextMarkdown(provider: SessionsTreeProvider, arg?: unknown, second?: unknown): Promise<string | undefined> {
  const t = shareTarget(provider, arg, second);
  if (!t) return void prompts.error(vscode.l10n.t('Export Context as Markdown: open a session or select an entry first.'));
  const md = await markdownOf(t);
  const target = await saveTarget(t, vscode.l10n.t('Export Context as Markdown'), 'md', { Markdown: ['md'] });
  if (!target) return undefined;
  await vscode.workspace.fs.writeFile(target, Buffer.from(md, 'utf8'));
  return target.fsPath;
}

/** Asks where to save an export (never the session file itself). */
async function saveTarget(t: ShareTarget, title: string, ext: string, filters: Record<string, string[]>): Promise<vscode.Uri | undefined> {
  // Named by the session's title (issue 25), not its timestamped file name.
  const base = sessionFileStem(await readNameFacts(t.file));
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
  const target = await vscode.window.showSaveDialog({ title, defaultUri: vscode.Uri.joinPath(folder, `${base}${t.entryId ? `-${t.entryId}` : ''}.${ext}`), filters });
  if (target?.fsPath === t.file) return void prompts.error(vscode.l10n.t('{0}: the export cannot replace the session file.', title));
  return target;
}

export async function exportHtml(provider: SessionsTreeProvider, extensionUri: vscode.Uri, arg?: unknown, second?: unknown): Promise<string | undefined> {
  const title = vscode.l10n.t('Export Branch as HTML');
  const t = shareTarget(provider, arg, second);
  if (!t) return void prompts.error(vscode.l10n.t('{0}: open a session or select an entry first.', title));
  const whole = vscode.l10n.t('Whole session');
  const branch = vscode.l10n.t('This branch only');
  const scope = await vscode.window.showQuickPick([whole, branch], { title, placeHolder: vscode.l10n.t('What the page shows: every branch, or the path to the selected entry') });
  if (!scope) return undefined;
  const target = await saveTarget(t, title, 'html', { HTML: ['html'] });
  if (!target) return undefined;
  const html = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, () =>
    withModel(t.file, async (model) => {
      const data = await buildExportData(model, { leafId: t.entryId, scope: scope === branch ? 'branch' : 'session' });
      return renderExportHtml(data, await readExportAssets(vscode.Uri.joinPath(extensionUri, 'dist').fsPath), { lang: vscode.env.language, l10nBundle: vscode.l10n.bundle, l10nT: vscode.l10n.t });
    }),
  );
  await vscode.workspace.fs.writeFile(target, Buffer.from(html, 'utf8'));
  return target.fsPath;
}

export async function copyResumeCommand(provider: SessionsTreeProvider, arg?: unknown): Promise<string | undefined> {
  const t = shareTarget(provider, arg, undefined);
  if (!t) return void prompts.error(vscode.l10n.t('Copy Resume Command: open a session or select one in the Sessions view.'));
  const cmd = await resumeCommand(t.file);
  await vscode.env.clipboard.writeText(cmd);
  void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied: {0}', cmd), 3000);
  return cmd;
}

/** Writes the fork, opens it in the session editor and selects it in the Sessions view. Returns its path. */
export async function newSessionFromHere(provider: SessionsTreeProvider, arg?: unknown, second?: unknown): Promise<string | undefined> {
  const action = vscode.l10n.t('New Session from Here');
  const t = shareTarget(provider, arg, second);
  if (!t) return void prompts.error(vscode.l10n.t('New Session from Here: select an entry in the Sessions view or the session editor.'));
  if (!requireTrust(action)) return undefined;
  // Another agent's log (or a dsh one) is refused by its reader, in its own words, before anything is read.
  const refused = sessionReader(await detectFileFormat(t.file)).refuseCommand('fork', t.file);
  if (refused) return void prompts.error(vscode.l10n.t('New Session from Here: {0}', refused.message));
  const entryId = t.entryId ?? (await withModel(t.file, (m) => m.defaultLeaf()));
  if (entryId === null) return void prompts.error(vscode.l10n.t('New Session from Here: {0} has no entries.', path.basename(t.file)));
  let forked: string;
  try {
    const r = await forkSessionFile(t.file, entryId);
    forked = r.path;
  } catch (err) {
    if (err instanceof ForkRefusedError || err instanceof RewriteRefusedError) return void prompts.error(vscode.l10n.t('New Session from Here: {0}', err.message));
    throw err;
  }
  // Our own fresh file: not "live" in the view although it was written a moment ago.
  await noteOwnWrite(forked);
  await vscode.commands.executeCommand('sessionLoom.openSession', vscode.Uri.file(forked));
  await provider.fileChanged(forked);
  const find = () => provider.findSession(forked);
  await revealAndSelect(provider, await find(), find, false).catch(() => undefined);
  const copy = vscode.l10n.t('Copy Resume Command');
  const [forkName, sourceName] = await Promise.all([readSessionName(forked), readSessionName(t.file)]);
  void Promise.resolve(prompts.info(vscode.l10n.t('New Session from Here: wrote “{0}” ({1}); “{2}” is unchanged.', forkName, path.basename(forked), sourceName), copy)).then((c) =>
    c === copy ? resumeCommand(forked).then((cmd) => vscode.env.clipboard.writeText(cmd)) : undefined,
  );
  return forked;
}

export function registerShareCommands(provider: SessionsTreeProvider, extensionUri: vscode.Uri): vscode.Disposable {
  const run = reportingErrors;
  return vscode.Disposable.from(
    vscode.commands.registerCommand('sessionLoom.copyContext', run((a?: unknown, b?: unknown) => copyContext(provider, a, b))),
    vscode.commands.registerCommand('sessionLoom.exportContextMarkdown', run((a?: unknown, b?: unknown) => exportContextMarkdown(provider, a, b))),
    vscode.commands.registerCommand('sessionLoom.exportHtml', run((a?: unknown, b?: unknown) => exportHtml(provider, extensionUri, a, b))),
    vscode.commands.registerCommand('sessionLoom.newSessionFromHere', run((a?: unknown, b?: unknown) => newSessionFromHere(provider, a, b))),
    vscode.commands.registerCommand('sessionLoom.copyResumeCommand', run((a?: unknown) => copyResumeCommand(provider, a))),
  );
}
