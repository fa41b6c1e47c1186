// The context preview: runtime state on top, then a virtual list of what the model sees at the
// selected leaf. With a compaction on the path the list reads: summary, the band of cut entries
// (collapsed, expandable), the kept range, the compaction boundary, the messages after it.
import * as l10n from '@vscode/l10n';
import { MESSAGE_PAGE, type ContextInfo, type FirstPaint, type MatchTerms, type MessageView } from '../src/protocol/messages';
import { formatTime, formatTokens, h, icon, kindIcon, sentence } from './dom';
import { renderMessageRow, type RowActions } from './messageRow';
import { request } from './rpc';
import { markQueryWords } from './jumpMarks';

/** What brought the user to an entry: its row flashes; `highlight` (a search query) marks its words. */
export interface Jump {
  highlight?: MatchTerms;
}

/** How long a row jumped to flashes (styles.css: the `sl-flash` animation). */
const FLASH_MS = 1_600;
import { VirtualList } from './virtualList';

const PAGE = MESSAGE_PAGE;

type Item = { kind: 'msg'; index: number } | { kind: 'cut'; index: number } | { kind: 'band' } | { kind: 'kept' } | { kind: 'boundary' };
interface Segment {
  kind: Item['kind'];
  start: number;
  length: number;
  base: number;
}

export interface PreviewHost {
  actions: RowActions;
  isCutBandOpen(): boolean;
  setCutBandOpen(open: boolean): void;
  onFirstPaint(info: ContextInfo): void;
  onScroll(): void;
}

export class ContextPreview {
  readonly element: HTMLElement;
  private readonly runtimeEl: HTMLElement;
  private readonly listEl: HTMLElement;
  private readonly list: VirtualList;
  private info: ContextInfo | null = null;
  /** The last size the provider reported on the branch shown (the chart's last point on a message), for the token account. */
  private reported: { leafId: string | null; tokens: number; messageIndex: number } | null = null;
  private accountEl: HTMLElement | null = null;
  /** The entry the user last jumped to in this context (its row keeps its marks when drawn again). */
  private jumped: { entryId: string; flashUntil: number; highlight?: MatchTerms } | null = null;
  private segments: Segment[] = [];
  private msgs = new Map<number, MessageView>();
  private cuts = new Map<number, MessageView>();
  private inflight = new Set<string>();
  private placeholders = new Set<number>();
  private generation = 0;
  private painted = false;
  private titleEl: HTMLElement | null = null;
  /** The tree's row for a leaf the filter hides (see nameLeaf). */
  private shownAs: { kind: string; text: string; label: string | null; entryId: string } | null = null;

  constructor(private readonly host: PreviewHost) {
    this.runtimeEl = h('section', { class: 'sl-runtime', 'aria-label': l10n.t('Runtime state at this leaf') });
    this.listEl = h('div', { class: 'sl-messages', role: 'list', tabindex: '0', 'aria-label': l10n.t('Messages sent to the model') });
    this.element = h('section', { class: 'sl-preview-pane', 'aria-label': l10n.t('Context preview') }, this.runtimeEl, this.listEl);
    this.list = new VirtualList(this.listEl, {
      count: () => this.count(),
      key: (i) => this.key(i),
      estimate: (i) => {
        const kind = this.item(i).kind;
        return kind === 'msg' || kind === 'cut' ? 96 : 34;
      },
      render: (i) => this.renderItem(i),
      activate: (i, row) => this.activate(i, row),
      rendered: () => {
        this.checkPainted();
        this.host.onScroll();
      },
    });
    this.listEl.addEventListener('scroll', () => this.host.onScroll(), { passive: true });
  }

  get leafId(): string | null {
    return this.info?.leafId ?? null;
  }

  get context(): ContextInfo | null {
    return this.info;
  }

