// Webview entry. Import order matters: jitless must run before any zod schema is defined, and
// the translations (./l10nBundle) must be loaded before any module that renders text.
import '../src/protocol/jitless';
import './l10nBundle';
import './styles.css';
import * as l10n from '@vscode/l10n';
import type { ChartData, ContextInfo, MatchTerms, SessionSummary, TreeFilter, WebviewState, WebviewToHost } from '../src/protocol/messages';
import { BranchTree } from './branchTree';
import { h, icon, sentence, setSessionDay } from './dom';
import { renderHeader } from './headerBar';
import type { RowActions } from './messageRow';
import { renderPeek } from './peekView';
import { ContextPreview } from './preview';
import { renderContextChart } from './contextChart';
import { hasOwnState, lastAnswerAt, loadState, mark, onHostMessage, post, request, requestCount, saveState, steps } from './rpc';

const scriptStart = performance.now();
const app = document.getElementById('app')!;
window.addEventListener('load', () => mark('load'), { once: true });

const state: WebviewState = {
  leafId: null,
  followDefault: true,
  anchorEntryId: null,
  anchorOffset: 0,
  expanded: [],
  cutBandOpen: false,
  filter: 'default',
  search: '',
  ...(loadState() ?? {}),
};
const restored = loadState();
const expanded = new Set(state.expanded);
let summary: SessionSummary | null = null;
let saveTimer = 0;

function persist(): void {
  clearTimeout(saveTimer);
  saveTimer = window.setTimeout(() => {
    const a = preview.anchor();
    state.leafId = preview.leafId;
    state.anchorEntryId = a.entryId;
    state.anchorOffset = a.offset;
    state.expanded = [...expanded];
    saveState(state);
    // The host keeps it too: the next editor of this file (its tab was closed or replaced) opens here.
    post({ type: 'stateChanged', state });
  }, 150);
}

function showError(err: unknown): void {
  const msg = err instanceof Error ? err.message : String(err);
  const bar = h('div', { class: 'sl-error-bar', role: 'alert' }, icon('error'), ` ${msg}`);
  app.querySelector('.sl-error-bar')?.remove();
  app.prepend(bar);
  setTimeout(() => bar.remove(), 8000);
}

const images = new Map<string, Promise<{ kind: string; dataUrl?: string; hash?: string; message?: string }>>();
const actions: RowActions = {
  isExpanded: (key) => expanded.has(key),
  setExpanded: (key, open) => {
    if (open) expanded.add(key);
    else expanded.delete(key);
    persist();
  },
  revealEntry: (entryId) => void tree.load(preview.leafId, entryId).catch(showError),
  revealInSessions: (entryId) => void request('revealInSessions', { entryId }).catch(showError),
  openLinkedSession: (path) => void request('openLinkedSession', { path }).catch(showError),
  jumpToMessage: (index) => void preview.jumpToMessage(index).catch(showError),
  loadImage: (entryId, blockIndex, into) => {
    const key = `${entryId}:${blockIndex}`;
    let p = images.get(key);
    if (!p) {
      p = request('getImage', { entryId, blockIndex });
      images.set(key, p);
    }
    p.then((r) => {
      into.replaceChildren();
      if (r.kind === 'data' && r.dataUrl) {
        const img = h('img', { alt: l10n.t('Image from the session'), class: 'sl-img' }) as HTMLImageElement;
        img.src = r.dataUrl;
        into.append(img);
      } else if (r.kind === 'missing') {
        into.classList.add('sl-image-missing');
        into.append(icon('warning'), ' ', ...sentence(l10n.t('Image not found in the blob store: {0}', '{0}'), [h('code', {}, r.hash ?? '')], (words) => h('span', {}, words)));
      } else {
        into.classList.add('sl-image-missing');
        into.append(icon('warning'), h('span', {}, ' ', r.message ?? l10n.t('Image unavailable')));
      }
    }).catch((e: unknown) => into.replaceChildren(h('span', { class: 'sl-muted' }, l10n.t('Image unavailable: {0}', e instanceof Error ? e.message : String(e)))));
  },
};

/** The controls are defined once the first rows are on screen, or this long after `init` at the latest. */
const CONTROLS_LATEST_MS = 500;
let controlsDefined = false;
/** Defines the vscode-elements controls (controls.ts), once. */
function defineControls(): void {
  if (controlsDefined) return;
  controlsDefined = true;
  void import('./controls');
}

