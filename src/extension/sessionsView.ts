import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** Where sessions live when `sessionLoom.sessionRoots` is empty (see its description in package.json). */
const DEFAULT_ROOTS = ['~/.xcsh/agent/sessions', '~/.omp/agent/sessions', '~/.pi/agent/sessions'];

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p;
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** The configured roots, or the defaults that exist (the xcsh one is always listed so the view can say it is empty). */
export async function sessionRoots(): Promise<string[]> {
  const configured = vscode.workspace.getConfiguration('sessionLoom').get<string[]>('sessionRoots', []);
  if (configured.length > 0) return configured.map(expandHome);
  const [xcsh, ...others] = DEFAULT_ROOTS.map(expandHome);
  const present = await Promise.all(others.map(async (r) => ((await isDirectory(r)) ? r : undefined)));
  return [xcsh, ...present.filter((r): r is string => r !== undefined)];
}

type Node =
  | { kind: 'root'; path: string }
  | { kind: 'project'; path: string; sessionCount: number }
  | { kind: 'message'; text: string };

/** A project folder holds the session files of one working directory (`--<cwd-encoded>--`). */
async function listProjects(root: string): Promise<Node[]> {
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch {
    return [{ kind: 'message', text: `No sessions folder at ${root}` }];
  }
  const projects = await Promise.all(
    names.sort().map(async (name): Promise<Node | undefined> => {
      const dir = path.join(root, name);
      if (!(await isDirectory(dir))) return undefined;
      const files = await fs.readdir(dir);
      return { kind: 'project', path: dir, sessionCount: files.filter((f) => f.endsWith('.jsonl')).length };
    }),
  );
  const found = projects.filter((p): p is Node => p !== undefined);
  return found.length > 0 ? found : [{ kind: 'message', text: `No projects in ${root}` }];
}

/** Shows the project folders under each sessions root with their number of session files. */
export class SessionsTreeProvider implements vscode.TreeDataProvider<Node> {
  static readonly viewId = 'sessionLoom.sessions';

  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  static register(context: vscode.ExtensionContext): SessionsTreeProvider {
    const provider = new SessionsTreeProvider();
    context.subscriptions.push(
      provider.changed,
      vscode.window.registerTreeDataProvider(SessionsTreeProvider.viewId, provider),
      vscode.commands.registerCommand('sessionLoom.refresh', () => provider.refresh()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('sessionLoom.sessionRoots')) provider.refresh();
      }),
    );
    return provider;
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node === undefined) {
      const roots = await sessionRoots();
      // One root: its projects are the top level; several: group by root.
      return roots.length === 1 ? listProjects(roots[0]) : roots.map((r): Node => ({ kind: 'root', path: r }));
    }
    return node.kind === 'root' ? listProjects(node.path) : [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'root': {
        const item = new vscode.TreeItem(node.path, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `root:${node.path}`;
        item.iconPath = new vscode.ThemeIcon('root-folder');
        item.contextValue = 'sessionsRoot';
        return item;
      }
      case 'project': {
        const item = new vscode.TreeItem(path.basename(node.path), vscode.TreeItemCollapsibleState.None);
        item.id = `project:${node.path}`;
        item.description = `${node.sessionCount} ${node.sessionCount === 1 ? 'session' : 'sessions'}`;
        item.tooltip = node.path;
        item.resourceUri = vscode.Uri.file(node.path);
        item.iconPath = new vscode.ThemeIcon('folder');
        item.contextValue = 'project';
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('info');
        return item;
      }
    }
  }
}
