// The Sessions tree: projects → sessions (→ subagent sessions) → diagnostics and the branch tree
// (linear runs collapsed, forks as children). Pure tree logic lives in src/core/treeView.ts; this
// file maps it onto VS Code nodes with stable ids (`<file>#<entryId>`) and `getParent`, so
// `reveal` works, and keeps node objects alive across refreshes so expanded rows stay expanded.
// VS Code applies an item's collapsibleState only when its id is new to the tree, and forgets the
// state of rows that leave it. So a search (src/extension/sessions/search.ts) shows its results
// under ids of its own, created expanded, and the rows the user expanded outside a search are
// remembered here and come back expanded when the search is cleared.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { cwdDirNames } from '../../core/cwd';
import { matchSummary, searchEmptyText, searchStatusText } from '../../core/sessionSearch';
import {
  computeVisibleTree,
  nearestVisible,
  segmentsUnder,
  TREE_FILTER_TITLES,
  type BranchNode,
  type TreeFilterMode,
  type VisibleTree,
} from '../../core/treeView';
import { byNewest, countMessages, listProjects, listProjectSessions, projectLabel, readSessionMeta, resolveRoots, type SessionMeta } from './catalog';
import { isRepairable, SessionDocuments, type SessionDoc } from './documents';
import { isOwnWrite } from '../commands/guardedWrite';
import { renderItem } from './items';
import { DiagnosticNode, EntryNode, InfoNode, NoticeNode, ProjectNode, RunNode, SessionNode, type LoomNode } from './nodes';
import { SessionSearch } from './search';

const MAX_DIAGNOSTIC_ROWS = 50;
const WATCH_DEBOUNCE_MS = 300;

export class SessionsTreeProvider implements vscode.TreeDataProvider<LoomNode>, vscode.Disposable {
  static readonly viewId = 'sessionLoom.sessions';

  private readonly changed = new vscode.EventEmitter<LoomNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly docs = new SessionDocuments();

  treeView: vscode.TreeView<LoomNode> | undefined;
  filter: TreeFilterMode = 'default';
  readonly search: SessionSearch;
  /** Ids of the rows the user expanded outside a search (see the top of this file). */
  private readonly expanded = new Set<string>();
  private readonly notice = new NoticeNode('');

  private roots: string[] = [];
  private projectList: ProjectNode[] | undefined;
  private scanning: Promise<ProjectNode[]> | undefined;
  private scannedOnce = false;
  private listGen = 0;
  private readonly projects = new Map<string, ProjectNode>();
  private readonly sessions = new Map<string, SessionNode>();
  private readonly nodes = new Map<string, LoomNode>();
  private readonly visible = new Map<string, { stamp: string; key: string; tree: VisibleTree }>();
  private readonly counts = new Map<string, { stamp: string; count: number | undefined }>();
  private readonly contexts = new Map<string, string>();
  private watchers: vscode.Disposable[] = [];
  private readonly pending = new Set<string>();
  private debounce: NodeJS.Timeout | undefined;
  private readonly liveTimer: NodeJS.Timeout;

  constructor() {
    this.search = new SessionSearch({
      docs: this.docs,
      filter: () => this.filter,
      viewId: SessionsTreeProvider.viewId,
      sessions: async () => (await this.scan()).flatMap((p) => p.info.sessions),
      rememberTree: (file, stamp, tokens, tree) => this.visible.set(file, { stamp, key: this.treeKey(tokens), tree }),
      forgetTree: (file) => this.visible.delete(file),
      isUserExpanded: (file) => this.expanded.has(file),
      redraw: () => {
        this.updateDescription();
        this.changed.fire(undefined);
      },
    });
    // "live" means modified within the last minute: re-draw rows whose liveness may have ended.
    this.liveTimer = setInterval(() => {
      const now = Date.now();
      for (const s of this.sessions.values()) {
        const age = now - s.meta.modifiedMs;
        if (age >= 60_000 && age < 95_000) this.changed.fire(s);
      }
    }, 30_000);
  }

