// The branch tree beside the preview: the Sessions view's filters and search, one row per
// visible entry (a linear run stays at one indentation, branches indent), the selected leaf and
// its path highlighted. Rows arrive in windows; clicking a row previews the context there.
import * as l10n from '@vscode/l10n';
import { TREE_PAGE, type FirstPaint, type TreeFilter, type TreeRow } from '../src/protocol/messages';
import { formatShortTime, h, icon, kindIcon } from './dom';
import { mark, request } from './rpc';
import { VirtualList } from './virtualList';

const PAGE = TREE_PAGE;
const ROW_HEIGHT = 24;

/** The filters and their names (a function: the names are translated). */
function filters(): [TreeFilter, string][] {
  return [
    ['default', l10n.t('Default')],
    ['no-tools', l10n.t('No tools')],
    ['user-only', l10n.t('User messages only')],
    ['labelled-only', l10n.t('Labelled only')],
    ['all', l10n.t('All entries')],
  ];
}


export interface TreeHost {
  filter(): TreeFilter;
  search(): string;
  setFilter(f: TreeFilter, search: string): void;
  selectLeaf(entryId: string): void;
  /** The rows of a new filter or search are on screen. */
  filtered(): void;
}

export class BranchTree {
  readonly element: HTMLElement;
  private readonly listEl: HTMLElement;
  private readonly statusEl: HTMLElement;
  private readonly list: VirtualList;
  private rows = new Map<number, TreeRow>();
  private inflight = new Set<number>();
  private total = 0;
  private leafId: string | null = null;
  private focusEntry: string | null = null;
  /** The row of the selected leaf, or of its nearest ancestor the filter shows. */
  private selectedIndex: number | null = null;
  /** The selected leaf itself is hidden by the filter or search. */
  private leafHidden = false;
  private generation = 0;

  constructor(private readonly host: TreeHost) {
    // vscode-elements controls (issue 4, defined by controls.ts): they look like the workbench's own dropdown and input,
    // style themselves through adopted stylesheets and set inline styles only through the CSSOM,
    // so the strict CSP (no 'unsafe-inline') holds.
    const select = h('vscode-single-select', { class: 'sl-select', 'aria-label': l10n.t('Tree filter'), title: l10n.t('Which entries the tree shows') });
    for (const [value, label] of filters()) select.append(h('vscode-option', { value, selected: value === host.filter() ? '' : undefined }, label));
    const search = h('vscode-textfield', { class: 'sl-input', type: 'search', placeholder: l10n.t('Search entries'), 'aria-label': l10n.t('Search entries'), value: host.search() });
    // (A codicon of ours, not a vscode-icon: see headerBar.ts's button.)
    const searchIcon = icon('search', l10n.t('All words must match'));
    searchIcon.slot = 'content-before';
    search.append(searchIcon);
    search.value = host.search();
    let timer = 0;
    const changed = (): void => {
      host.setFilter(select.value as TreeFilter, search.value);
      void this.load(this.leafId, null).then(() => host.filtered());
    };
    select.addEventListener('change', changed);
    search.addEventListener('input', () => {
      clearTimeout(timer);
      timer = window.setTimeout(changed, 200);
    });
    this.statusEl = h('div', { class: 'sl-tree-status sl-muted sl-small' });
    this.listEl = h('div', { class: 'sl-tree-list', role: 'tree', tabindex: '0', 'aria-label': l10n.t('Branch tree') });
    this.element = h('aside', { class: 'sl-tree-pane', 'aria-label': l10n.t('Branch tree') }, h('div', { class: 'sl-tree-controls' }, select, search), this.statusEl, this.listEl);
    this.list = new VirtualList(this.listEl, {
      count: () => this.total,
      key: (i) => `t:${i}`,
      estimate: () => ROW_HEIGHT,
      // .sl-tree-row's CSS height: a 100k-row tree lays out without measuring anything.
      fixedHeight: ROW_HEIGHT,
      render: (i) => this.renderRow(i),
      activate: (i) => {
        const r = this.rows.get(i);
        if (r) host.selectLeaf(r.entryId);
      },
      initial: () => this.selectedIndex,
    });
  }

