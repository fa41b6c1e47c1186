// Resolves what a command acts on: a tree node (from a context menu, possibly with a
// multi-selection), a file URI (from the session editor or another command), or, from the
// palette, the active editor's session file or the tree's selection.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isSessionFileName } from '../../core/discovery/roots';
import { activeEditor } from '../editor/editorSelection';
import type { LoomNode } from '../sessions/nodes';
import type { SessionsTreeProvider } from '../sessions/sessionsTreeProvider';

export function fileOfNode(node: LoomNode): string | undefined {
  switch (node.kind) {
    case 'project':
    case 'notice':
      return undefined;
    case 'session':
      return node.file;
    case 'diagnostic':
    case 'info':
    case 'peek':
      return node.parent.file;
    case 'run':
    case 'entry':
      return node.session.file;
    case 'more':
      return node.parent.session.file;
  }
}

export function isLoomNode(x: unknown): x is LoomNode {
  return typeof x === 'object' && x !== null && typeof (x as { kind?: unknown }).kind === 'string' && 'id' in x;
}

function fileOfArg(arg: unknown): string | undefined {
  if (arg instanceof vscode.Uri) return arg.scheme === 'file' ? arg.fsPath : undefined;
  if (typeof arg === 'string') return path.resolve(arg);
  if (isLoomNode(arg)) return fileOfNode(arg);
  return undefined;
}

/** The session file shown in the active editor tab (session editor or text editor), if any. */
export function activeSessionFile(): string | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  const uri = input instanceof vscode.TabInputCustom || input instanceof vscode.TabInputText ? input.uri : undefined;
  return uri?.scheme === 'file' && isSessionFileName(uri.fsPath) ? uri.fsPath : undefined;
}

/** Session files a command acts on: the multi-selection, the argument, the active editor, the tree selection. */
export function targetFiles(provider: SessionsTreeProvider, arg: unknown, selection: unknown): string[] {
  const fromSelection = Array.isArray(selection) ? selection.map(fileOfArg).filter((f): f is string => f !== undefined) : [];
  if (fromSelection.length > 0) return [...new Set(fromSelection)];
  const one = fileOfArg(arg) ?? activeSessionFile() ?? provider.treeView?.selection.map(fileOfNode).find((f) => f !== undefined);
  return one ? [one] : [];
}

/** An entry target: a tree entry node, or (fileUri, entryId) from another command. */
export function targetEntry(provider: SessionsTreeProvider, arg: unknown, second: unknown): { file: string; entryId: string } | undefined {
  if (isLoomNode(arg) && arg.kind === 'entry') return { file: arg.session.file, entryId: arg.entryId };
  const file = fileOfArg(arg);
  if (file && typeof second === 'string') return { file, entryId: second };
  // The session editor's menus (a tree row or a message: its entry) and the palette (the leaf shown).
  const editor = activeEditor();
  const fromMenu = typeof arg === 'object' && arg !== null && !isLoomNode(arg) ? (arg as { entryId?: unknown }).entryId : undefined;
  if (editor && (typeof fromMenu === 'string' || arg === undefined)) {
    const entryId = typeof fromMenu === 'string' ? fromMenu : editor.leafId();
    if (entryId) return { file: editor.uri.fsPath, entryId };
  }
  const sel = provider.treeView?.selection.find((n) => n.kind === 'entry');
  return sel?.kind === 'entry' ? { file: sel.session.file, entryId: sel.entryId } : undefined;
}