let firstPaintSent = false;
const preview = new ContextPreview({
  actions,
  isCutBandOpen: () => state.cutBandOpen,
  setCutBandOpen: (open) => {
    state.cutBandOpen = open;
    persist();
  },
  onFirstPaint: (info: ContextInfo) => {
    app.dataset.state = 'ready';
    if (firstPaintSent) return;
    firstPaintSent = true;
    // Reported from the next frame's callback, as a bare webview's first frame is (the perf test's floor).
    const requests = requestCount();
    mark('rows laid out');
    requestAnimationFrame(() => {
      post({ type: 'painted', leafId: info.leafId, messageCount: info.messageCount, sinceScriptStartMs: performance.now() - scriptStart, requests, steps });
      // After this frame: the controls come in the next one (controls.ts).
      setTimeout(defineControls);
    });
  },
  onScroll: () => persist(),
});

const tree = new BranchTree({
  filter: () => state.filter,
  search: () => state.search,
  setFilter: (f: TreeFilter, s: string) => {
    state.filter = f;
    state.search = s;
    persist();
  },
  selectLeaf: (entryId) => void selectLeaf(entryId, null),
  filtered: () => nameLeaf(),
});

/**
 * The preview's title names the leaf as the tree shows it (its row, or the shown row before it); a
 * screen reader is told what the context now is.
 */
function nameLeaf(): void {
  const { row, leafHidden } = tree.selection();
  preview.nameLeaf(row, leafHidden);
  const info = preview.context;
  if (info) {
    const what = row?.text ?? info.leafId ?? l10n.t('(empty)');
    announcer.textContent = info.messageCount === 1 ? l10n.t('Context at {0}: {1} message', what, 1) : l10n.t('Context at {0}: {1} messages', what, info.messageCount.toLocaleString());
  }
}

/** A live region: what changed for a screen reader (the leaf shown and its context's size). */
const announcer = h('div', { class: 'sl-sr', role: 'status', 'aria-live': 'polite' });

// The keyboard's place (issue 25). The element that had the focus is where the focus goes back to
// when the page gets it again (after a context menu, a dialog, a quick pick, a visit to another
// editor); a page focused for the first time (opened with Enter) starts on the tree's selected row.
let lastFocused: HTMLElement | null = null;
document.addEventListener('focusin', (e) => {
  const t = e.target as HTMLElement | null;
  if (t && t !== document.body) lastFocused = t;
});
window.addEventListener('focus', () => {
  // (After the focus settles: the browser puts it on the body first.)
  requestAnimationFrame(() => {
    if (document.activeElement && document.activeElement !== document.body) return;
    if (lastFocused?.isConnected) lastFocused.focus({ preventScroll: true });
    else if (initDone) tree.focusSelection();
  });
});
/** The page has the focus but no element of it does: the tree's selected row takes it. */
function focusIfNowhere(): void {
  if (document.hasFocus() && (document.activeElement === null || document.activeElement === document.body)) tree.focusSelection();
}

const headerSlot = h('div', { class: 'sl-header-slot' });
const chartSlot = h('div', { class: 'sl-chart-slot' });

let chartGeneration = 0;
/** A growing session redraws its chart at most this often (the model reads the branch's assistant turns for it). */
const CHART_FOLLOW_MS = 2_000;
let chartFollow: { timer: ReturnType<typeof setTimeout> | undefined; last: number } = { timer: undefined, last: 0 };

/** After the session grew: the chart of the leaf shown, now, or once CHART_FOLLOW_MS after the last one. */
function chartAfterGrowth(): void {
  if (chartFollow.timer !== undefined) return;
  const wait = Math.max(0, chartFollow.last + CHART_FOLLOW_MS - performance.now());
  chartFollow.timer = setTimeout(() => {
    chartFollow = { timer: undefined, last: performance.now() };
    void drawChart(preview.leafId).catch(showError);
  }, wait);
}