  /** Connects the provider to its view: remembers which rows the user expands. */
  attach(treeView: vscode.TreeView<LoomNode>): vscode.Disposable {
    this.treeView = treeView;
    return vscode.Disposable.from(
      treeView.onDidExpandElement((e) => {
        if (!this.search.active) this.expanded.add(e.element.id);
      }),
      treeView.onDidCollapseElement((e) => {
        if (!this.search.active) this.expanded.delete(e.element.id);
      }),
    );
  }

  dispose(): void {
    this.search.dispose();
    clearInterval(this.liveTimer);
    if (this.debounce) clearTimeout(this.debounce);
    for (const w of this.watchers) w.dispose();
    this.changed.dispose();
  }

  // ---------- state the commands change ----------

  setFilter(mode: TreeFilterMode): Promise<void> {
    this.filter = mode;
    void vscode.commands.executeCommand('setContext', 'sessionLoom.treeFilter', mode);
    this.updateDescription();
    // A search counts what the filter shows: look again.
    if (this.search.active) return this.search.rescan();
    this.changed.fire(undefined);
    return Promise.resolve();
  }

  /**
   * Searches the sessions in the view (an empty query clears); resolves when the scan has
   * finished, been stopped or been superseded. Results show as they come in.
   */
  setSearch(query: string): Promise<void> {
    const done = this.search.start(query);
    void vscode.commands.executeCommand('setContext', 'sessionLoom.searchActive', this.search.active);
    return done;
  }

  get query(): string {
    return this.search.query;
  }

  get searchTokens(): readonly string[] {
    return this.search.tokens;
  }

  private updateDescription(): void {
    if (!this.treeView) return;
    const parts: string[] = [];
    if (this.filter !== 'default') parts.push(TREE_FILTER_TITLES[this.filter]);
    const status = this.search.status ? searchStatusText(this.search.status) : undefined;
    if (status) parts.push(status);
    this.treeView.description = parts.length > 0 ? parts.join(' · ') : undefined;
    // VS Code hides the description of a view alone in its container (the title reads
    // "SESSION LOOM: SESSIONS"): the search status shows as the view's message too.
    this.treeView.message = status;
  }

  /** Forgets everything and lists the roots again (and searches them again). */
  refresh(): void {
    this.invalidateList();
    this.docs.clear();
    this.visible.clear();
    this.counts.clear();
    if (this.search.active) void this.search.rescan();
    else this.changed.fire(undefined);
  }

  /** A session file was written by us or changed on disk: re-read its row and branch tree. */
  async fileChanged(file: string): Promise<void> {
    this.pending.add(path.resolve(file));
    await this.flushPending();
  }

  // ---------- TreeDataProvider ----------

  async getChildren(node?: LoomNode): Promise<LoomNode[]> {
    if (!node) return this.topLevel();
    switch (node.kind) {
      case 'project':
        return node.info.sessions.filter((m) => this.search.shows(m)).map((m) => this.sessionNode(m, node));
      case 'session':
        return this.sessionChildren(node);
      case 'run':
        return this.runChildren(node);
      case 'entry':
        return node.hasBranches ? this.segmentNodes(node.session, node, node.entryId) : [];
      default:
        return [];
    }
  }

  getParent(node: LoomNode): LoomNode | undefined {
    return node.kind === 'project' || node.kind === 'notice' ? undefined : node.parent;
  }

