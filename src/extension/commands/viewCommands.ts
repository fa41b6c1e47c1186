// The read-only commands of the Sessions view: filters, search, reveal, copy, refresh, roots.
import * as vscode from 'vscode';
import { sessionUri } from '../sessions/sessionUri';
import { TREE_FILTER_MODES, treeFilterTitle, type TreeFilterMode } from '../../core/tree/treeView';
import type { LoomNode } from '../sessions/nodes';
import { OpenGesture, showOptionsOf } from '../sessions/openGesture';
import type { SessionsTreeProvider } from '../sessions/sessionsTreeProvider';
import { prompts } from './prompts';
import { isLoomNode, targetEntry, targetFiles } from './targets';

/** `sessionLoom.filter.noTools` etc.: one command per filter for the view-title submenu. */
export const FILTER_COMMANDS: Record<TreeFilterMode, string> = {
  default: 'sessionLoom.filter.default',
  'no-tools': 'sessionLoom.filter.noTools',
  'user-only': 'sessionLoom.filter.userOnly',
  'labelled-only': 'sessionLoom.filter.labelledOnly',
  all: 'sessionLoom.filter.all',
};

/** What a reveal tried, for the integration tests' log (a failure in CI says which step did not hold). */
function testLog(line: string): void {
  if (process.env.SESSION_LOOM_TEST_HOME) console.log(line);
}

/** Resolves once `tv.selection` holds `id`, or false after `ms` without it. */
function selectionHolds(tv: vscode.TreeView<LoomNode>, id: string, ms: number): Promise<boolean> {
  if (tv.selection.some((n) => n.id === id)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      sub.dispose();
      resolve(tv.selection.some((n) => n.id === id));
    }, ms);
    const sub = tv.onDidChangeSelection((e) => {
      if (!e.selection.some((n) => n.id === id)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(true);
    });
  });
}

/** How long a reveal keeps trying to select its row (unless the user selects another row first). */
const REVEAL_PATIENCE_MS = 30_000;

/**
 * Reveals and selects the node `find` gives. VS Code drops a reveal when the view refreshes the
 * row it is expanding (a message count arriving, a file changing, a run grown to hold the entry),
 * and says nothing: so the selection is checked, and the reveal tried again with the node found
 * anew. Four tries at least, and more for up to REVEAL_PATIENCE_MS: on a busy machine VS Code can
 * take many seconds to ask a grown run for its new rows, and every try before that selects nothing
 * (seen in CI, twice, with the extension host reported unresponsive meanwhile). It stops as soon as
 * the user selects another row: they have moved on.
 */
export async function revealAndSelect(
  provider: SessionsTreeProvider,
  first: LoomNode | undefined,
  find: () => Promise<LoomNode | undefined>,
  focus: boolean,
): Promise<LoomNode | undefined> {
  let node = first;
  const tv = provider.treeView;
  if (!tv) return node;
  let movedOn = false;
  const watch = tv.onDidChangeSelection((e) => {
    if (e.selection.length > 0 && node && !e.selection.some((n) => n.id === node!.id)) movedOn = true;
  });
  const started = Date.now();
  const deadline = started + REVEAL_PATIENCE_MS;
  try {
    for (let attempt = 0; node && !movedOn && (attempt < 4 || Date.now() < deadline); attempt++) {
      // Never while VS Code redraws the whole view (a filter or search just reset, a refresh).
      await provider.whenListed();
      try {
        await tv.reveal(node, { select: true, focus, expand: false });
      } catch (e) {
        // A run that had to show more pages to hold the entry is still being redrawn (VS Code does
        // not know its new rows yet): the next attempt finds it there.
        testLog(`[reveal] ${node.id}: try ${attempt + 1} at ${Date.now() - started} ms refused (${e instanceof Error ? e.message : String(e)})`);
        await new Promise((r) => setTimeout(r, 200));
        node = await find();
        continue;
      }
      if (await selectionHolds(tv, node.id, 500)) {
        if (attempt > 0) testLog(`[reveal] ${node.id}: selected on try ${attempt + 1}, ${Date.now() - started} ms`);
        return node;
      }
      testLog(`[reveal] ${node.id}: try ${attempt + 1} at ${Date.now() - started} ms selected nothing`);
      node = await find();
    }
  } finally {
    watch.dispose();
  }
  testLog(`[reveal] ${node?.id ?? 'nothing'}: ${movedOn ? 'another row was selected' : 'gave up'} after ${Date.now() - started} ms`);
  return node;
}