  /**
   * Loads the context at `leafId` (null = default leaf); keeps the scroll anchor when `anchor` names
   * an entry on it. `given`: its context and first page, when they came with the host's `init`.
   */
  async show(leafId: string | null, anchor: { entryId: string | null; offset: number; toEnd?: boolean; jump?: Jump } | null, given?: Pick<FirstPaint, 'context' | 'messages'>): Promise<void> {
    const gen = ++this.generation;
    this.jumped = null;
    const fits = given !== undefined && leafId !== null && given.context.leafId === leafId && given.messages.revision === given.context.revision;
    // A named leaf's first page is asked together with its context: one round trip to the
    // worker instead of two before the first rows paint.
    const early = fits ? Promise.resolve(given.messages) : leafId !== null ? request('getMessages', { leafId, start: 0, count: PAGE }).catch(() => null) : null;
    const info = fits ? given.context : await request('getContext', { leafId });
    if (gen !== this.generation) return;
    // The first page arrives with the context, so the list never flashes placeholders on open.
    const asked = early !== null && info.leafId === leafId ? await early : null;
    const firstPage =
      info.messageCount === 0 ? { items: [] } : asked && asked.revision === info.revision ? asked : await request('getMessages', { leafId: info.leafId, start: 0, count: PAGE });
    if (gen !== this.generation) return;
    if (this.info?.leafId !== info.leafId) this.shownAs = null;
    this.info = info;
    this.msgs = new Map(firstPage.items.map((m) => [m.index, m]));
    this.cuts = new Map();
    this.inflight = new Set();
    this.placeholders = new Set();
    this.buildSegments();
    this.renderRuntime();
    this.listEl.dataset.leafId = info.leafId ?? '';
    this.listEl.dataset.messageCount = String(info.messageCount);
    this.list.reset();
    if (anchor?.toEnd) {
      await this.ensure('msg', Math.max(0, info.messageCount - 1));
      if (gen === this.generation) this.list.scrollToEnd();
    } else if (anchor?.entryId) {
      const shown = await this.reveal(anchor.entryId, anchor.offset, anchor.jump);
      // A jump to an entry the context shows no message of (a label, a model change…): it is the
      // leaf, so the end of the context is where it sits.
      if (!shown && anchor.jump && gen === this.generation) this.list.scrollToEnd();
    } else {
      this.list.scrollToIndex(0);
    }
  }

  /**
   * Scrolls to an entry of this context (a message, or a cut entry: the band opens). A `jump` (a
   * search hit, a prompt from the history, a tree row, a link) also flashes its row and marks the
   * query's words in it, as VS Code's Search view does.
   */
  async reveal(entryId: string, offset = 0, jump?: Jump): Promise<boolean> {
    if (!this.info) return false;
    const at = await request('locate', { leafId: this.info.leafId, entryId });
    let item: number | null = null;
    if (at.messageIndex !== null) item = this.itemOf('msg', at.messageIndex);
    else if (at.cutIndex !== null) {
      if (!this.host.isCutBandOpen()) this.toggleBand(true);
      item = this.itemOf('cut', at.cutIndex);
    }
    if (item === null) return false;
    const it = this.item(item);
    if (it.kind === 'msg' || it.kind === 'cut') await this.ensure(it.kind, it.index);
    this.list.scrollToIndex(item, offset);
    if (jump) this.showJump(item, entryId, jump.highlight);
    return true;
  }

  /** The chart's points of the branch at `leafId` (null: left out): the token account reads the provider's last report from them. */
  setReported(leafId: string | null, points: readonly { tokens: number; messageIndex: number | null }[] | null): void {
    const last = points ? [...points].reverse().find((p) => p.messageIndex !== null) : undefined;
    this.reported = last ? { leafId, tokens: last.tokens, messageIndex: last.messageIndex! } : null;
    this.renderAccount();
  }