  getTreeItem(node: LoomNode): vscode.TreeItem {
    const file = node.kind === 'project' || node.kind === 'notice' ? undefined : node.kind === 'session' ? node.file : sessionOf(node).file;
    const doc = file === undefined ? undefined : this.docs.peek(file);
    const item = renderItem(node, {
      doc,
      now: Date.now(),
      messageCount: node.kind === 'session' ? this.messageCount(node) : undefined,
      tokens: file === undefined ? this.search.tokens : node.kind === 'session' ? this.search.tokens : this.search.branchTokensOf(file),
      isWorkspaceProject: node.kind === 'project' && this.isWorkspaceProject(node),
      visible: doc ? this.visible.get(doc.file)?.tree : undefined,
      ownWrite: node.kind === 'session' && isOwnWrite(node.file, node.meta.size, node.meta.modifiedMs),
      deferTooltip: node.kind === 'session' && !doc,
      searchNote: this.searchNote(node),
    });
    if (node.kind === 'session' && item.contextValue) this.contexts.set(node.file, item.contextValue);
    if (item.collapsibleState === vscode.TreeItemCollapsibleState.Collapsed && this.startsExpanded(node, file)) {
      item.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
    }
    // Search results live under ids of their own: new to the tree, so they open as created.
    if (this.search.active && item.id !== undefined) item.id = `search:${this.search.tokens.join(' ')}:${item.id}`;
    return item;
  }

  /**
   * Whether a row is created expanded (VS Code keeps the user's state for rows it already shows):
   * outside a search, rows the user had expanded; in a search, the path to the matching entries
   * of the sessions whose documents the search kept.
   */
  private startsExpanded(node: LoomNode, file: string | undefined): boolean {
    if (!this.search.active) return this.expanded.has(node.id);
    switch (node.kind) {
      case 'project':
        return true;
      case 'session':
        return (
          ((this.search.hitOf(node.file)?.entryMatches ?? 0) > 0 && this.docs.peek(node.file) !== undefined) ||
          node.meta.subagents.some((m) => this.search.shows(m))
        );
      case 'run':
      case 'entry':
        return file !== undefined && (this.search.hitOf(file)?.entryMatches ?? 0) > 0;
      default:
        return false;
    }
  }

  private searchNote(node: LoomNode): string | undefined {
    if (!this.search.active) return undefined;
    if (node.kind === 'session') return matchSummary(this.search.hitOf(node.file)) || undefined;
    if (node.kind === 'project') {
      const n = node.info.sessions.filter((m) => this.search.shows(m)).length;
      return `${n} of ${node.info.sessions.length} ${node.info.sessions.length === 1 ? 'session' : 'sessions'}`;
    }
    return undefined;
  }

  async resolveTreeItem(item: vscode.TreeItem, node: LoomNode): Promise<vscode.TreeItem> {
    if (node.kind !== 'session' || item.tooltip !== undefined) return item;
    const ownWrite = isOwnWrite(node.file, node.meta.size, node.meta.modifiedMs);
    try {
      const doc = await this.docs.get(node.file);
      return renderItem(node, { doc, now: Date.now(), messageCount: doc.stats().entriesByType.message ?? 0, tokens: this.search.tokens, isWorkspaceProject: false, visible: undefined, ownWrite });
    } catch {
      // Unreadable right now: the tooltip from the file's metadata alone.
      return renderItem(node, { doc: undefined, now: Date.now(), messageCount: undefined, tokens: this.search.tokens, isWorkspaceProject: false, visible: undefined, ownWrite });
    }
  }

  // ---------- levels ----------

  /** The projects; during a search only those with matching sessions, or one row saying why none. */
  private async topLevel(): Promise<LoomNode[]> {
    const projects = await this.scan();
    if (!this.search.active) return projects;
    const shown = projects.filter((p) => p.info.sessions.some((m) => this.search.shows(m)));
    if (shown.length > 0 || !this.search.status) return shown;
    this.notice.text = searchEmptyText(this.search.status);
    this.notice.icon = this.search.running ? 'loading~spin' : 'search-stop';
    return [this.notice];
  }