/** Selects an entry in the Sessions view (or its nearest ancestor the filter shows). */
export async function revealEntry(provider: SessionsTreeProvider, arg?: unknown, entryId?: unknown): Promise<LoomNode | undefined> {
  const target = targetEntry(provider, arg, entryId);
  const file = target?.file ?? targetFiles(provider, arg, undefined)[0];
  if (!file) return void prompts.error(vscode.l10n.t('Reveal in Sessions: no session file given.'));
  let node: LoomNode | undefined;
  if (target) {
    node = await provider.nodeForEntry(target.file, target.entryId);
    if (!node && (provider.filter !== 'all' || provider.searchTokens.length > 0)) {
      // Hidden by the filter or the search: show everything rather than select nothing.
      await provider.setSearch('');
      await provider.setFilter('all');
      node = await provider.nodeForEntry(target.file, target.entryId);
    }
  } else {
    node = await provider.findSession(file);
    if (node && !provider.search.shows(node.meta)) {
      await provider.setSearch('');
      node = await provider.findSession(file);
    }
  }
  if (!node) return void prompts.error(vscode.l10n.t('Reveal in Sessions: {0} is not under a sessions root (see the sessionLoom.sessionRoots setting).', file));
  const find = target ? () => provider.nodeForEntry(target.file, target.entryId) : () => provider.findSession(file);
  return revealAndSelect(provider, node, find, true);
}

/**
 * Shows a session file or folder: in the operating system's file manager when the host can
 * (`os`), else — or when asked — in the Explorer view if it is in the workspace, else its path
 * goes to the clipboard with a message saying so. Never a "command not found".
 */
async function revealFile(uri: vscode.Uri, where: 'os' | 'explorer' = 'os'): Promise<void> {
  const commands = await vscode.commands.getCommands(true);
  if (where === 'os' && commands.includes('revealFileInOS') && vscode.env.uiKind === vscode.UIKind.Desktop && vscode.env.remoteName === undefined) {
    await vscode.commands.executeCommand('revealFileInOS', uri);
  } else if (vscode.workspace.getWorkspaceFolder(uri) !== undefined) {
    // The Explorer opened by the reveal itself may still be resolving the workspace's folders when
    // asked for the file, and then selects nothing (seen on the first reveal in a window where the
    // Explorer had not been shown yet): it is shown first, then asked.
    await vscode.commands.executeCommand('workbench.view.explorer');
    await vscode.commands.executeCommand('revealInExplorer', uri);
  } else {
    await vscode.env.clipboard.writeText(uri.fsPath);
    prompts.info(vscode.l10n.t('{0} is outside the workspace, so the Explorer cannot show it; its path is on the clipboard.', uri.fsPath));
  }
}

/** How long the row a click ran its command for may stay unknown while VS Code redraws it (see clickedRow). */
const CLICKED_ROW_PATIENCE_MS = 10_000;

/**
 * The row a click (or Enter) ran its command for: the view's selection, which VS Code sets to that
 * row, and tells the extension host of, before it runs the row's command.
 *
 * That is why the session and entry rows' command carries no arguments (items.ts). VS Code keeps a
 * command's arguments in the extension host only as long as the row that holds them: a redraw of
 * a row (`onDidChangeTreeData` for it — its relative time ticking over, a message count arriving,
 * the file being written to) drops the arguments of every row below it at once, while the
 * workbench still shows those rows until it has asked for them again. A click in that window ran
 * a command whose arguments were gone: "Actual command not found, wanted to execute
 * sessionLoom.openRow /42" in a notification, and nothing opened (a click lost; on a loaded machine
 * the window lasts seconds). The selection is kept as row ids instead, and the clicked row's id
 * names its node again as soon as the redraw has listed it: until then (for up to
 * CLICKED_ROW_PATIENCE_MS) the selection reads as empty, and the click waits for it.
 */
