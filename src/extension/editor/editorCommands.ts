// The editor's commands. Some hand over to other features (the Sessions view reveals entries
// and migrates files); when those are not installed yet the user gets a clear message instead
// of a "command not found" error.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isLoomNode, fileOfNode } from '../commands/targets';

export const VIEW_TYPE = 'sessionLoom.sessionEditor';

async function commandExists(id: string): Promise<boolean> {
  return (await vscode.commands.getCommands(true)).includes(id);
}

/** The .jsonl a command applies to: its argument, else the active session editor or text editor. */
export function targetUri(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === 'string' && arg !== '') return vscode.Uri.file(arg);
  // A Sessions-view node, when the command runs from the view's context menu.
  if (isLoomNode(arg)) {
    const file = fileOfNode(arg);
    return file ? vscode.Uri.file(file) : undefined;
  }
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (tab instanceof vscode.TabInputCustom || tab instanceof vscode.TabInputText) return tab.uri;
  return vscode.window.activeTextEditor?.document.uri;
}

/** The entry a command applies to: an explicit id, or the Sessions-view entry node it was invoked on. */
export function targetEntryId(arg: unknown, entryId: unknown): string | undefined {
  if (typeof entryId === 'string') return entryId;
  return isLoomNode(arg) && arg.kind === 'entry' ? arg.entryId : undefined;
}

/** Raw JSONL in the text editor, optionally at a 1-based line (diagnostics jump here). */
export async function openRawJsonl(uri: vscode.Uri, line?: number | null): Promise<void> {
  const options: vscode.TextDocumentShowOptions = { preview: false };
  if (line !== undefined && line !== null && line > 0) {
    const pos = new vscode.Position(line - 1, 0);
    options.selection = new vscode.Range(pos, pos);
  }
  // vscode.openWith 'default' bypasses our editor association for session roots.
  await vscode.commands.executeCommand('vscode.openWith', uri, 'default', options);
  if (options.selection) {
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    if (editor) {
      editor.selection = new vscode.Selection(options.selection.start, options.selection.start);
      editor.revealRange(options.selection, vscode.TextEditorRevealType.InCenter);
    }
  }
}

export async function revealInSessions(uri: vscode.Uri, entryId: string): Promise<void> {
  if (await commandExists('sessionLoom.revealEntry')) {
    await vscode.commands.executeCommand('sessionLoom.revealEntry', uri, entryId);
  } else {
    void vscode.window.showInformationMessage(vscode.l10n.t('Revealing entries in the Sessions view is not available in this build (entry {0}).', entryId));
  }
}

/**
 * Opens a session a tool call of `uri` started (a subagent's transcript) in the session editor. The
 * page names the file; only a session file in the folder of `uri` (or below it) is opened.
 */
export async function openLinkedSession(uri: vscode.Uri, file: string): Promise<void> {
  const target = path.resolve(file);
  if (!target.startsWith(path.dirname(uri.fsPath) + path.sep) || !target.endsWith('.jsonl')) throw new Error(vscode.l10n.t('{0} is not a session file beside {1}', file, path.basename(uri.fsPath)));
  await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(target), VIEW_TYPE);
}

export async function migrateSession(uri: vscode.Uri): Promise<void> {
  if (await commandExists('sessionLoom.migrate')) {
    await vscode.commands.executeCommand('sessionLoom.migrate', uri);
  } else {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Migrating sessions is not available in this build yet. The editor shows the session migrated in memory; the file is unchanged.'),
    );
  }
}
