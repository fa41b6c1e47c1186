// The Sessions tree: projects → sessions (→ subagent sessions) → diagnostics and the branch tree
// (linear runs collapsed, forks as children). Pure tree logic lives in src/core/tree/treeView.ts; this
// file puts the levels together behind VS Code's TreeDataProvider, with stable ids and `getParent`
// so `reveal` works, and applies changes on disk. Nodes are kept alive across refreshes so
// expanded rows stay expanded: projects and sessions in projectListing.ts, the rows below a
// session in branchNodes.ts. How a search shows is searchMode.ts (the scan itself search.ts); the
// rows the user expanded, expansionMemory.ts; file watching and liveness, sessionsWatcher.ts.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatRelativeTime, formatSize, isLive, oneLine, treeFilterTitle, type TreeFilterMode, type ViewEntry } from '../../core/tree/treeView';
import { BranchNodes } from './branchNodes';
import { isForeignAgent, listProjectSessions, projectLabel, readSessionMeta, type SessionMeta } from './catalog';
import { CancelledError, SessionModels, type OpenModel, type ViewSession } from './sessionModels';
import { isOwnWrite } from '../commands/guardedWrite';
import { ExpansionMemory } from './expansionMemory';
import { entryTooltip, renderItem } from './items';
import { DiagnosticNode, InfoNode, PeekNode, type EntryNode, type LoomNode, type MoreNode, type NoticeNode, type ProjectNode, type RunNode, type SessionNode } from './nodes';
import { ProjectListing } from './projectListing';
import { SessionSearch } from './search';
import type { SearchIndexClient } from '../search/indexClient';
import { SearchMode } from './searchMode';
import { COUNT_READ_LIMIT, MessageCounts } from './messageCounts';
import { sessionReader } from '../../core/engine/openModel';
import { dshMessageCount, DshStatsCache } from './dshStats';
import { RowClock } from './rowClock';
import { SessionsWatcher } from './sessionsWatcher';
import type { MessageView, TailPeek } from '../../protocol/messages';
import { PEEK_MIN_BYTES } from '../editor/sessionDocument';

const MAX_DIAGNOSTIC_ROWS = 50;

export class SessionsTreeProvider implements vscode.TreeDataProvider<LoomNode>, vscode.Disposable {
  static readonly viewId = 'sessionLoom.sessions';

  private readonly changed = new vscode.EventEmitter<LoomNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** The sessions the view has opened in the model worker (their rows, tooltips and search counts). */
  readonly models: SessionModels;

  treeView: vscode.TreeView<LoomNode> | undefined;
  filter: TreeFilterMode = 'default';
  readonly search: SessionSearch;
  private readonly searchMode: SearchMode;
  private readonly expanded = new ExpansionMemory();
  private readonly branches: BranchNodes;

  private readonly listing = new ProjectListing({
    viewId: SessionsTreeProvider.viewId,
    rootsChanged: (roots) => this.watcher.watch(roots),
    rootProblems: (problems) => {
      this.rootProblems = problems;
      this.updateDescription();
    },
  });
  /** Configured sessions roots that are missing or not folders (shown as the view's message). */
  rootProblems: readonly string[] = [];
  readonly counts: MessageCounts;
  private readonly dshStats = new DshStatsCache();
  private readonly contexts = new Map<string, string>();
  private readonly watcher = new SessionsWatcher((files) => this.applyChanges(files));
  readonly clock: RowClock<SessionNode>;