  /**
   * Reloads the rows for a selected leaf; scrolls to `focusEntryId` (or the leaf). `given`: a page of
   * rows for this leaf under the default filter that came with the host's `init`.
   */
  async load(leafId: string | null, focusEntryId: string | null, given?: FirstPaint['tree']): Promise<void> {
    const gen = ++this.generation;
    this.leafId = leafId;
    this.focusEntry = focusEntryId;
    // Enter on a row reloads the tree: the keyboard user stays on the selected row afterwards.
    const hadFocus = this.list.hasFocus();
    // The rows around what is on screen come with the first answer: the list is redrawn in place,
    // without a flash of placeholders under the pointer.
    const start = given ? given.start : Math.max(0, (this.list.anchor()?.index ?? 0) - 50);
    const first = given ? given.page : await request('getTree', { filter: this.host.filter(), search: this.host.search(), leafId, focusEntryId, start, count: PAGE });
    if (gen !== this.generation) return;
    this.rows = new Map();
    this.inflight = new Set();
    this.total = first.total;
    this.selectedIndex = first.selectedIndex;
    this.leafHidden = first.leafHidden;
    for (let k = 0; k < first.rows.length; k++) this.rows.set(start + k, first.rows[k]!);
    this.statusEl.textContent =
      first.hidden > 0 ? l10n.t('{0} shown · {1} hidden by the filter', first.total.toLocaleString(), first.hidden.toLocaleString()) : l10n.t('{0} shown', first.total.toLocaleString());
    const target = first.focusIndex ?? first.selectedIndex;
    // The rows do not move when the selection does (the layout ignores it), so a row the user
    // clicked is still under the pointer: scroll only to bring a target from elsewhere into view.
    const centred = (): number => -Math.max(0, this.listEl.clientHeight / 2 - ROW_HEIGHT);
    this.list.reset(true, target !== null ? { index: target, offset: centred() } : undefined);
    mark('tree');
    if (target !== null) {
      await this.ensure(target);
      if (gen !== this.generation) return;
      if (!this.list.isVisible(target)) this.list.scrollToIndex(target, centred());
      if (hadFocus) this.list.focusIndex(target);
    } else {
      this.list.scrollToIndex(0);
      if (hadFocus) this.listEl.focus({ preventScroll: true });
    }
  }

  /** The row the tree highlights for the selected leaf, and whether the leaf itself is hidden (after a load). */
  /** Puts the keyboard on the selected row (else the list itself). */
  focusSelection(): void {
    if (this.selectedIndex !== null) this.list.focusIndex(this.selectedIndex);
    else this.listEl.focus({ preventScroll: true });
  }

  selection(): { row: TreeRow | null; leafHidden: boolean } {
    return { row: this.selectedIndex === null ? null : (this.rows.get(this.selectedIndex) ?? null), leafHidden: this.leafHidden };
  }

  private async ensure(i: number): Promise<void> {
    if (this.rows.has(i)) return;
    const start = Math.floor(i / PAGE) * PAGE;
    if (this.inflight.has(start)) return;
    this.inflight.add(start);
    const gen = this.generation;
    try {
      const r = await request('getTree', { filter: this.host.filter(), search: this.host.search(), leafId: this.leafId, focusEntryId: null, start, count: PAGE });
      if (gen !== this.generation) return;
      r.rows.forEach((row, k) => this.rows.set(start + k, row));
      this.list.refresh();
    } finally {
      this.inflight.delete(start);
    }
  }

  private renderRow(i: number): HTMLElement {
    const r = this.rows.get(i);
    if (!r) {
      void this.ensure(i);
      return h('div', { class: 'sl-tree-row sl-muted' }, '…');
    }
    const selected = i === this.selectedIndex;
    const cls = ['sl-tree-row', selected ? 'is-selected' : '', r.onPath ? 'on-path' : '', r.entryId === this.focusEntry ? 'is-focus' : '', `kind-${r.kind.replace(/[^\w-]/g, '_')}`].filter(Boolean).join(' ');
    const row = h(
      'div',
      // The tooltip lists facts (kind, id, time: data) joined by " · "; only the depth is worded.
      {
        class: cls,
        role: 'treeitem',
        'aria-selected': String(selected),
        // Where it sits: side branches are one level deeper than the line they fork from.
        'aria-level': String(r.depth + 1),
        'data-entry-id': r.entryId,
        // VS Code's webview context menu (package.json `webview/context`): the entry's commands.
        'data-vscode-context': JSON.stringify({ webviewSection: 'entry', entryId: r.entryId, preventDefaultContextMenuItems: true }),
        title: [r.kind, r.entryId, r.timestamp, r.depth > 0 ? l10n.t('branch depth {0}', r.depth) : null].filter(Boolean).join(' · '),
      },
      h('span', { class: 'sl-indent', style: undefined }),
      r.forks ? h('span', { class: 'sl-fork', 'aria-hidden': 'true', title: l10n.t('A side branch starts here') }, '└') : null,
      icon(kindIcon(r.kind)),
      r.label ? h('span', { class: 'sl-label-chip' }, r.label) : null,
      h('span', { class: 'sl-tree-text' }, r.text),
      r.isDefaultLeaf
        ? h('span', { class: 'sl-leaf-chip', title: l10n.t('The default leaf: the last entry in the file') }, l10n.t('latest'))
        : r.isLeaf
          ? h('span', { class: 'sl-leaf-chip sl-muted', title: l10n.t('A leaf: the end of a branch') }, l10n.t('leaf'))
          : null,
      r.timestamp ? h('span', { class: 'sl-tree-time sl-muted' }, formatShortTime(r.timestamp)) : null,
    );
    // Deeply nested side branches stop indenting at 12 levels (the tooltip has the real depth).
    (row.firstChild as HTMLElement).style.width = `${Math.min(r.depth, 12) * 12}px`;
    row.addEventListener('click', () => this.host.selectLeaf(r.entryId));
    return row;
  }
}
