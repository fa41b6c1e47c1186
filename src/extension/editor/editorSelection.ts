// Which leaf each open session editor shows, so commands run from the editor (its title bar, the
// palette, a right click on a tree row) act on the entry the user is looking at. The webview
// reports every selection (`selectionChanged`); the panels register here.
import type * as vscode from 'vscode';
import type { SessionModel } from '../../core/engine/model';

export interface TrackedEditor {
  readonly uri: vscode.Uri;
  readonly panel: vscode.WebviewPanel;
  /** The leaf shown (null: the default leaf, or not known yet). */
  leafId(): string | null;
  model(): Promise<SessionModel>;
}

const editors = new Set<TrackedEditor>();

export function trackEditor(e: TrackedEditor): vscode.Disposable {
  editors.add(e);
  return { dispose: () => void editors.delete(e) };
}

/** The session editor that has the focus (or was focused last and is still visible). */
export function activeEditor(): TrackedEditor | undefined {
  for (const e of editors) if (e.panel.active) return e;
  return undefined;
}

/** An open editor of `file`, whose model can be reused instead of loading the file again. */
export function editorOf(file: string): TrackedEditor | undefined {
  for (const e of editors) if (e.uri.fsPath === file) return e;
  return undefined;
}

/**
 * Keeps the session editor of `file` open when something it asked for opens (a tool call's diff,
 * an output, a comparison): as a preview tab it would be replaced by that, and the user would come
 * back to the default leaf. Pins it (as VS Code pins a preview text editor the user edits) when it
 * is its group's active tab — the case for anything asked from the editor itself. Returns whether
 * a preview tab of `file` is still open in some group (the caller then opens its tab pinned).
 */
export async function keepSessionTab(vs: typeof vscode, file: string): Promise<boolean> {
  const previewOf = (): vscode.Tab[] =>
    vs.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.isPreview && t.input instanceof vs.TabInputCustom && t.input.uri.fsPath === file);
  for (const tab of previewOf()) {
    if (tab.isActive && tab.group.isActive) await vs.commands.executeCommand('workbench.action.keepEditor');
  }
  return previewOf().length > 0;
}