  /**
   * One account of the tokens at this leaf (issue 25): the size the provider reported at its last
   * turn, what was sent after it (our estimate), our estimate of the messages and of the compaction
   * summary, what the compaction saved, and what neither counts (system prompt, tools). Each number
   * says whose it is.
   */
  private renderAccount(): void {
    const el = this.accountEl;
    const info = this.info;
    if (!el || !info) return;
    const reported = this.reported && this.reported.leafId === info.leafId ? this.reported : null;
    const total = info.totalTokensEst;
    const rows: (string | Node)[] = [];
    let since: number | null = null;
    if (reported) {
      const at = this.msgs.get(reported.messageIndex);
      since = at ? Math.max(0, total - at.cumulativeTokensEst) : null;
      rows.push(l10n.t('Reported by the provider at message #{1}, in tokens: {0} — the input of that turn (with cache reads and writes), what the model read then.', reported.tokens.toLocaleString(), reported.messageIndex + 1));
      if (since !== null) rows.push(l10n.t('Sent after it, in tokens (our estimate): ≈ {0} — so the next turn reads about {1}.', formatTokens(since), formatTokens(reported.tokens + since)));
      // (Its message is read once the account is opened: nothing is asked of the host before the first paint for it.)
      else if ((el as HTMLDetailsElement).open) void this.ensure('msg', reported.messageIndex).then(() => this.renderAccount());
    } else rows.push(l10n.t('Reported by the provider: nothing on this branch (no usage recorded).'));
    const c = info.compaction;
    const summary = c ? this.msgs.get(c.summaryIndex ?? 0) : undefined;
    rows.push(
      summary && summary.segment === 'summary'
        ? l10n.t('Our estimate of the messages, in tokens (characters ÷ 4, an image ≈ 1k): ≈ {0}, of which the compaction summary ≈ {1}.', formatTokens(total), formatTokens(summary.tokensEst))
        : l10n.t('Our estimate of the messages, in tokens (characters ÷ 4, an image ≈ 1k): ≈ {0}.', formatTokens(total)),
    );
    if (c && c.tokensBefore !== null) {
      rows.push(
        summary && summary.segment === 'summary'
          ? l10n.t('The compaction replaced the context it cut (in tokens, reported when it ran: {0}) by its summary of ≈ {1}: it saved ≈ {2}.', c.tokensBefore.toLocaleString(), formatTokens(summary.tokensEst), formatTokens(Math.max(0, c.tokensBefore - summary.tokensEst)))
          : l10n.t('The compaction replaced the context it cut (in tokens, reported when it ran: {0}) by its summary.', c.tokensBefore.toLocaleString()),
      );
    }
    const r = info.runtime;
    rows.push(
      r.systemPrompt
        ? l10n.t('Not in our estimate: the system prompt (in tokens ≈ {0}) and the tool definitions, sent with every turn; the provider\'s figure includes them.', formatTokens(Math.ceil(r.systemPrompt.length / 4)))
        : l10n.t('Not in our estimate: the system prompt and the tool definitions, sent with every turn but not in this file; the provider\'s figure includes them.'),
    );
    const head = reported
      ? since !== null
        ? l10n.t('Tokens: {0} reported at #{1} + ≈ {2} since · ≈ {3} in the messages (estimate)', formatTokens(reported.tokens), reported.messageIndex + 1, formatTokens(since), formatTokens(total))
        : l10n.t('Tokens: {0} reported at #{1} · ≈ {2} in the messages (estimate)', formatTokens(reported.tokens), reported.messageIndex + 1, formatTokens(total))
      : l10n.t('Tokens: ≈ {0} in the messages (estimate; no usage reported)', formatTokens(total));
    el.replaceChildren(h('summary', {}, head), h('ul', { class: 'sl-note-list' }, ...rows.map((x) => h('li', {}, x))));
  }

  /** Scrolls to a message of this context and focuses it, flashing it (the chart's points, "↓ result"). */
  async jumpToMessage(index: number): Promise<void> {
    const item = this.itemOf('msg', index);
    if (item === null) return;
    await this.ensure('msg', index);
    this.list.scrollToIndex(item);
    this.list.focusIndex(item);
    const entryId = this.msgs.get(index)?.entryId;
    if (entryId) this.showJump(item, entryId);
  }

  /** Flashes the row of `item` (once: restarting the animation) and marks the query's words in it. */
  private showJump(item: number, entryId: string, highlight?: MatchTerms): void {
    this.jumped = { entryId, flashUntil: performance.now() + FLASH_MS, ...(highlight ? { highlight } : {}) };
    const row = this.list.rowElement(item);
    if (!row) return;
    // (Marks the row the user jumped to for as long as this context shows: tests and styles can find it.)
    row.dataset.jumped = 'true';
    row.classList.remove('sl-flash');
    void row.offsetWidth; // (restarts the animation of a row flashed before)
    row.classList.add('sl-flash');
    if (highlight) markQueryWords(row, highlight);
  }