  /**
   * `index`: the search index's client (absent: searches scan every file). `countMessages`: how a
   * row's message count is read (the extension reads it in the model worker; default in-process).
   */
  /**
   * `peekTail`: a big session's latest messages, read from the end of its file (the model worker's
   * tail peek, as the editor paints it first): the rows an expanded session shows while it is read.
   */
  constructor(
    openModel: OpenModel,
    readonly index?: SearchIndexClient,
    countMessages?: (file: string) => Promise<number>,
    private readonly peekTail?: (file: string) => Promise<TailPeek | null>,
  ) {
    this.models = new SessionModels(openModel);
    this.counts = new MessageCounts(countMessages);
    this.branches = new BranchNodes({
      models: this.models,
      filter: () => this.filter,
      branchTokensOf: (file) => this.search.branchTokensOf(file),
      branchIdsOf: (file) => this.search.branchIdsOf(file),
    });
    this.search = new SessionSearch({
      models: this.models,
      matches: (model, file) => this.branches.matches(model, file),
      index,
      roots: () => this.listing.roots,
      filter: () => this.filter,
      viewId: SessionsTreeProvider.viewId,
      sessions: async () => (await this.listing.scan()).flatMap((p) => p.info.sessions),
      redraw: () => {
        this.updateDescription();
        this.changed.fire(undefined);
      },
    });
    this.searchMode = new SearchMode(this.search, this.models);
    this.clock = new RowClock(
      (s, now) => `${isLive(s.meta.modifiedMs, now)} ${formatRelativeTime(s.meta.activityMs, now, vscode.l10n.t)}`,
      (s) => this.changed.fire(s),
    );
  }

  /** Connects the provider to its view: remembers which rows the user expands. */
  attach(treeView: vscode.TreeView<LoomNode>): vscode.Disposable {
    this.treeView = treeView;
    return vscode.Disposable.from(
      this.expanded.track(treeView, () => this.search.active),
      // A collapsed session is no longer shown: its load is cancelled, its model joins the idle ones.
      treeView.onDidCollapseElement((e) => {
        if (e.element.kind === 'session') this.models.unhold(e.element.file, 'expanded');
      }),
    );
  }

  dispose(): void {
    this.models.dispose();
    this.search.dispose();
    this.clock.dispose();
    this.watcher.dispose();
    this.relistWatch.dispose();
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
    this.searchMode.describe(this.treeView, this.filter);
    if (this.treeView.message === undefined && this.rootProblems.length > 0) {
      // (A message hides the welcome view and its buttons: say where the fix is.)
      this.treeView.message = vscode.l10n.t(
        'Sessions folder not found: {0}. Fix the sessionLoom.sessionRoots setting, or use "Add Sessions Folder…" in the … menu.',
        this.rootProblems.join('; '),
      );
    }
  }

  /** Forgets everything and lists the roots again (and searches them again). */
  refresh(): void {
    this.listing.invalidate();
    this.models.clear();
    this.counts.clear();
    this.dshStats.clear();
    if (this.search.active) void this.search.rescan();
    else this.changed.fire(undefined);
  }

  /** A session file was written by us or changed on disk: re-read its row and branch tree. */
  async fileChanged(file: string): Promise<void> {
    await this.watcher.changedNow(file);
  }

  // ---------- TreeDataProvider ----------

  /** A whole-view refresh was fired and VS Code has not asked for the top level since. */
  private relistPending = false;
  private relistWaiters: (() => void)[] = [];
  private readonly relistWatch = this.changed.event((node) => {
    if (node === undefined) this.relistPending = true;
  });

