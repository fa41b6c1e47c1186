// How the Sessions tree shows a search (the scan itself is search.ts): only the projects and
// sessions that match, one notice row when none do, counts beside the rows, the status in the
// view's description, and rows under ids of their own. VS Code applies an item's
// collapsibleState only when its id is new to the tree, so results created under fresh ids open
// on the paths to the matching entries, and the rows the user expanded outside the search
// (expansionMemory.ts) are untouched for when it is cleared.
import * as vscode from 'vscode';
import { matchSummary, searchEmptyText, searchStatusText } from '../../core/discovery/sessionSearch';
import { treeFilterTitle, type TreeFilterMode } from '../../core/tree/treeView';
import type { SessionModels } from './sessionModels';
import { NoticeNode, type LoomNode, type ProjectNode } from './nodes';
import type { SessionSearch } from './search';

export class SearchMode {
  private readonly notice = new NoticeNode('');

  constructor(
    private readonly search: SessionSearch,
    private readonly models: SessionModels,
  ) {}

  /** The projects with matching sessions, or one row saying why none. */
  topLevel(projects: ProjectNode[]): LoomNode[] {
    const shown = projects.filter((p) => p.info.sessions.some((m) => this.search.shows(m)));
    if (this.search.usedIndex) {
      // Ranked: the project holding the best result first.
      const best = (p: ProjectNode): number => Math.min(...p.info.sessions.map((m) => this.search.rankOf(m.file) ?? Infinity));
      shown.sort((a, b) => best(a) - best(b));
    }
    if (shown.length > 0 || !this.search.status) return shown;
    this.notice.text = searchEmptyText(this.search.status, vscode.l10n.t);
    this.notice.icon = this.search.running ? 'loading~spin' : 'search-stop';
    return [this.notice];
  }

  /**
   * Whether a row is created expanded during a search: the path to the matching entries of the
   * sessions the search keeps open.
   */
  startsExpanded(node: LoomNode, file: string | undefined): boolean {
    switch (node.kind) {
      case 'project':
        return true;
      case 'session':
        return (
          ((this.search.hitOf(node.file)?.entryMatches ?? 0) > 0 && this.models.peek(node.file) !== undefined) ||
          node.meta.subagents.some((m) => this.search.shows(m))
        );
      case 'run':
      case 'entry':
        return file !== undefined && (this.search.hitOf(file)?.entryMatches ?? 0) > 0;
      default:
        return false;
    }
  }

  /** What a row adds to its description during a search (what matched, how many sessions). */
  note(node: LoomNode): string | undefined {
    if (!this.search.active) return undefined;
    if (node.kind === 'session') return matchSummary(this.search.hitOf(node.file), vscode.l10n.t) || undefined;
    if (node.kind === 'project') {
      const n = node.info.sessions.filter((m) => this.search.shows(m)).length;
      const total = node.info.sessions.length;
      return total === 1 ? vscode.l10n.t('{0} of {1} session', n, total) : vscode.l10n.t('{0} of {1} sessions', n, total);
    }
    return undefined;
  }

  /** The id a row shows under during the search: new to the tree, so it opens as created. */
  itemId(id: string): string {
    return `search:${this.search.tokens.join(' ')}:${id}`;
  }

  /** A session shown only for a matching subagent session: its own entries do not match. */
  hidesEntriesOf(file: string): boolean {
    return this.search.active && matchSummary(this.search.hitOf(file)) === '';
  }

  /** The filter and the search status in the view's description. */
  describe(treeView: vscode.TreeView<LoomNode>, filter: TreeFilterMode): void {
    const parts: string[] = [];
    if (filter !== 'default') parts.push(treeFilterTitle(filter, vscode.l10n.t));
    const status = this.search.status ? searchStatusText(this.search.status, vscode.l10n.t) : undefined;
    if (status) parts.push(status);
    treeView.description = parts.length > 0 ? parts.join(' · ') : undefined;
    // VS Code hides the description of a view alone in its container (the title reads
    // "SESSION LOOM: SESSIONS"): the search status shows as the view's message too.
    treeView.message = status;
  }
}