/** The context-size chart of the branch at `leafId` (contextChart.ts): its points, computed by the model (`given`: they came with `init`). */
async function drawChart(leafId: string | null, given?: ChartData): Promise<void> {
  const gen = ++chartGeneration;
  const data = given?.leafId === leafId && leafId !== null ? given : await request('getChart', { leafId });
  if (gen !== chartGeneration) return;
  // The last size the provider reported on this branch: the preview's token account starts from it.
  preview.setReported(leafId, data.omitted ? null : data.points);
  if (data.omitted) return void chartSlot.replaceChildren();
  const chart = renderContextChart(data.points, data.totals, (index) => void preview.jumpToMessage(index).catch(showError));
  chartSlot.replaceChildren(...(chart ? [chart] : []));
}
const layout = h('div', { class: 'sl-layout' }, tree.element, h('div', { class: 'sl-splitter', 'aria-hidden': 'true' }), preview.element);

async function selectLeaf(leafId: string | null, revealEntryId: string | null, highlight?: MatchTerms): Promise<void> {
  const t0 = performance.now();
  const asked = requestCount();
  state.followDefault = leafId === null || leafId === summary?.defaultLeafId;
  app.dataset.state = 'loading';
  const jump = revealEntryId ? { entryId: revealEntryId, offset: 0, jump: highlight !== undefined ? { highlight } : {} } : null;
  await Promise.all([preview.show(leafId, jump), tree.load(leafId ?? summary?.defaultLeafId ?? null, null)]);
  nameLeaf();
  void drawChart(preview.leafId).catch(showError);
  app.dataset.state = 'ready';
  post({ type: 'selectionChanged', leafId: preview.leafId });
  // Once the browser has laid the new rows out: what the user waited for after the click.
  const answeredMs = Math.max(0, lastAnswerAt() - t0);
  requestAnimationFrame(() => post({ type: 'repainted', leafId: preview.leafId, ms: performance.now() - t0, answeredMs, requests: requestCount() - asked }));
  persist();
}

/** The peek's rows are on screen: the full view opens at the end of the same context, where they were. */
let peekShown = false;
/** Fills the peek's progress bar (while the worker reads the file). */
let peekProgress: ((bytes: number, total: number) => void) | undefined;
let initDone = false;
/** Whether an `init` posted ahead for `leafId` shows what a page restoring `r` shows (editorPanel.ts aheadFits: the same test). */
function aheadFits(r: WebviewState, leafId: string | null, defaultLeafId: string | null): boolean {
  return r.filter === 'default' && r.search === '' && (r.followDefault ? leafId === defaultLeafId : leafId === r.leafId);
}

/** How long a fresh page waits for its `init` before it says `ready` again. */
const INIT_AGAIN_MS = 3_000;

function mountHeader(s: SessionSummary): void {
  summary = s;
  setSessionDay(s.created);
  headerSlot.replaceChildren(renderHeader(s, showError));
  app.dataset.revision = String(s.revision);
}