  /** The entry at the top of the viewport and the offset into it, for state and live reloads. */
  anchor(): { entryId: string | null; offset: number; atEnd: boolean } {
    const a = this.list.anchor();
    const atEnd = this.list.atEnd();
    if (!a) return { entryId: null, offset: 0, atEnd };
    const it = this.item(a.index);
    const view = it.kind === 'msg' ? this.msgs.get(it.index) : it.kind === 'cut' ? this.cuts.get(it.index) : undefined;
    return { entryId: view?.entryId ?? null, offset: a.offset, atEnd };
  }

  private buildSegments(): void {
    const info = this.info!;
    const n = info.messageCount;
    const segs: Segment[] = [];
    let at = 0;
    const push = (kind: Item['kind'], length: number, base = 0): void => {
      if (length <= 0) return;
      segs.push({ kind, start: at, length, base });
      at += length;
    };
    const c = info.compaction;
    if (!c) {
      push('msg', n);
    } else {
      // The summary stands where the span it replaced was: first for an xcsh compaction, wherever
      // the shadowed span began for a dsh replacement (the messages before it are sent as usual).
      const s = Math.min(c.summaryIndex ?? 0, n);
      push('msg', s);
      push('msg', Math.min(1, n - s), s);
      push('band', c.cutCount > 0 ? 1 : 0);
      if (this.host.isCutBandOpen()) push('cut', c.cutCount);
      if (c.keptEnd > s + 1) {
        push('kept', 1);
        push('msg', c.keptEnd - s - 1, s + 1);
      }
      if (n > c.keptEnd) {
        push('boundary', 1);
        push('msg', n - c.keptEnd, c.keptEnd);
      }
    }
    this.segments = segs;
  }

  private count(): number {
    const last = this.segments[this.segments.length - 1];
    return last ? last.start + last.length : 0;
  }

  private item(i: number): Item {
    for (const s of this.segments) {
      if (i >= s.start && i < s.start + s.length) {
        if (s.kind === 'msg' || s.kind === 'cut') return { kind: s.kind, index: s.base + (i - s.start) };
        return { kind: s.kind } as Item;
      }
    }
    return { kind: 'boundary' };
  }

  private itemOf(kind: 'msg' | 'cut', index: number): number | null {
    for (const s of this.segments) if (s.kind === kind && index >= s.base && index < s.base + s.length) return s.start + (index - s.base);
    return null;
  }

  private key(i: number): string {
    const it = this.item(i);
    return it.kind === 'msg' || it.kind === 'cut' ? `${it.kind}:${it.index}` : it.kind;
  }

  private async ensure(kind: 'msg' | 'cut', index: number): Promise<void> {
    const cache = kind === 'msg' ? this.msgs : this.cuts;
    if (cache.has(index) || !this.info) return;
    const start = Math.floor(index / PAGE) * PAGE;
    const tag = `${kind}:${start}`;
    if (this.inflight.has(tag)) return;
    this.inflight.add(tag);
    const gen = this.generation;
    const leafId = this.info.leafId;
    try {
      const r = kind === 'msg' ? await request('getMessages', { leafId, start, count: PAGE }) : await request('getCutEntries', { leafId, start, count: PAGE });
      if (gen !== this.generation) return;
      for (const m of r.items) cache.set(m.index, m);
    } finally {
      this.inflight.delete(tag);
    }
    if (gen !== this.generation) return;
    const stale = [...this.placeholders].filter((i) => {
      const it = this.item(i);
      return it.kind === kind && it.index >= start && it.index < start + PAGE;
    });
    for (const i of stale) this.placeholders.delete(i);
    if (stale.length > 0) this.list.refresh(stale);
  }