  /**
   * Resolves once VS Code has asked for the top level after the last whole-view refresh (at once
   * when none is pending or the view is hidden; after `timeoutMs` at the latest). A reveal that
   * races that redraw can leave the row it expands drawn expanded with none of its rows, for good
   * (seen in VS Code 1.100): reveals wait for this first.
   */
  whenListed(timeoutMs = 5_000): Promise<void> {
    if (!this.relistPending || !this.treeView?.visible) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.relistWaiters.push(done);
    });
  }

  async getChildren(node?: LoomNode): Promise<LoomNode[]> {
    if (!node) {
      const top = await this.topLevel();
      this.relistPending = false;
      const waiting = this.relistWaiters;
      this.relistWaiters = [];
      // After VS Code has the answer (it is sent when this returns).
      if (waiting.length > 0) setTimeout(() => waiting.forEach((w) => w()), 0);
      return top;
    }
    switch (node.kind) {
      case 'project':
        return this.rankedSessions(node.info.sessions).map((m) => this.listing.sessionNode(m, node));
      case 'session':
        return this.sessionChildren(node);
      case 'run': {
        const rows = await this.branches.runChildren(node).catch(() => []);
        // A reveal waiting for VS Code to know the run's new rows (nodeForEntry) goes on now.
        const waiting = this.refetched.get(node);
        if (waiting) {
          this.refetched.delete(node);
          setTimeout(waiting, 0);
        }
        return rows;
      }
      case 'entry':
        return node.hasBranches ? this.branches.segmentNodes(node.session, node, node.entryId).catch(() => []) : [];
      default:
        return [];
    }
  }

  /** The sessions a project shows: during an indexed search only the matching ones, best ranked first. */
  private rankedSessions(sessions: readonly SessionMeta[]): SessionMeta[] {
    const shown = sessions.filter((m) => this.search.shows(m));
    const rank = (m: SessionMeta): number => this.search.rankOf(m.file) ?? Math.min(...m.subagents.map((s) => this.search.rankOf(s.file) ?? Infinity));
    return this.search.usedIndex && this.search.active ? shown.sort((a, b) => rank(a) - rank(b)) : shown;
  }

  getParent(node: LoomNode): LoomNode | undefined {
    return node.kind === 'project' || node.kind === 'notice' ? undefined : node.parent;
  }

  /** "Show N more…" was chosen: the run shows its next page. */
  showMore(node: MoreNode): void {
    this.branches.showMore(node.parent);
    this.changed.fire(node.parent);
  }

  /** Every entry id of a run, in order (Copy Ids), read from the model in pages. */
  async runEntryIds(run: RunNode): Promise<string[]> {
    const { model } = await this.models.get(run.session.file);
    const q = this.branches.query(run.session.file);
    const ids: string[] = [];
    while (ids.length < run.facts.count) {
      const page = (await model.runEntries?.(q, run.facts.firstId, ids.length, 5000)) ?? [];
      if (page.length === 0) break;
      for (const e of page) ids.push(e.id);
    }
    return ids;
  }

  getTreeItem(node: LoomNode): vscode.TreeItem {
    const file = node.kind === 'project' || node.kind === 'notice' ? undefined : node.kind === 'session' ? node.file : sessionOf(node).file;
    const summary = node.kind === 'session' ? this.models.peek(node.file)?.summary : undefined;
    // A dsh log's state, once read (its icon: sessionIcon in items.ts).
    const dsh = node.kind === 'session' && node.meta.format === 'dsh' ? this.dshStats.peek(node.meta.store?.path ?? node.file, node.meta.size, node.meta.modifiedMs, node.meta.store?.session) : undefined;
    const now = Date.now();
    if (node.kind === 'session') this.clock.drawn(node, now);
    const item = renderItem(node, {
      summary,
      dsh,
      now,
      messageCount: node.kind === 'session' ? this.messageCount(node) : undefined,
      tokens: file === undefined ? this.search.tokens : node.kind === 'session' ? this.search.tokens : this.search.branchTokensOf(file),
      isWorkspaceProject: node.kind === 'project' && this.listing.isWorkspaceProject(node),
      ownWrite: node.kind === 'session' && isOwnWrite(node.file, node.meta.size, node.meta.modifiedMs),
      deferTooltip: node.kind === 'session' && !summary,
      searchNote: this.searchMode.note(node),
    });
    if (node.kind === 'session' && item.contextValue) this.contexts.set(node.file, item.contextValue);
    if (item.collapsibleState === vscode.TreeItemCollapsibleState.Collapsed && this.startsExpanded(node, file)) {
      item.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
    }
    if (this.search.active && item.id !== undefined) item.id = this.searchMode.itemId(item.id);
    return item;
  }

  /**
   * Whether a row is created expanded (VS Code keeps the user's state for rows it already shows):
   * outside a search, rows the user had expanded; in a search, see SearchMode.startsExpanded.
   */
  private startsExpanded(node: LoomNode, file: string | undefined): boolean {
    if (!this.search.active) return this.expanded.has(node.id);
    return this.searchMode.startsExpanded(node, file);
  }

  async resolveTreeItem(item: vscode.TreeItem, node: LoomNode): Promise<vscode.TreeItem> {
    if (node.kind === 'entry' && item.tooltip === undefined) {
      // The entry's text is read from the worker only for the row hovered.
      const e = await this.models
        .get(node.session.file)
        .then((vs) => vs.model.rawEntry?.(node.entryId))
        .catch(() => undefined);
      if (e && typeof e === 'object') item.tooltip = entryTooltip(node, e as ViewEntry);
      return item;
    }
    if (node.kind !== 'session' || item.tooltip !== undefined) return item;
    const ownWrite = isOwnWrite(node.file, node.meta.size, node.meta.modifiedMs);
    if (node.meta.format === 'dsh') {
      const dsh = await this.dshStats.get(node.meta.store?.path ?? node.file, node.meta.store?.session).catch(() => undefined);
      return renderItem(node, { summary: undefined, dsh, now: Date.now(), messageCount: dsh ? dshMessageCount(dsh) : undefined, tokens: this.search.tokens, isWorkspaceProject: false, ownWrite });
    }
    try {
      const { summary } = await this.models.get(node.file);
      return renderItem(node, { summary, now: Date.now(), messageCount: summary.totals.messages, tokens: this.search.tokens, isWorkspaceProject: false, ownWrite });
    } catch {
      // Unreadable right now: the tooltip from the file's metadata alone.
      return renderItem(node, { summary: undefined, now: Date.now(), messageCount: undefined, tokens: this.search.tokens, isWorkspaceProject: false, ownWrite });
    }
  }

  // ---------- levels ----------

  /** The projects; during a search only those with matching sessions, or one row saying why none. */
  private async topLevel(): Promise<LoomNode[]> {
    const projects = await this.listing.scan();
    if (!this.search.active) return projects;
    return this.searchMode.topLevel(projects);
  }

  private async sessionChildren(session: SessionNode): Promise<LoomNode[]> {
    const out: LoomNode[] = session.meta.subagents.filter((m) => this.search.shows(m)).map((m) => this.listing.sessionNode(m, session));
    // A format whose model lists no branch rows for this view (dsh's turns) is shown in the session
    // editor; here only its subagents and forks.
    if (!sessionReader(session.meta.format).branchRowsInView) return out;
    // Shown only for a matching subagent session: its own entries do not match, so stay unread.
    if (this.searchMode.hidesEntriesOf(session.file)) return out;
    await this.search.ensureIds(session.file);
    let vs: ViewSession;
    let branch: LoomNode[];
    try {
      const loading = this.models.get(session.file);
      // Asked for its rows, the row is expanded: kept open until it is collapsed. (A search's rows
      // live under ids of their own and are never collapsed: the search holds what it shows.)
      if (!this.search.active) this.models.hold(session.file, 'expanded');
      const early = await this.whileReading(session, loading);
      if (early) return [...out, ...early];
      vs = await loading;
      branch = await this.branches.segmentNodes(session, session, null, vs);
    } catch (err) {
      if (err instanceof CancelledError) {
        // Collapsed while loading: VS Code asks again when the row is expanded again.
        setTimeout(() => this.changed.fire(session), 0);
        return out;
      }
      return [...out, this.branches.cached(new InfoNode(session, vscode.l10n.t('Cannot read the file: {0}', err instanceof Error ? err.message : String(err)), 'error'))];
    }
    this.noteLoaded(session, vs);
    const problems = vs.summary.problems ?? [];
    const problemCount = vs.summary.problemCount ?? 0;
    problems.slice(0, MAX_DIAGNOSTIC_ROWS).forEach((d, i) => {
      const n = this.branches.cached(new DiagnosticNode(session, d, i));
      n.diagnostic = d;
      out.push(n);
    });
    if (problemCount > MAX_DIAGNOSTIC_ROWS) {
      const more = problemCount - MAX_DIAGNOSTIC_ROWS;
      const text = more === 1 ? vscode.l10n.t('{0} more problem: open the raw JSONL', 1) : vscode.l10n.t('{0} more problems: open the raw JSONL', more);
      out.push(this.branches.cached(new InfoNode(session, text, 'warning')));
    }
    if (branch.length === 0 && vs.summary.entryCount > 0) {
      const text = this.search.branchTokensOf(session.file).length
        ? vscode.l10n.t('No entries match ({0}, “{1}”)', treeFilterTitle(this.filter, vscode.l10n.t), this.query)
        : vscode.l10n.t('No entries match ({0})', treeFilterTitle(this.filter, vscode.l10n.t));
      const info = this.branches.cached(new InfoNode(session, text, 'filter'));
      info.text = text;
      out.push(info);
    }
    return [...out, ...branch];
  }

  /**
   * A big session expanded before it is read (issue 23: the rows in a blink, not after the seconds
   * a 1M-entry file takes to index): a row saying it is being read and the latest messages of the
   * branch it ends on, from the end of the file, until the read ends and the branch rows replace
   * them. Null when the session is read first (a small or kept one), has no such peek (not an
   * xcsh v3 file), or a search narrows its rows.
   */
  private async whileReading(session: SessionNode, loading: Promise<ViewSession>): Promise<LoomNode[] | null> {
    if (!this.peekTail || this.search.active || this.models.peek(session.file) || session.meta.size < PEEK_MIN_BYTES) return null;
    let read = false;
    const settled = loading.then(
      () => (read = true),
      () => (read = true),
    );
    const peek = await Promise.race([settled.then(() => null), this.peekTail(session.file).catch(() => null)]);
    if (read || !peek || peek.messages.length === 0) return null;
    // Read: VS Code asks for the rows again, and gets the branch rows.
    void settled.then(() => setTimeout(() => this.changed.fire(session), 0));
    // (The session's one info row, kept by id: its text and icon are this state's.)
    const info = this.branches.cached(new InfoNode(session, '', ''));
    info.text = vscode.l10n.t('Reading {0}… its latest messages meanwhile', formatSize(session.meta.size));
    info.icon = 'loading~spin';
    const rows = peek.messages.map((m) => new PeekNode(session, m.entryId, m.role, peekText(m), m.timestamp, m.entryId === peek.leafId, m.blocks.some((b) => b.kind === 'toolCall')));
    // Newest first, as the branch rows put the default leaf's line first.
    return [info, ...rows.reverse()];
  }

  /** After a load, a row whose context flags changed (repairable, damaged…) is re-drawn once. */
  private noteLoaded(session: SessionNode, vs: ViewSession): void {
    const before = this.contexts.get(session.file);
    // Read now: its problems change its icon and menu (a session with problems is repairable).
    const problems = (vs.summary.problemCount ?? 0) > 0;
    if (before !== undefined && (before.includes('repairable') !== (vs.summary.repairable ?? false) || /\bproblems\b/.test(before) !== problems)) {
      setTimeout(() => this.changed.fire(session), 0);
    }
  }

  /** The row's message count: the loaded session's, else a background read's (see messageCounts.ts). */
  private messageCount(node: SessionNode): number | undefined {
    if (node.meta.format === 'dsh') {
      const known = this.dshStats.peek(node.meta.store?.path ?? node.file, node.meta.size, node.meta.modifiedMs, node.meta.store?.session);
      if (known) return dshMessageCount(known);
      if (node.meta.size <= COUNT_READ_LIMIT) void this.dshStats.get(node.meta.store?.path ?? node.file, node.meta.store?.session).then(() => this.changed.fire(node), () => undefined);
      return undefined;
    }
    const loaded = this.models.peek(node.file);
    if (loaded) return loaded.summary.totals.messages;
    return this.counts.get(node.file, node.meta.size, node.meta.modifiedMs, () => this.changed.fire(node));
  }

  // ---------- reveal ----------

  /** The session node of a file under the roots (scanning first if needed). */
  findSession(file: string): Promise<SessionNode | undefined> {
    return this.listing.findSession(file);
  }

  /**
   * The node showing an entry (or its nearest ancestor the filter shows), building the chain of
   * run and fork nodes from the session down, so `reveal` can walk it with getParent.
   */
  async nodeForEntry(file: string, entryId: string): Promise<EntryNode | undefined> {
    const session = await this.findSession(file);
    if (!session) return undefined;
    if (!this.search.shows(session.meta) || this.searchMode.hidesEntriesOf(session.file)) return undefined;
    const vs = await this.models.get(session.file);
    // A run that must show more pages to hold the entry is asked for its rows again, and the
    // answer waits until VS Code has asked (or a second passed: a collapsed run is asked when it
    // is expanded): a reveal before that finds the entry in no row VS Code knows.
    const grown: Promise<void>[] = [];
    const node = await this.branches.revealNode(session, vs, entryId, (run) => {
      const started = Date.now();
      grown.push(new Promise<void>((resolve) => {
        // For the integration tests' log: whether VS Code asked (a reveal that fails says why).
        this.refetched.set(run, () => {
          testLog(`[reveal] ${run.id}: grown to ${run.shown} rows, asked for them after ${Date.now() - started} ms`);
          resolve();
        });
        setTimeout(() => {
          if (this.refetched.has(run)) testLog(`[reveal] ${run.id}: grown to ${run.shown} rows, not asked for them within 1 s`);
          resolve();
        }, 1000);
      }));
      this.changed.fire(run);
    });
    await Promise.all(grown);
    return node;
  }

  /** Runs grown for a reveal, and what to call once VS Code has asked for their rows again. */
  private readonly refetched = new Map<LoomNode, () => void>();

  // ---------- changes on disk ----------

  /** Applies a batch of changed session files (see sessionsWatcher.ts). */
  private async applyChanges(files: string[]): Promise<void> {
    const listed = this.listing.listed;
    if (!listed) {
      // Nothing listed yet: a scan in flight may have read the folder before the change; it lists again.
      this.listing.invalidate();
      return;
    }
    this.search.filesChanged(files);
    const projectsToRelist = new Set<ProjectNode>();
    const searchAgain: SessionMeta[] = [];
    let rescan = false;
    for (const file of files) {
      this.models.invalidate(file);
      const session = this.listing.knownSession(file);
      if (session) {
        const meta = await readSessionMeta(file, session.meta.root, session.meta.projectDir, session.meta.isSubagent);
        if (meta) {
          meta.subagents = session.meta.subagents;
          // what only the listing of the whole project knows: a summary title from another file, the link to the parent
          if (isForeignAgent(meta)) {
            meta.title ??= session.meta.title;
            meta.relation ??= session.meta.relation;
            meta.isSubagent = session.meta.isSubagent;
            // A summary record written into this file since it was listed may title another session
            // (Claude Code writes them into whichever file is current, spec A.10): the project's listing links them.
            const project = this.listing.projectHolding(file);
            if ((meta.summaries ?? 0) > (session.meta.summaries ?? 0) && project && listed.includes(project)) projectsToRelist.add(project);
          }
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
      const project = this.listing.projectHolding(file);
      if (project && listed.includes(project)) projectsToRelist.add(project);
      else if (this.listing.roots.some((r) => file.startsWith(r + path.sep))) rescan = true;
    }
    if (rescan) {
      this.listing.invalidate();
      if (this.search.active) void this.search.rescan();
      else this.changed.fire(undefined);
      return;
    }
    for (const p of projectsToRelist) {
      const sessions = await listProjectSessions(p.info.root, p.info.dir);
      if (sessions.length === 0) {
        this.listing.invalidate();
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

/** A line for the integration tests' log (their runs set SESSION_LOOM_TEST_HOME). */
function testLog(line: string): void {
  if (process.env.SESSION_LOOM_TEST_HOME) console.log(line);
}

function sessionOf(node: Exclude<LoomNode, ProjectNode | SessionNode | NoticeNode>): SessionNode {
  if (node.kind === 'more') return node.parent.session;
  return node.kind === 'diagnostic' || node.kind === 'info' || node.kind === 'peek' ? node.parent : node.session;
}

/** A peeked message as one line: its text, else its tool call, command or role. */
function peekText(m: MessageView): string {
  for (const b of m.blocks) {
    if ((b.kind === 'markdown' || b.kind === 'text') && b.text.trim() !== '') return oneLine(b.text, 200);
    if (b.kind === 'toolCall') return oneLine(`${b.name} ${b.argsJson}`, 200);
    if (b.kind === 'exec') return oneLine(b.command, 200);
  }
  return m.role;
}