onHostMessage((msg) => {
  switch (msg.type) {
    case 'init': {
      // Posted ahead of `ready` for a fresh page (or one restoring what the host kept, when it was
      // computed for that): a page that restored another state waits for the one answering its `ready`.
      if (msg.ahead && ((restored !== null && !aheadFits(restored, msg.selectLeafId, msg.summary.defaultLeafId)) || initDone)) return;
      mark('init checked');
      // (Defined after the first paint; at the latest this long after `init`, should that paint be slow.)
      setTimeout(defineControls, CONTROLS_LATEST_MS);
      mountHeader(msg.summary);
      // The peek stays on top while the full view fills in underneath (laid out at its real size),
      // so the latest messages never give way to empty panes; it goes once the full view painted.
      const peek = peekShown ? app.querySelector<HTMLElement>('.sl-peek') : null;
      peek?.classList.add('sl-peek-over');
      app.replaceChildren(headerSlot, chartSlot, layout, announcer, ...(peek ? [peek] : []));
      mark('header');
      state.followDefault = msg.followDefault;
      initDone = true;
      const sameLeaf = restored !== null && restored.leafId === msg.selectLeafId;
      const anchor = msg.jump
        ? { entryId: msg.jump.entryId, offset: 0, jump: msg.jump.highlight !== undefined ? { highlight: msg.jump.highlight } : {} }
        : sameLeaf && state.anchorEntryId
          ? { entryId: state.anchorEntryId, offset: state.anchorOffset }
          : peekShown && msg.selectLeafId === msg.summary.defaultLeafId
            ? { entryId: null, offset: 0, toEnd: true }
            : null;
      app.dataset.state = 'loading';
      // The answers that came with it (the tree's rows only fit the default filter and no search).
      const first = msg.first;
      const treeRows = first && state.filter === 'default' && state.search === '' ? first.tree : undefined;
      // Drawn before the rows are laid out, so they do not move once they are on screen.
      const chart = first?.chart?.leafId === msg.selectLeafId ? first.chart : undefined;
      if (chart) void drawChart(msg.selectLeafId, chart).catch(showError);
      mark('chart');
      void Promise.all([preview.show(msg.selectLeafId, anchor, first), tree.load(msg.selectLeafId, null, treeRows)])
        .then(() => {
          nameLeaf();
          focusIfNowhere();
          app.dataset.state = 'ready';
          // (The host's commands act on the leaf shown: the palette's Relabel Entry, Copy Entry ID…)
          post({ type: 'selectionChanged', leafId: preview.leafId });
          persist();
          if (!chart) void drawChart(preview.leafId).catch(showError);
        })
        .catch(showError)
        .finally(() => peek?.remove());
      return;
    }
    case 'sessionChanged': {
      mountHeader(msg.summary);
      const a = preview.anchor();
      const leaf = state.followDefault ? msg.summary.defaultLeafId : preview.leafId;
      // Following the latest entry and looking at the end: stay at the end as it grows.
      const anchor = state.followDefault && a.atEnd ? { entryId: null, offset: 0, toEnd: true } : { entryId: a.entryId, offset: a.offset };
      void Promise.all([preview.show(leaf, anchor), tree.load(leaf, null)])
        .then(() => {
          nameLeaf();
          persist();
          chartAfterGrowth();
        })
        .catch(showError);
      return;
    }
    case 'peek': {
      // (One posted ahead of `ready` is for a fresh page, as `init` is.)
      if (initDone || (msg.ahead && restored !== null)) return;
      // Drawn at the next frame, unless `init` came first: VS Code hands a fresh page everything
      // posted ahead of its `ready` at once, and a session read from its kept index sends both.
      requestAnimationFrame(() => {
        if (initDone) return;
        const { element, list, progress } = renderPeek(msg.peek, actions);
        peekProgress = progress;
        app.replaceChildren(element);
        app.dataset.state = 'peek';
        peekShown = true;
        list.scrollTop = list.scrollHeight;
        // (This frame's callbacks run before it is painted, as a bare webview's first frame is reported.)
        post({ type: 'peekPainted', messageCount: msg.peek.messages.length, sinceScriptStartMs: performance.now() - scriptStart });
      });
      return;
    }
    case 'loadProgress':
      if (!initDone) peekProgress?.(msg.bytes, msg.total);
      return;
    case 'selectLeaf':
      void selectLeaf(msg.leafId, msg.revealEntryId, msg.highlight).catch(showError);
      return;
    case 'loadFailed':
      app.replaceChildren(
        h('div', { class: 'sl-load-failed' }, icon('error'), ' ', ...sentence(l10n.t('Could not load this session: {0}', '{0}'), [document.createTextNode(msg.message)], (words) => h('strong', {}, words))),
      );
      return;
  }
});

/** Where the start-up time went, from the browser's own timeline (for the editor's log). */
function bootTimes(): NonNullable<Extract<WebviewToHost, { type: 'ready' }>['boot']> {
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  const assets = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((r) => ({
    name: decodeURIComponent(r.name.split('/').pop() ?? r.name).split('?')[0]!,
    start: Math.round(r.startTime),
    end: Math.round(r.responseEnd),
  }));
  const bundle = (globalThis as { slBundleStart?: number }).slBundleStart;
  return { html: Math.round(nav?.responseEnd ?? 0), assets, evaluated: Math.round(scriptStart), ready: Math.round(performance.now()), origin: performance.timeOrigin, ...(bundle !== undefined ? { bundle: Math.round(bundle) } : {}) };
}

post({ type: 'ready', restored: restored ? state : null, boot: bootTimes() });
// A fresh page (or one restoring what the host kept) is sent its `init` ahead of this `ready`
// (editorPanel.ts). Should that one have been lost, the host is asked again; it ignores this while
// it is still reading the session.
if (!hasOwnState()) {
  setTimeout(() => {
    if (!initDone) post({ type: 'ready', restored: restored ? state : null, again: true });
  }, INIT_AGAIN_MS);
}