  private renderItem(i: number): HTMLElement {
    const it = this.item(i);
    const info = this.info!;
    switch (it.kind) {
      case 'msg':
      case 'cut': {
        const view = (it.kind === 'msg' ? this.msgs : this.cuts).get(it.index);
        if (!view) {
          this.placeholders.add(i);
          void this.ensure(it.kind, it.index);
          return h('div', { class: `sl-msg sl-placeholder${it.kind === 'cut' ? ' seg-cut' : ''}` }, h('span', { class: 'sl-muted' }, l10n.t('#{0} loading…', it.index + 1)));
        }
        const row = renderMessageRow(view, it.kind === 'msg' ? info.messageCount : (info.compaction?.cutCount ?? 0), this.host.actions);
        // Its share of the context (issue 25: one account of the numbers).
        const tokens = row.querySelector<HTMLElement>('.sl-tokens');
        if (tokens && it.kind === 'msg' && info.totalTokensEst > 0) {
          tokens.title = l10n.t('Estimated tokens of this message: characters ÷ 4 (images ≈ 1k each) — {0}% of the context\'s estimate', ((100 * view.tokensEst) / info.totalTokensEst).toFixed(view.tokensEst * 1000 < info.totalTokensEst ? 2 : 1));
        }
        // The row jumped to keeps its marks when the list draws it again (scrolling, pages coming in).
        if (this.jumped?.entryId === view.entryId) {
          row.dataset.jumped = 'true';
          if (performance.now() < this.jumped.flashUntil) row.classList.add('sl-flash');
          if (this.jumped.highlight) markQueryWords(row, this.jumped.highlight);
        }
        return row;
      }
      case 'band': {
        const c = info.compaction!;
        const open = this.host.isCutBandOpen();
        const at = formatTime(c.timestamp) || c.id;
        const row = h(
          'div',
          { class: `sl-band${open ? ' is-open' : ''}`, role: 'button', 'aria-expanded': String(open) },
          icon(open ? 'chevron-down' : 'chevron-right'),
          h(
            'span',
            { class: 'sl-band-text' },
            c.cutCount === 1
              ? l10n.t('{0} entry not sent — summarised by compaction at {1}', c.cutCount.toLocaleString(), at)
              : l10n.t('{0} entries not sent — summarised by compaction at {1}', c.cutCount.toLocaleString(), at),
          ),
          h('span', { class: 'sl-muted sl-small' }, ' ', open ? l10n.t('(click to collapse)') : l10n.t('(click to show them)')),
        );
        row.addEventListener('click', () => this.toggleBand(!this.host.isCutBandOpen()));
        return row;
      }
      case 'kept': {
        const c = info.compaction!;
        const kept = c.keptEnd - 1;
        const from = c.firstKeptEntryId ?? '?';
        return h(
          'div',
          { class: 'sl-marker sl-marker-kept' },
          icon('pass'),
          ' ',
          kept === 1
            ? l10n.t('Kept range: {0} message from entry {1} up to the compaction, sent verbatim', kept, from)
            : l10n.t('Kept range: {0} messages from entry {1} up to the compaction, sent verbatim', kept, from),
        );
      }
      case 'boundary': {
        const c = info.compaction!;
        return h('div', { class: 'sl-marker sl-marker-boundary' }, icon('fold-down'), ' ', l10n.t('Compaction {0} — messages after it', c.id));
      }
    }
  }

  private activate(i: number, row: HTMLElement): void {
    const it = this.item(i);
    if (it.kind === 'band') {
      this.toggleBand(!this.host.isCutBandOpen());
      return;
    }
    const details = [...row.querySelectorAll('details')];
    if (details.length === 0) return;
    const open = details.some((d) => !d.open);
    for (const d of details) d.open = open;
  }

  private toggleBand(open: boolean): void {
    const a = this.list.anchor();
    this.host.setCutBandOpen(open);
    this.buildSegments();
    this.list.reset(false);
    const bandItem = this.segments.find((s) => s.kind === 'band')?.start ?? 0;
    this.list.scrollToIndex(open ? bandItem : Math.min(a?.index ?? 0, bandItem));
    this.list.focusIndex(bandItem);
  }

  private checkPainted(): void {
    if (this.painted || !this.info) return;
    if (this.info.messageCount > 0 && this.msgs.size === 0) return;
    this.painted = true;
    this.host.onFirstPaint(this.info);
  }

