// Session files under roots the user configured (`sessionLoom.sessionRoots`) open in the
// session editor. The default roots are covered statically by the manifest's
// `workbench.editorAssociations` default; for configured roots we reopen a text tab once.
// "Once" per file and window matters: after "Reopen Editor With… → Text Editor" or
// "Open Raw JSONL" the user gets the text, not a fight with the editor.
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isSessionFileName } from '../../core/discovery/roots';
import { VIEW_TYPE } from './editorCommands';

function configuredRoots(): string[] {
  const cfg = vscode.workspace.getConfiguration('sessionLoom');
  if (!cfg.get<boolean>('openSessionsInEditor', true)) return [];
  return cfg
    .get<string[]>('sessionRoots', [])
    .map((p) => (p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p))
    .map((p) => path.resolve(p) + path.sep);
}

export function registerDefaultOpen(): vscode.Disposable {
  const reopened = new Set<string>();
  return vscode.window.tabGroups.onDidChangeTabs(async (e) => {
    const roots = configuredRoots();
    if (roots.length === 0) return;
    for (const tab of e.opened) {
      if (!(tab.input instanceof vscode.TabInputText)) continue;
      const uri = tab.input.uri;
      if (uri.scheme !== 'file' || !isSessionFileName(uri.fsPath) || reopened.has(uri.toString())) continue;
      if (!roots.some((r) => uri.fsPath.startsWith(r))) continue;
      reopened.add(uri.toString());
      await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE, tab.group.viewColumn);
      await vscode.window.tabGroups.close(tab);
    }
  });
}
