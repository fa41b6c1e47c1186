// Registers the Sessions view and its commands; returns what tests reach through the
// extension's exports (the provider, the tree view and the injectable prompts).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { sessionOpenParams } from '../openParams';
import type { ModelHost } from '../../core/engine/worker/modelHost';
import { SearchIndexClient } from '../search/indexClient';
import { prompts, type Prompts } from '../commands/prompts';
import { registerViewCommands } from '../commands/viewCommands';
import { registerWriteCommands } from '../commands/writeCommands';
import { registerShareCommands } from '../share/shareCommands';
import { registerCompareCommands } from '../share/compareCommands';
import { isLoomNode } from '../commands/targets';
import type { LoomNode } from './nodes';
import { SessionsTreeProvider } from './sessionsTreeProvider';

export interface SessionsViewApi {
  provider: SessionsTreeProvider;
  treeView: vscode.TreeView<LoomNode>;
  prompts: Prompts;
  /** The model worker's host the view opens sessions through (tests ask it what the worker holds). */
  models: ModelHost;
}

export function registerSessionsView(context: vscode.ExtensionContext, models: ModelHost): SessionsViewApi {
  // One search index per window, in the extension's global storage (a cache: deleting it loses nothing).
  const index = new SearchIndexClient(path.join(context.globalStorageUri.fsPath, 'search'));
  const provider = new SessionsTreeProvider(
    (file, signal) => models.open(sessionOpenParams(file), signal),
    index,
    (file) => models.countMessages(file),
    (file) => models.peek(file),
  );
  const treeView = vscode.window.createTreeView(SessionsTreeProvider.viewId, {
    treeDataProvider: provider,
    showCollapseAll: true,
    canSelectMany: true,
  });

  void vscode.commands.executeCommand('setContext', 'sessionLoom.treeFilter', provider.filter);
  void vscode.commands.executeCommand('setContext', 'sessionLoom.searchActive', false);
  void vscode.commands.executeCommand('setContext', 'sessionLoom.searching', false);
  context.subscriptions.push(
    { dispose: () => index.dispose() },
    provider,
    treeView,
    provider.attach(treeView),
    registerViewCommands(provider),
    // The "Show N more…" row of a long run (not in the palette: it acts on that row).
    vscode.commands.registerCommand('sessionLoom.showMoreEntries', (node?: unknown) => {
      if (isLoomNode(node) && node.kind === 'more') provider.showMore(node);
    }),
    registerWriteCommands(provider),
    registerShareCommands(provider, context.extensionUri),
    registerCompareCommands(provider),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('sessionLoom.sessionRoots') || e.affectsConfiguration('sessionLoom.builtInRoots')) provider.refresh();
    }),
  );
  return { provider, treeView, prompts, models };
}