  /**
   * Names the leaf the way the branch tree shows it (issue 14: "Context at a1000013" named an id
   * the tree did not show). `shown` is the row the tree highlights: when the filter hides the leaf,
   * that is its nearest shown ancestor, and the title says a hidden entry follows it.
   */
  nameLeaf(shown: { kind: string; text: string; label: string | null; entryId: string } | null, leafHidden: boolean): void {
    this.shownAs = shown && this.info && shown.entryId !== this.info.leafId && leafHidden ? shown : null;
    this.renderLeafName();
  }

  private renderLeafName(): void {
    const info = this.info;
    const el = this.titleEl;
    if (!info || !el) return;
    const leaf = info.leaf;
    const row = this.shownAs ?? leaf;
    const name = row
      ? h(
          'span',
          { class: 'sl-leaf-name', title: [info.leafId, leaf?.kind].filter(Boolean).join(' · '), 'data-entry-id': this.shownAs?.entryId ?? info.leafId ?? '' },
          icon(kindIcon(row.kind)),
          row.label ? h('span', { class: 'sl-label-chip' }, row.label) : null,
          h('span', { class: 'sl-leaf-text' }, row.text),
        )
      : h('span', { class: 'sl-leaf-name sl-muted' }, l10n.t('(empty)'));
    el.replaceChildren(...sentence(l10n.t('Context at {0}', '{0}'), [name], (words) => h('strong', {}, words)));
    if (this.shownAs && leaf) el.append(h('span', { class: 'sl-muted sl-leaf-hidden' }, ' ', l10n.t('and a {0} entry after it that the filter hides', leaf.kind)));
  }

  private renderRuntime(): void {
    const info = this.info!;
    const r = info.runtime;
    const models = Object.entries(r.models);
    const dsh = r.tools !== undefined && r.tools !== null;
    // A log that records the messages only (Claude Code, Codex) has no xcsh TTSR rules to show.
    const messagesOnly = info.notRecorded !== undefined;
    const el = this.runtimeEl;
    el.replaceChildren();
    const n = info.messageCount;
    const totals = [
      n === 1 ? l10n.t('{0} message', 1) : l10n.t('{0} messages', n.toLocaleString()),
      info.totalTokensEst === 1 ? l10n.t('≈ {0} token est.', 1) : l10n.t('≈ {0} tokens est.', formatTokens(info.totalTokensEst)),
      info.pathLength === 1 ? l10n.t('path of {0} entry', 1) : l10n.t('path of {0} entries', info.pathLength.toLocaleString()),
    ];
    this.titleEl = h('span', { class: 'sl-runtime-leaf' });
    this.renderLeafName();
    el.append(
      h('div', { class: 'sl-runtime-title' }, this.titleEl, h('span', { class: 'sl-muted' }, ' · ', totals.join(' · '))),
      h(
        'div',
        { class: 'sl-runtime-grid' },
        chip('lightbulb', l10n.t('Thinking:'), r.thinkingLevel),
        chip('hubot', l10n.t('Models:'), models.length === 0 ? l10n.t('none') : models.map(([role, m]) => (role === 'default' ? m : `${role}: ${m}`)).join(', ')),
        // dsh has no modes or TTSR rules: it sends a system prompt and tools instead
        dsh ? null : chip('symbol-enum', r.modeLabel ?? l10n.t('Mode:'), r.mode),
        dsh || messagesOnly ? null : chip('law', l10n.t('TTSR rules:'), r.injectedTtsrRules.length === 0 ? l10n.t('none') : String(r.injectedTtsrRules.length)),
        // Spec Part B §22: shown only when the path has such an entry (what the model is sent changes with them)
        r.serviceTier !== undefined ? chip('dashboard', l10n.t('Service tier:'), r.serviceTier ?? l10n.t('default')) : null,
        r.activeContext ? chip('globe', l10n.t('Active context:'), activeContextText(r.activeContext)) : null,
        r.hasPersistedMCPToolSelection ? chip('tools', l10n.t('MCP tools:'), mcpToolsText(r.selectedMCPToolNames ?? [])) : null,
      ),
    );
    const mcp = r.hasPersistedMCPToolSelection ? (r.selectedMCPToolNames ?? []) : [];
    if (mcp.length > MCP_TOOLS_INLINE) {
      el.append(
        h('details', { class: 'sl-fold sl-runtime-more sl-mcp-tools' }, h('summary', {}, l10n.t('Selected MCP tools ({0})', mcp.length)), h('ul', { class: 'sl-tool-list' }, ...mcp.map((x) => h('li', {}, h('code', {}, x))))),
      );
    }
    if (dsh) {
      const system = systemPromptFold(r.systemPrompt ?? null);
      const tools = r.tools ?? [];
      const toolList = h('details', { class: 'sl-fold sl-runtime-more sl-tools' }, h('summary', {}, tools.length === 1 ? l10n.t('{0} tool', 1) : l10n.t('{0} tools', tools.length)));
      if (tools.length > 0) toolList.append(h('ul', { class: 'sl-tool-list' }, ...tools.map((x) => h('li', {}, h('code', {}, x)))));
      el.append(system, toolList);
    } else if (r.systemPrompt) {
      el.append(systemPromptFold(r.systemPrompt));
    }
    this.accountEl = h('details', { class: 'sl-fold sl-runtime-more sl-token-account' });
    this.accountEl.addEventListener('toggle', () => this.renderAccount());
    el.append(this.accountEl);
    this.renderAccount();
    // Where the system prompt would be: what the log does not hold, then what the preview knows beyond its rows.
    if (info.notRecorded !== undefined) el.append(h('div', { class: 'sl-not-recorded', role: 'note' }, icon('info'), h('span', {}, info.notRecorded)));
    if (info.notes && info.notes.length > 0) {
      el.append(
        h(
          'details',
          { class: 'sl-fold sl-runtime-more sl-context-notes', open: '' },
          h('summary', {}, info.notes.length === 1 ? l10n.t('About this context ({0} note)', 1) : l10n.t('About this context ({0} notes)', info.notes.length)),
          h('ul', { class: 'sl-note-list' }, ...info.notes.map((x) => h('li', {}, x))),
        ),
      );
    }
    if (r.modeDataJson || r.injectedTtsrRules.length > 0) {
      const d = h('details', { class: 'sl-fold sl-runtime-more' }, h('summary', {}, r.modeDataLabel ?? l10n.t('Mode data and injected rules')));
      if (r.modeDataJson) d.append(h('pre', { class: 'sl-pre sl-json' }, r.modeDataJson));
      if (r.injectedTtsrRules.length > 0) d.append(h('ul', {}, ...r.injectedTtsrRules.map((x) => h('li', {}, x))));
      el.append(d);
    }
  }
}

