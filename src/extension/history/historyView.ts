// The Prompt History view (issue 12): every prompt the user typed to the agent, from its history
// database (read-only snapshots, src/core/history/promptHistory.ts) and Claude Code's and Codex's
// history.jsonl (agentPromptHistory.ts), newest first and grouped by day; a search through the
// database's own FTS5 index (a history.jsonl's word match) shows a flat list ranked by relevance.
// Filterable by project (cwd). Each prompt can be copied or opened in the session that sent it.
// A database that cannot be read is one sentence in the view, never an error dialog.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { allDefaultHistoryPaths, openAnyPromptHistory } from '../../core/history/agentPromptHistory';
import { dayOf, describeHistoryError, HistoryError, type HistoryEntry } from '../../core/history/promptHistory';

export type HistoryNode = { kind: 'day'; day: string; entries: HistoryEntry[] } | { kind: 'prompt'; entry: HistoryEntry; source: string; id: string };

const LIMIT = 2000;
const RELOAD_DEBOUNCE_MS = 400;

/** The day group of the rows whose created_at is no time (promptHistory.ts historyTime). */
const UNKNOWN_DAY = '';

/** "Today", "Yesterday", or the date. */
function dayLabel(day: string, now = new Date()): string {
  if (day === UNKNOWN_DAY) return vscode.l10n.t('Unknown time');
  const today = dayOf(now.getTime() / 1000);
  const yesterday = dayOf(now.getTime() / 1000 - 86_400);
  if (day === today) return vscode.l10n.t('Today');
  if (day === yesterday) return vscode.l10n.t('Yesterday');
  return day;
}

/** The agent a prompt was sent to, for a Claude Code or Codex history line ('' for xcsh's database). */
function agentLabel(e: HistoryEntry): string {
  if (e.agent === 'claude') return vscode.l10n.t('Claude Code');
  if (e.agent === 'codex') return vscode.l10n.t('Codex');
  return '';
}