  private scan(): Promise<ProjectNode[]> {
    if (this.projectList) return Promise.resolve(this.projectList);
    this.scanning ??= (async () => {
      const run = async () => {
        const configured = vscode.workspace.getConfiguration('sessionLoom').get<string[]>('sessionRoots', []);
        const roots = resolveRoots(configured);
        if (roots.join('\n') !== this.roots.join('\n')) this.watch(roots);
        this.roots = roots;
        const infos = (await Promise.all(roots.map((r) => listProjects(r)))).flat();
        const list = infos.map((info) => {
          let p = this.projects.get(info.dir);
          if (p) p.info = info;
          else this.projects.set(info.dir, (p = new ProjectNode(info)));
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
          gen = this.listGen;
          list = this.scannedOnce
            ? await run()
            : await vscode.window.withProgress({ location: { viewId: SessionsTreeProvider.viewId }, title: 'Scanning sessions…' }, run);
        } while (gen !== this.listGen);
        this.scannedOnce = true;
        this.projectList = list;
        return list;
      } finally {
        this.scanning = undefined;
      }
    })();
    return this.scanning;
  }

  private invalidateList(): void {
    this.projectList = undefined;
    this.listGen++;
  }

  private isWorkspaceProject(p: ProjectNode): boolean {
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      if (f.uri.scheme !== 'file') continue;
      if (cwdDirNames(f.uri.fsPath).includes(p.info.name)) return true;
      if (p.info.sessions.some((s) => s.cwd === f.uri.fsPath)) return true;
    }
    return false;
  }

  private sessionNode(meta: SessionMeta, parent: ProjectNode | SessionNode): SessionNode {
    let s = this.sessions.get(meta.file);
    if (s) {
      s.meta = meta;
      s.parent = parent;
    } else {
      this.sessions.set(meta.file, (s = new SessionNode(meta, parent)));
    }
    return s;
  }

  private async sessionChildren(session: SessionNode): Promise<LoomNode[]> {
    const out: LoomNode[] = session.meta.subagents.filter((m) => this.search.shows(m)).map((m) => this.sessionNode(m, session));
    // Shown only for a matching subagent session: its own entries do not match, so stay unread.
    if (this.search.active && matchSummary(this.search.hitOf(session.file)) === '') return out;
    let doc: SessionDoc;
    try {
      doc = await this.docs.get(session.file);
    } catch (err) {
      return [...out, this.cached(new InfoNode(session, `Cannot read the file: ${err instanceof Error ? err.message : String(err)}`, 'error'))];
    }
    this.noteLoaded(session, doc);
    doc.problems.slice(0, MAX_DIAGNOSTIC_ROWS).forEach((d, i) => {
      const n = this.cached(new DiagnosticNode(session, d, i));
      n.diagnostic = d;
      out.push(n);
    });
    if (doc.problems.length > MAX_DIAGNOSTIC_ROWS) {
      out.push(this.cached(new InfoNode(session, `${doc.problems.length - MAX_DIAGNOSTIC_ROWS} more problems: open the raw JSONL`, 'warning')));
    }
    const branch = this.segmentNodes(session, session, null);
    if (branch.length === 0 && doc.loaded.entries.length > 0) {
      const text = `No entries match (${TREE_FILTER_TITLES[this.filter]}${this.search.branchTokensOf(session.file).length ? `, “${this.query}”` : ''})`;
      const info = this.cached(new InfoNode(session, text, 'filter'));
      info.text = text;
      out.push(info);
    }
    return [...out, ...branch];
  }

  /** After a load, a row whose context flags changed (repairable, damaged…) is re-drawn once. */
  private noteLoaded(session: SessionNode, doc: SessionDoc): void {
    const before = this.contexts.get(session.file);
    if (before !== undefined && before.includes('repairable') !== isRepairable(doc)) {
      setTimeout(() => this.changed.fire(session), 0);
    }
  }

  private runChildren(run: RunNode): LoomNode[] {
    const vt = this.visibleTree(run.session.file);
    if (!vt) return [];
    return run.ids.map((id, i) => this.entryNode(run.session, run, id, i === run.ids.length - 1 && (vt.children.get(id)?.length ?? 0) > 0));
  }

  private segmentNodes(session: SessionNode, parent: SessionNode | EntryNode, under: string | null): LoomNode[] {
    const vt = this.visibleTree(session.file);
    if (!vt) return [];
    return segmentsUnder(vt, under).map((seg) => this.segmentNode(session, parent, seg, vt));
  }

