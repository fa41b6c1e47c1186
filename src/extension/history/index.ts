// Registers the Prompt History view and its commands: search (the database's FTS5 index), clear,
// filter by project, refresh, copy a prompt, and Open in Session (the session and the user
// message where the prompt was sent, found by cwd and time — a Claude Code or Codex prompt by the
// session id its history.jsonl names; said plainly when none holds it).
import * as vscode from 'vscode';
import { locateAnyPrompt } from '../../core/history/agentPromptSessions';
import { prompts } from '../commands/prompts';
import { configuredRoots } from '../sessions/projectListing';
import { HistoryTreeProvider, type HistoryNode } from './historyView';

export interface HistoryViewApi {
  provider: HistoryTreeProvider;
  treeView: vscode.TreeView<HistoryNode>;
}

function isPrompt(n: unknown): n is Extract<HistoryNode, { kind: 'prompt' }> {
  return typeof n === 'object' && n !== null && (n as HistoryNode).kind === 'prompt';
}

/**
 * Opens the session where a prompt was sent, at its user message (`highlight`: the history's search,
 * whose words are marked there). Returns where, or undefined.
 */
export async function openPromptInSession(node: unknown, roots = configuredRoots(), highlight?: string): Promise<{ file: string; entryId: string } | undefined> {
  if (!isPrompt(node)) return undefined;
  const e = node.entry;
  const at = await vscode.window.withProgress({ location: { viewId: HistoryTreeProvider.viewId }, title: vscode.l10n.t('Finding the session of this prompt…') }, () => locateAnyPrompt(e, roots));
  if (!at) {
    prompts.info(
      e.agent !== undefined
        ? e.sessionId
          ? vscode.l10n.t('No session under the sessions roots holds this prompt any more (session {0}).', e.sessionId)
          : vscode.l10n.t('This prompt names no session in the history, so its session cannot be found.')
        : !e.cwd
        ? vscode.l10n.t('This prompt has no working folder in the history, so its session cannot be found.')
        : e.createdAt === null
          ? vscode.l10n.t('This prompt has no usable time in the history, so its session cannot be found.')
          : vscode.l10n.t('No session under the sessions roots holds this prompt any more (sent {0} in {1}).', new Date(e.createdAt * 1000).toLocaleString(), e.cwd),
    );
    return undefined;
  }
  await vscode.commands.executeCommand('sessionLoom.previewContextAt', vscode.Uri.file(at.file), at.entryId, { preview: false }, highlight);
  return { file: at.file, entryId: at.entryId };
}

/** The history's search as the words to mark where a prompt opens: each matches the start of a word, as the search does. */
function historyHighlight(query: string): string | undefined {
  const words = query.split(/\s+/).map((w) => w.replace(/["*]/g, '')).filter((w) => w !== '');
  return words.length > 0 ? words.map((w) => `${w}*`).join(' ') : undefined;
}

export function registerHistoryView(context: vscode.ExtensionContext, paths?: () => string[]): HistoryViewApi {
  const provider = new HistoryTreeProvider(paths);
  const treeView = vscode.window.createTreeView(HistoryTreeProvider.viewId, { treeDataProvider: provider, showCollapseAll: true });
  provider.attach(treeView);
  void vscode.commands.executeCommand('setContext', 'sessionLoom.historySearchActive', false);
  void vscode.commands.executeCommand('setContext', 'sessionLoom.historyFiltered', false);
  context.subscriptions.push(
    provider,
    treeView,
    vscode.commands.registerCommand('sessionLoom.history.search', async (query?: unknown) => {
      const q =
        typeof query === 'string'
          ? query
          : await prompts.input({
              title: vscode.l10n.t('Search Prompt History'),
              value: provider.query,
              prompt: vscode.l10n.t('Words, each matching the start of a word (“git comm” finds “git commit”), ranked by the history’s own full-text index. Empty clears.'),
            });
      if (q !== undefined) await provider.setQuery(q);
    }),
    vscode.commands.registerCommand('sessionLoom.history.clearSearch', () => provider.setQuery('')),
    vscode.commands.registerCommand('sessionLoom.history.refresh', () => provider.reload()),
    vscode.commands.registerCommand('sessionLoom.history.filterProject', async (cwd?: unknown) => {
      if (typeof cwd === 'string' || cwd === null) return provider.setCwd(cwd === null ? undefined : cwd);
      const all = { label: vscode.l10n.t('All projects'), cwd: undefined as string | undefined };
      const items = [all, ...(await provider.cwds()).filter((c) => c.cwd !== null).map((c) => ({ label: c.cwd!, description: c.count === 1 ? vscode.l10n.t('1 prompt') : vscode.l10n.t('{0} prompts', c.count), cwd: c.cwd! }))];
      const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Show the prompts of one project'), matchOnDescription: true });
      if (picked) await provider.setCwd(picked.cwd);
    }),
    vscode.commands.registerCommand('sessionLoom.history.copyPrompt', async (node?: unknown) => {
      const target = isPrompt(node) ? node : treeView.selection.find(isPrompt);
      if (!target) return undefined;
      await vscode.env.clipboard.writeText(target.entry.prompt);
      return target.entry.prompt;
    }),
    vscode.commands.registerCommand('sessionLoom.history.openInSession', (node?: unknown) => openPromptInSession(isPrompt(node) ? node : treeView.selection.find(isPrompt), configuredRoots(), historyHighlight(provider.query))),
  );
  return { provider, treeView };
}
