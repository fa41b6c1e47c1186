// The top two levels of the Sessions tree: the projects under the sessions roots and their
// session nodes. Listing runs once (under a progress in the view the first time) and is cached
// until invalidated; nodes are kept per folder and per file, so a re-listing updates the objects
// VS Code already shows instead of replacing them.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { cwdDirNames } from '../../core/formats/xcsh/cwd';
import { byNewest, expandHome, listRoots, listStore, resolveRoots, type SessionMeta } from './catalog';
import type { BuiltInRoots } from '../../core/discovery/discovery';

function resolveStores(configured: readonly string[]): string[] {
  return [...new Set(configured.map(expandHome).map((p) => path.resolve(p)))];
}
import { ProjectNode, SessionNode } from './nodes';

/** What the listing needs from the view. */
export interface ListingHost {
  readonly viewId: string;
  /** The resolved roots differ from those of the previous listing (watch them instead). */
  rootsChanged(roots: readonly string[]): void;
  /** A listing finished; `problems` names the configured roots that are not readable folders. */
  rootProblems(problems: readonly string[]): void;
}

/** Why a configured sessions root cannot be listed ("… does not exist"), or undefined when it can. */
async function rootProblem(root: string): Promise<string | undefined> {
  const st = await fs.stat(root).catch((e: NodeJS.ErrnoException) => e);
  if (st instanceof Error) return st.code === 'ENOENT' ? vscode.l10n.t('{0} does not exist', root) : vscode.l10n.t('{0} cannot be read ({1})', root, st.code ?? st.message);
  return st.isDirectory() ? undefined : vscode.l10n.t('{0} is not a folder', root);
}

/** The session roots the settings ask for: `sessionLoom.sessionRoots`, else the agents' own folders `sessionLoom.builtInRoots` keeps. */
export function configuredRoots(): string[] {
  const config = vscode.workspace.getConfiguration('sessionLoom');
  return resolveRoots(config.get<string[]>('sessionRoots', []), config.get<BuiltInRoots>('builtInRoots', {}));
}

export class ProjectListing {
  private currentRoots: string[] = [];
  private list: ProjectNode[] | undefined;
  private scanning: Promise<ProjectNode[]> | undefined;
  private scannedOnce = false;
  private gen = 0;
  private readonly projects = new Map<string, ProjectNode>();
  private readonly sessions = new Map<string, SessionNode>();

  constructor(private readonly host: ListingHost) {}

  /** The roots of the last listing. */
  get roots(): readonly string[] {
    return this.currentRoots;
  }

  /** The current list of projects, if listed and not invalidated since. */
  get listed(): ProjectNode[] | undefined {
    return this.list;
  }

  /** The session node created for this (resolved) file, if any. */
  knownSession(file: string): SessionNode | undefined {
    return this.sessions.get(file);
  }

  /** The project node whose folder holds this file (a subagent file lives one folder deeper). */
  projectHolding(file: string): ProjectNode | undefined {
    // (loose projects share their root: a change there lists the root again)
    return [...this.projects.values()].find((p) => !p.info.loose && file.startsWith(p.info.dir + path.sep));
  }

  /** The projects under the roots, workspace projects first, then newest first (cached). */
  scan(): Promise<ProjectNode[]> {
    if (this.list) return Promise.resolve(this.list);
    this.scanning ??= (async () => {
      const run = async () => {
        const configured = vscode.workspace.getConfiguration('sessionLoom').get<string[]>('sessionRoots', []);
        const roots = configuredRoots();
        if (roots.join('\n') !== this.currentRoots.join('\n')) this.host.rootsChanged(roots);
        this.currentRoots = roots;
        // The default roots may be absent (no agent run yet): only the configured ones are problems.
        const problems = configured.length > 0 ? (await Promise.all(roots.map(rootProblem))).filter((p): p is string => p !== undefined) : [];
        this.host.rootProblems(problems);
        const stores = resolveStores(vscode.workspace.getConfiguration('sessionLoom').get<string[]>('dshStores', []));
        const storeInfos = await Promise.all(stores.map((p) => listStore(p)));
        for (const s of storeInfos) if (s.problem) problems.push(vscode.l10n.t('dsh store {0} cannot be read: {1}', s.dir, s.problem));
        if (storeInfos.some((s) => s.problem)) this.host.rootProblems(problems);
        const infos = [...(await listRoots(roots)), ...storeInfos.filter((s) => s.sessions.length > 0)];
        const list = infos.map((info) => {
          const key = info.key ?? info.dir;
          let p = this.projects.get(key);
          if (p) p.info = info;
          else this.projects.set(key, (p = new ProjectNode(info)));
          return p;
        });
        list.sort((a, b) => Number(this.isWorkspaceProject(b)) - Number(this.isWorkspaceProject(a)) || byNewest(a.info.sessions[0]!, b.info.sessions[0]!));
        return list;
      };
      try {
        let list: ProjectNode[];
        let gen: number;
        // Listed again when the list was invalidated meanwhile (a file created during the scan).
        do {
          gen = this.gen;
          list = this.scannedOnce
            ? await run()
            : await vscode.window.withProgress({ location: { viewId: this.host.viewId }, title: vscode.l10n.t('Scanning sessions…') }, run);
        } while (gen !== this.gen);
        this.scannedOnce = true;
        this.list = list;
        return list;
      } finally {
        this.scanning = undefined;
      }
    })();
    return this.scanning;
  }

  /** Lists again on the next scan (and a scan in flight lists again before it answers). */
  invalidate(): void {
    this.list = undefined;
    this.gen++;
  }

  isWorkspaceProject(p: ProjectNode): boolean {
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      if (f.uri.scheme !== 'file') continue;
      if (cwdDirNames(f.uri.fsPath).includes(p.info.name)) return true;
      if (p.info.sessions.some((s) => s.cwd === f.uri.fsPath)) return true;
    }
    return false;
  }

  /** The node of a session (created once per file), updated to this meta and parent. */
  sessionNode(meta: SessionMeta, parent: ProjectNode | SessionNode): SessionNode {
    let s = this.sessions.get(meta.file);
    if (s) {
      s.meta = meta;
      s.parent = parent;
    } else {
      this.sessions.set(meta.file, (s = new SessionNode(meta, parent)));
    }
    return s;
  }

  /** The session node of a file under the roots (scanning first if needed). */
  async findSession(file: string): Promise<SessionNode | undefined> {
    await this.scan();
    const resolved = path.resolve(file);
    const known = this.sessions.get(resolved);
    if (known) return known;
    // Sessions are created lazily as projects expand: create the project's nodes now.
    for (const p of this.list ?? []) {
      for (const m of p.info.sessions) {
        const s = this.sessionNode(m, p);
        if (m.file === resolved) return s;
        for (const sub of m.subagents) {
          const subNode = this.sessionNode(sub, s);
          if (sub.file === resolved) return subNode;
        }
      }
    }
    return undefined;
  }
}