  private segmentNode(session: SessionNode, parent: SessionNode | EntryNode, seg: BranchNode, vt: VisibleTree): RunNode | EntryNode {
    if (seg.kind === 'entry') return this.entryNode(session, parent, seg.id, (vt.children.get(seg.id)?.length ?? 0) > 0);
    const id = `${session.file}#run:${seg.ids[0]}`;
    let run = this.nodes.get(id) as RunNode | undefined;
    if (run?.kind === 'run') {
      run.ids = seg.ids;
      run.parent = parent;
      run.session = session;
    } else {
      run = new RunNode(session, parent, seg.ids);
      this.nodes.set(id, run);
    }
    return run;
  }

  private entryNode(session: SessionNode, parent: SessionNode | RunNode | EntryNode, entryId: string, hasBranches: boolean): EntryNode {
    const id = `${session.file}#${entryId}`;
    let e = this.nodes.get(id) as EntryNode | undefined;
    if (e?.kind === 'entry') {
      e.parent = parent;
      e.hasBranches = hasBranches;
      e.session = session;
    } else {
      e = new EntryNode(session, parent, entryId, hasBranches);
      this.nodes.set(id, e);
    }
    return e;
  }

  private cached<T extends DiagnosticNode | InfoNode>(node: T): T {
    const known = this.nodes.get(node.id);
    if (known && known.kind === node.kind) return known as T;
    this.nodes.set(node.id, node);
    return node;
  }

  /** The visible tree of a loaded session under the current filter and search (memoised). */
  visibleTree(file: string, loaded?: SessionDoc): VisibleTree | undefined {
    const doc = loaded ?? this.docs.peek(file);
    if (!doc) return undefined;
    const tokens = this.search.branchTokensOf(file);
    const key = this.treeKey(tokens);
    const hit = this.visible.get(file);
    if (hit && hit.stamp === doc.stamp && hit.key === key) return hit.tree;
    const tree = computeVisibleTree(doc.source, { filter: this.filter, tokens });
    this.visible.set(file, { stamp: doc.stamp, key, tree });
    return tree;
  }

  private treeKey(tokens: readonly string[]): string {
    return `${this.filter}\n${tokens.join(' ')}`;
  }

  private messageCount(node: SessionNode): number | undefined {
    const doc = this.docs.peek(node.file);
    if (doc) return doc.stats().entriesByType.message ?? 0;
    const stamp = `${node.meta.size}:${node.meta.modifiedMs}`;
    const hit = this.counts.get(node.file);
    if (hit && hit.stamp === stamp) return hit.count;
    this.counts.set(node.file, { stamp, count: undefined });
    void countMessages(node.file).then(
      (count) => {
        const cur = this.counts.get(node.file);
        if (cur?.stamp !== stamp) return;
        cur.count = count;
        this.changed.fire(node);
      },
      () => {},
    );
    return undefined;
  }

  // ---------- reveal ----------