const oneLine = (s: string, max = 140): string => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export class HistoryTreeProvider implements vscode.TreeDataProvider<HistoryNode>, vscode.Disposable {
  static readonly viewId = 'sessionLoom.history';
  private readonly changed = new vscode.EventEmitter<HistoryNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  treeView: vscode.TreeView<HistoryNode> | undefined;

  query = '';
  cwd: string | undefined;
  /** What the view shows after the last load. */
  entries: { entry: HistoryEntry; source: string }[] = [];
  problem: string | undefined;
  usedFts = true;
  /** The databases were read at least once (an empty history must not be read again on every redraw). */
  private loaded = false;
  private loading: Promise<void> | undefined;
  private watchers: vscode.Disposable[] = [];
  private reloadTimer: NodeJS.Timeout | undefined;

  /** `paths`: the histories to read (default: the agents' own databases and history.jsonl files). */
  constructor(private readonly paths: () => string[] = () => allDefaultHistoryPaths()) {}

  attach(view: vscode.TreeView<HistoryNode>): void {
    this.treeView = view;
    this.watch();
  }

  dispose(): void {
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    for (const w of this.watchers) w.dispose();
    this.changed.dispose();
  }

  /** Reloads when the agent writes its history (the database or its WAL). */
  private watch(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = this.paths().map((p) => {
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(p)), `${path.basename(p)}*`));
      const on = () => this.scheduleReload();
      return vscode.Disposable.from(w, w.onDidChange(on), w.onDidCreate(on), w.onDidDelete(on));
    });
  }

  private scheduleReload(): void {
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => void this.reload(), RELOAD_DEBOUNCE_MS);
  }

  /** Reads the databases again with the current search and project filter. */
  reload(): Promise<void> {
    const run = this.load().finally(() => {
      if (this.loading === run) this.loading = undefined;
      this.describe();
      this.changed.fire(undefined);
    });
    this.loading = run;
    return run;
  }

  async setQuery(query: string): Promise<void> {
    this.query = query.trim();
    void vscode.commands.executeCommand('setContext', 'sessionLoom.historySearchActive', this.query !== '');
    await this.reload();
  }

  async setCwd(cwd: string | undefined): Promise<void> {
    this.cwd = cwd;
    void vscode.commands.executeCommand('setContext', 'sessionLoom.historyFiltered', cwd !== undefined);
    await this.reload();
  }

  /** The working directories of every database, with their prompt counts. */
  async cwds(): Promise<{ cwd: string | null; count: number }[]> {
    const counts = new Map<string | null, number>();
    for (const p of this.paths()) {
      try {
        const h = await openAnyPromptHistory(p);
        try {
          for (const c of h.cwds()) counts.set(c.cwd, (counts.get(c.cwd) ?? 0) + c.count);
        } finally {
          h.close();
        }
      } catch {
        // shown by the view itself
      }
    }
    return [...counts.entries()].map(([cwd, count]) => ({ cwd, count })).sort((a, b) => b.count - a.count);
  }

  private async load(): Promise<void> {
    const problems: string[] = [];
    const rows: { entry: HistoryEntry; source: string; rank: number }[] = [];
    let usedFts = true;
    let anyOpened = false;
    let firstMissing: string | undefined;
    for (const p of this.paths()) {
      try {
        const h = await openAnyPromptHistory(p);
        anyOpened = true;
        try {
          const r = h.query({ ...(this.query ? { search: this.query } : {}), ...(this.cwd !== undefined ? { cwd: this.cwd } : {}), limit: LIMIT });
          usedFts &&= r.usedFts || !this.query;
          r.entries.forEach((entry, rank) => rows.push({ entry, source: p, rank }));
        } finally {
          h.close();
        }
      } catch (e) {
        // A missing omp/pi database is simply not there; a missing xcsh one is said only when no other history opened.
        if (e instanceof HistoryError) {
          if (e.code !== 'missing') problems.push(describeHistoryError(e, vscode.l10n.t));
          else if (p === this.paths()[0]) firstMissing = describeHistoryError(e, vscode.l10n.t);
        } else problems.push(vscode.l10n.t('The prompt history {0} cannot be read: {1}', p, e instanceof Error ? e.message : String(e)));
      }
    }
    // Ranked (search) or newest first; several databases interleave by the same order.
    if (firstMissing !== undefined && !anyOpened) problems.unshift(firstMissing);
    rows.sort((a, b) => (this.query ? a.rank - b.rank : 0) || (b.entry.createdAt ?? -Infinity) - (a.entry.createdAt ?? -Infinity) || b.entry.id - a.entry.id);
    this.entries = rows.map(({ entry, source }) => ({ entry, source }));
    this.loaded = true;
    this.usedFts = usedFts;
    this.problem = anyOpened && rows.length > 0 ? (problems.length > 0 ? problems.join(' ') : undefined) : problems.join(' ') || undefined;
  }

  private describe(): void {
    const tv = this.treeView;
    if (!tv) return;
    const parts: string[] = [];
    if (this.cwd !== undefined) parts.push(path.basename(this.cwd) || this.cwd);
    if (this.query) parts.push(this.entries.length === 1 ? vscode.l10n.t('“{0}” · 1 prompt', this.query) : vscode.l10n.t('“{0}” · {1} prompts', this.query, this.entries.length));
    tv.description = parts.length > 0 ? parts.join(' · ') : undefined;
    const notes: string[] = [];
    if (this.problem) notes.push(this.problem);
    if (this.query && !this.usedFts) notes.push(vscode.l10n.t('The history has no usable full-text index: searched by substring.'));
    if (!this.problem && this.entries.length === 0) notes.push(this.query ? vscode.l10n.t('No prompt matches “{0}”.', this.query) : vscode.l10n.t('No prompts in the history yet.'));
    tv.message = notes.length > 0 ? notes.join(' ') : undefined;
  }

  async getChildren(node?: HistoryNode): Promise<HistoryNode[]> {
    if (!node) {
      if (this.loading) await this.loading;
      else if (!this.loaded) await this.reload();
      if (this.query) return this.entries.map(({ entry, source }) => ({ kind: 'prompt', entry, source, id: `${source}#${entry.id}` }));
      const days = new Map<string, HistoryEntry[]>();
      for (const { entry } of this.entries) {
        const d = entry.createdAt === null ? UNKNOWN_DAY : dayOf(entry.createdAt);
        let list = days.get(d);
        if (!list) days.set(d, (list = []));
        list.push(entry);
      }
      return [...days.entries()].map(([day, entries]) => ({ kind: 'day', day, entries }));
    }
    if (node.kind === 'day') {
      const sources = new Map(this.entries.map((e) => [e.entry, e.source]));
      return node.entries.map((entry) => ({ kind: 'prompt', entry, source: sources.get(entry) ?? '', id: `${sources.get(entry) ?? ''}#${entry.id}` }));
    }
    return [];
  }

  getTreeItem(node: HistoryNode): vscode.TreeItem {
    if (node.kind === 'day') {
      const item = new vscode.TreeItem(dayLabel(node.day), vscode.TreeItemCollapsibleState.Expanded);
      item.id = `day:${node.day}:${this.query}:${this.cwd ?? ''}`;
      item.description = node.entries.length === 1 ? vscode.l10n.t('1 prompt') : vscode.l10n.t('{0} prompts', node.entries.length);
      item.iconPath = new vscode.ThemeIcon('calendar');
      item.contextValue = 'historyDay';
      return item;
    }
    const e = node.entry;
    const when = e.createdAt === null ? null : new Date(e.createdAt * 1000);
    const time = when ? when.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : vscode.l10n.t('unknown time');
    const sent = when ? when.toLocaleString() : vscode.l10n.t('unknown time');
    const item = new vscode.TreeItem({ label: oneLine(e.prompt), highlights: this.highlights(oneLine(e.prompt)) }, vscode.TreeItemCollapsibleState.None);
    item.id = `prompt:${node.id}:${this.query}`;
    const project = e.cwd ? path.basename(e.cwd) : '';
    const agent = agentLabel(e);
    item.description = [this.query && e.createdAt !== null ? dayOf(e.createdAt) : '', time, project, agent].filter(Boolean).join(' · ');
    const tip = new vscode.MarkdownString();
    tip.appendCodeblock(e.prompt.length > 4000 ? `${e.prompt.slice(0, 4000)}…` : e.prompt, 'text');
    tip.appendMarkdown(`\n\n${sent}${e.cwd ? ` · \`${e.cwd}\`` : ''}${agent ? ` · ${agent}` : ''}`);
    item.tooltip = tip;
    item.iconPath = new vscode.ThemeIcon('comment');
    item.contextValue = 'historyPrompt';
    item.accessibilityInformation = { label: vscode.l10n.t('Prompt sent {0} in {1}: {2}', sent, e.cwd ?? vscode.l10n.t('an unknown folder'), oneLine(e.prompt, 300)) };
    item.command = { command: 'sessionLoom.history.openInSession', title: vscode.l10n.t('Open in Session'), arguments: [node] };
    return item;
  }

  /** The search words in a label (each a prefix, as the search treats them), case-insensitively. */
  private highlights(label: string): [number, number][] {
    if (!this.query) return [];
    const lower = label.toLowerCase();
    const out: [number, number][] = [];
    for (const w of this.query.toLowerCase().split(/\s+/).filter(Boolean)) {
      const word = w.replace(/^"|"$/g, '');
      if (!word) continue;
      for (let i = lower.indexOf(word); i !== -1; i = lower.indexOf(word, i + word.length)) {
        // Only where a word starts (the index matches word prefixes).
        if (i === 0 || !/[\p{L}\p{N}]/u.test(lower[i - 1]!)) out.push([i, i + word.length]);
      }
    }
    return out.sort((a, b) => a[0] - b[0]).filter((r, i, all) => i === 0 || r[0] >= all[i - 1]![1]);
  }
}