async function clickedRow(provider: SessionsTreeProvider): Promise<LoomNode | undefined> {
  const tv = provider.treeView;
  if (!tv) return undefined;
  if (tv.selection.length === 0) {
    const started = Date.now();
    // Another row selected meanwhile (another click, which runs the command for itself): this one is over.
    let movedOn = false;
    const watch = tv.onDidChangeSelection(() => (movedOn = true));
    try {
      while (tv.selection.length === 0 && !movedOn && Date.now() - started < CLICKED_ROW_PATIENCE_MS) await new Promise((r) => setTimeout(r, 50));
    } finally {
      watch.dispose();
    }
    testLog(`[row] the clicked row was being redrawn: ${movedOn ? 'another row selected' : tv.selection.length > 0 ? 'listed again' : 'still not listed'} after ${Date.now() - started} ms`);
    if (movedOn) return undefined;
  }
  // VS Code runs a row's command only for a selection of one row (a Ctrl+click adds to it, and opens nothing).
  return tv.selection.length === 1 ? tv.selection[0] : undefined;
}

/**
 * What a click on a session or entry row does (its TreeItem command): opens the session editor,
 * at the entry's leaf for an entry row, as a preview or pinned (see openGesture.ts). `node` is
 * given when the command is run with one (a test, another command); a row's click gives none.
 */
async function openRow(provider: SessionsTreeProvider, gesture: OpenGesture, node: unknown): Promise<void> {
  // When the click came, not when its row was found again: a double click stays one.
  const at = Date.now();
  const row = isLoomNode(node) ? node : await clickedRow(provider);
  if (!row || (row.kind !== 'session' && row.kind !== 'entry' && row.kind !== 'peek')) return;
  const show = showOptionsOf(gesture.decide(row.id, at));
  if (row.kind === 'session') await vscode.commands.executeCommand('sessionLoom.openSession', sessionUri(row.meta), undefined, show);
  // One of a big session's latest messages, while it is read: the editor opens at it.
  else if (row.kind === 'peek') await vscode.commands.executeCommand('sessionLoom.previewContextAt', vscode.Uri.file(row.parent.file), row.entryId, show);
  // (A search hit: its words are marked where the editor shows it.)
  else await vscode.commands.executeCommand('sessionLoom.previewContextAt', vscode.Uri.file(row.session.file), row.entryId, show, provider.query || undefined);
}