  /** The session node of a file under the roots (scanning first if needed). */
  async findSession(file: string): Promise<SessionNode | undefined> {
    await this.scan();
    const resolved = path.resolve(file);
    const known = this.sessions.get(resolved);
    if (known) return known;
    // Sessions are created lazily as projects expand: create the project's nodes now.
    for (const p of this.projectList ?? []) {
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

  /**
   * The node showing an entry (or its nearest ancestor the filter shows), building the chain of
   * run and fork nodes from the session down, so `reveal` can walk it with getParent.
   */
  async nodeForEntry(file: string, entryId: string): Promise<EntryNode | undefined> {
    const session = await this.findSession(file);
    if (!session) return undefined;
    if (!this.search.shows(session.meta) || (this.search.active && matchSummary(this.search.hitOf(session.file)) === '')) return undefined;
    const doc = await this.docs.get(session.file);
    const vt = this.visibleTree(session.file, doc)!;
    const target = nearestVisible(vt, doc.source, entryId);
    return target === undefined ? undefined : this.visibleEntryNode(session, vt, target);
  }

  private visibleEntryNode(session: SessionNode, vt: VisibleTree, id: string): EntryNode {
    // Walk up to the start of the segment: the first entry whose parent is the top or a fork.
    let start = id;
    let above: string | null = vt.parent.get(start) ?? null;
    while (above !== null && (vt.children.get(above)?.length ?? 0) === 1) {
      start = above;
      above = vt.parent.get(start) ?? null;
    }
    const parent: SessionNode | EntryNode = above === null ? session : this.visibleEntryNode(session, vt, above);
    const seg = segmentsUnder(vt, above).find((s) => (s.kind === 'entry' ? s.id : s.ids[0]) === start)!;
    const node = this.segmentNode(session, parent, seg, vt);
    if (node.kind === 'entry') return node;
    const last = node.ids[node.ids.length - 1];
    return this.entryNode(session, node, id, id === last && (vt.children.get(id)?.length ?? 0) > 0);
  }

  // ---------- file-system watching ----------

  private watch(roots: readonly string[]): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = roots.map((root) => {
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), '**/*.jsonl'));
      const on = (uri: vscode.Uri) => this.schedule(uri.fsPath);
      return vscode.Disposable.from(w, w.onDidChange(on), w.onDidCreate(on), w.onDidDelete(on));
    });
  }

  private schedule(file: string): void {
    this.pending.add(path.resolve(file));
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.flushPending(), WATCH_DEBOUNCE_MS);
  }

  private async flushPending(): Promise<void> {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = undefined;
    const files = [...this.pending];
    this.pending.clear();
    if (!this.projectList) {
      // Nothing listed yet: a scan in flight may have read the folder before the change; it lists again.
      this.listGen++;
      return;
    }
    const projectsToRelist = new Set<ProjectNode>();
    const searchAgain: SessionMeta[] = [];
    let rescan = false;
    for (const file of files) {
      this.docs.invalidate(file);
      this.visible.delete(file);
      const session = this.sessions.get(file);
      if (session) {
        const meta = await readSessionMeta(file, session.meta.root, session.meta.projectDir, session.meta.isSubagent);
        if (meta) {
          meta.subagents = session.meta.subagents;
          // The parent's list hands its metas back to sessionNode() on the next getChildren:
          // replace the stale one there too, or the row reverts (size, "live", title).
          const siblings = session.parent.kind === 'project' ? session.parent.info.sessions : session.parent.meta.subagents;
          const i = siblings.indexOf(session.meta);
          if (i >= 0) siblings[i] = meta;
          session.meta = meta;
          searchAgain.push(meta);
          this.changed.fire(session);
          continue;
        }
      }
      // Created or deleted: re-list its project (a subagent file lives one folder deeper).
      const project = [...this.projects.values()].find((p) => file.startsWith(p.info.dir + path.sep));
      if (project && this.projectList.includes(project)) projectsToRelist.add(project);
      else if (this.roots.some((r) => file.startsWith(r + path.sep))) rescan = true;
    }
    if (rescan) {
      this.invalidateList();
      if (this.search.active) void this.search.rescan();
      else this.changed.fire(undefined);
      return;
    }
    for (const p of projectsToRelist) {
      const sessions = await listProjectSessions(p.info.root, p.info.dir);
      if (sessions.length === 0) {
        this.invalidateList();
        if (this.search.active) void this.search.rescan();
        else this.changed.fire(undefined);
        return;
      }
      const known = new Set(p.info.sessions.map((m) => m.file));
      searchAgain.push(...sessions.filter((m) => !known.has(m.file)));
      p.info = { ...p.info, sessions, label: projectLabel(p.info.name, sessions) };
      this.changed.fire(p);
    }
    // A changed file can start or stop matching: the view redraws from the top when it does.
    await this.search.update(searchAgain);
  }
}

function sessionOf(node: Exclude<LoomNode, ProjectNode | SessionNode | NoticeNode>): SessionNode {
  return node.kind === 'diagnostic' || node.kind === 'info' ? node.parent : node.session;
}
