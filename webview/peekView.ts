// What the editor shows while a big session is still being indexed in the model worker: the
// title line, a progress note where the branch tree will be, and the latest messages of the
// branch the agent was on (src/core/engine/xcsh/tailPeek.ts), newest at the bottom and scrolled
// into view. Replaced whole by the full view when `init` arrives.
import * as l10n from '@vscode/l10n';
import type { TailPeek } from '../src/protocol/messages';
import { h, icon } from './dom';
import { agentChip, readOnlyChip, titleOf } from './headerBar';
import { renderMessageRow, type RowActions } from './messageRow';

/** A file size as the user reads it (MB with one decimal; the peek is only for files of megabytes). */
function megabytes(bytes: number): string {
  return l10n.t('{0} MB', (bytes / 1048576).toFixed(1));
}

export interface PeekView {
  element: HTMLElement;
  list: HTMLElement;
  /** How far the worker has read the file: the bar under the status fills. */
  progress(bytes: number, total: number): void;
}

export function renderPeek(peek: TailPeek, actions: RowActions): PeekView {
  // Named as the full header names it (a title, else the first prompt).
  const title = titleOf({ title: peek.title, firstPrompt: peek.firstPrompt, version: 3, filePath: peek.filePath, fileName: peek.filePath.split('/').pop() ?? '' });
  const agent = peek.format ? agentChip(peek.format) : null;
  const header = h(
    'header',
    { class: 'sl-header' },
    // Another agent's log: named, and read-only, as the full header says (no jump when it replaces this one).
    h('div', { class: 'sl-header-top' }, title, agent, agent ? readOnlyChip(agent.title) : null),
    h('div', { class: 'sl-header-meta sl-muted' }, peek.cwd ? h('span', {}, peek.cwd) : null, h('span', {}, megabytes(peek.size))),
  );
  const status = h(
    'div',
    { class: 'sl-peek-status', role: 'status' },
    h('span', { class: 'codicon codicon-loading codicon-modifier-spin', 'aria-hidden': 'true' }),
    ' ',
    l10n.t('Reading the whole session ({0})… The branch tree, the message numbers and the totals appear when it is read.', megabytes(peek.size)),
  );
  // Outside the status region: a screen reader hears the sentence once, not every percent.
  const fill = h('span', { class: 'sl-peek-bar-fill' });
  const percent = h('span', { class: 'sl-peek-percent sl-muted', 'aria-hidden': 'true' });
  const bar = h(
    'div',
    { class: 'sl-peek-progress', role: 'progressbar', 'aria-label': l10n.t('Read so far'), 'aria-valuemin': '0', 'aria-valuemax': '100', hidden: '' },
    h('div', { class: 'sl-peek-bar' }, fill),
    percent,
  );
  const list = h('div', { class: 'sl-messages sl-peek-list', role: 'list', tabindex: '0', 'aria-label': l10n.t('Latest messages of the session') });
  if (peek.messages.length === 0) list.append(h('div', { class: 'sl-loading' }, l10n.t('Loading session…')));
  for (const m of peek.messages) list.append(renderMessageRow(m, peek.messages.length, actions));
  const pane = h(
    'section',
    { class: 'sl-preview-pane sl-peek-pane', 'aria-label': l10n.t('Context preview') },
    h('div', { class: 'sl-peek-note sl-muted' }, icon('history'), ' ', l10n.t('The latest messages on the current branch')),
    list,
  );
  const element = h('div', { class: 'sl-peek' }, header, h('div', { class: 'sl-layout' }, h('div', { class: 'sl-tree-pane sl-peek-tree' }, status, bar), h('div', { class: 'sl-splitter', 'aria-hidden': 'true' }), pane));
  const progress = (bytes: number, total: number): void => {
    const pct = total > 0 ? Math.max(0, Math.min(100, Math.floor((bytes / total) * 100))) : 0;
    bar.hidden = false;
    bar.setAttribute('aria-valuenow', String(pct));
    fill.style.width = `${pct}%`;
    // Read whole: what is left is the tree and the numbers, which the bar cannot measure.
    percent.textContent = bytes >= total && total > 0 ? l10n.t('read; building the tree…') : l10n.t('{0}% read', pct);
  };
  return { element, list, progress };
}