export function registerViewCommands(provider: SessionsTreeProvider): vscode.Disposable {
  const firstFile = (arg: unknown) => targetFiles(provider, arg, undefined)[0];
  const gesture = new OpenGesture();
  return vscode.Disposable.from(
    vscode.commands.registerCommand('sessionLoom.openRow', (node?: unknown) => openRow(provider, gesture, node)),
    // Enter in the view (a keybinding): VS Code's own list.select then selects the focused row and
    // runs its command, which the gesture marks as pinned; rows without a command still toggle.
    vscode.commands.registerCommand('sessionLoom.openRowFromKeyboard', async () => {
      gesture.keyboard(Date.now());
      await vscode.commands.executeCommand('list.select');
    }),
    vscode.commands.registerCommand('sessionLoom.refresh', () => provider.refresh()),
    ...TREE_FILTER_MODES.map((mode) => vscode.commands.registerCommand(FILTER_COMMANDS[mode], () => provider.setFilter(mode))),
    // The filter menu's item for the current filter: VS Code 1.100 ignores `toggled` in an
    // extension's commands, so the check mark is a twin command shown only for the current mode.
    ...TREE_FILTER_MODES.map((mode) => vscode.commands.registerCommand(`${FILTER_COMMANDS[mode]}.current`, () => provider.setFilter(mode))),
    vscode.commands.registerCommand('sessionLoom.setTreeFilter', async () => {
      const picked = await vscode.window.showQuickPick(
        TREE_FILTER_MODES.map((mode) => ({ label: treeFilterTitle(mode, vscode.l10n.t), description: mode === provider.filter ? vscode.l10n.t('current') : undefined, mode })),
        { title: vscode.l10n.t('Branch tree filter') },
      );
      if (picked) provider.setFilter(picked.mode);
    }),
    vscode.commands.registerCommand('sessionLoom.search', async (query?: unknown) => {
      const q =
        typeof query === 'string'
          ? query
          : await prompts.input({
              title: vscode.l10n.t('Search Sessions'),
              value: provider.query,
              prompt: vscode.l10n.t(
                'Searches every session through an index: words (AND-ed, whole words; word* for a prefix), "exact phrase", -exclude, role:user, tool:bash, project:name, agent:codex (xcsh, dsh, claude, codex), after:2026-06-01, before:2026-07-01. Empty clears.',
              ),
            });
      if (q !== undefined) await provider.setSearch(q);
    }),
    vscode.commands.registerCommand('sessionLoom.clearSearch', () => provider.setSearch('')),
    vscode.commands.registerCommand('sessionLoom.stopSearch', () => provider.search.stop()),
    vscode.commands.registerCommand('sessionLoom.revealEntry', (arg?: unknown, entryId?: unknown) => revealEntry(provider, arg, entryId)),
    // A run row ("7 entries: …"): the context at its last entry, and the ids of its entries.
    vscode.commands.registerCommand('sessionLoom.previewContextAtRunEnd', async (arg?: unknown) => {
      if (!isLoomNode(arg) || arg.kind !== 'run') return;
      await vscode.commands.executeCommand('sessionLoom.previewContextAt', vscode.Uri.file(arg.session.file), arg.facts.lastId);
    }),
    vscode.commands.registerCommand('sessionLoom.copyEntryIds', async (arg?: unknown) => {
      if (!isLoomNode(arg) || arg.kind !== 'run') return undefined;
      const ids = (await provider.runEntryIds(arg)).join('\n');
      await vscode.env.clipboard.writeText(ids);
      return ids;
    }),
    vscode.commands.registerCommand('sessionLoom.copyEntryId', async (arg?: unknown, b?: unknown) => {
      const t = targetEntry(provider, arg, b);
      if (t) await vscode.env.clipboard.writeText(t.entryId);
      return t?.entryId;
    }),
    vscode.commands.registerCommand('sessionLoom.copyPath', async (arg?: unknown) => {
      const file = arg && typeof arg === 'object' && (arg as LoomNode).kind === 'project' ? (arg as Extract<LoomNode, { kind: 'project' }>).info.dir : firstFile(arg);
      if (file) await vscode.env.clipboard.writeText(file);
      return file;
    }),
    // The menus offer each only where the host has it: revealFileInOS exists in desktop VS Code
    // on local files (not in a browser, nor for a remote machine's files); the Explorer view
    // shows only what is inside a workspace folder. Run from elsewhere, neither fails.
    vscode.commands.registerCommand('sessionLoom.revealInFileExplorer', async (arg?: unknown) => {
      const node = arg as LoomNode | undefined;
      const file = node?.kind === 'project' ? node.info.dir : firstFile(arg);
      if (file) await revealFile(vscode.Uri.file(file));
    }),
    vscode.commands.registerCommand('sessionLoom.revealInExplorerView', async (arg?: unknown) => {
      const node = arg as LoomNode | undefined;
      const file = node?.kind === 'project' ? node.info.dir : firstFile(arg);
      if (file) await revealFile(vscode.Uri.file(file), 'explorer');
    }),
    vscode.commands.registerCommand('sessionLoom.addSessionRoot', async () => {
      const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: vscode.l10n.t('Add Sessions Folder') });
      const folder = picked?.[0];
      if (!folder) return;
      const config = vscode.workspace.getConfiguration('sessionLoom');
      const roots = config.get<string[]>('sessionRoots', []);
      if (!roots.includes(folder.fsPath)) await config.update('sessionRoots', [...roots, folder.fsPath], vscode.ConfigurationTarget.Global);
      provider.refresh();
    }),
  );
}