/** The system prompt the log recorded, folded ("none" when the request held none). */
function systemPromptFold(prompt: string | null): HTMLElement {
  const system = h('details', { class: 'sl-fold sl-runtime-more sl-system-prompt' }, h('summary', {}, !prompt ? l10n.t('System prompt: none') : prompt.length === 1 ? l10n.t('System prompt ({0} character)', 1) : l10n.t('System prompt ({0} characters)', prompt.length.toLocaleString())));
  if (prompt) system.append(h('pre', { class: 'sl-pre' }, prompt));
  return system;
}

/** MCP tool names listed in the chip itself up to this many; more are counted there and listed below. */
const MCP_TOOLS_INLINE = 3;

function mcpToolsText(names: readonly string[]): string {
  if (names.length === 0) return l10n.t('none');
  return names.length <= MCP_TOOLS_INLINE ? names.join(', ') : String(names.length);
}

/** The active context: its name, with its tenant and namespace when it names them. */
function activeContextText(c: { name: string | null; tenant: string | null; namespace: string | null }): string {
  const where = [c.tenant ? l10n.t('tenant {0}', c.tenant) : null, c.namespace ? l10n.t('namespace {0}', c.namespace) : null].filter((x): x is string => x !== null);
  const name = c.name ?? l10n.t('none');
  return where.length === 0 ? name : `${name} (${where.join(', ')})`;
}

/** `label` comes with its colon (translated with it: some languages space it). */
function chip(iconName: string, label: string, value: string): HTMLElement {
  return h('span', { class: 'sl-state' }, icon(iconName), h('span', { class: 'sl-state-label' }, label, ' '), h('span', { class: 'sl-state-value' }, value));
}
