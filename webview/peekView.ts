// What the editor shows while a big session is still being indexed in the model worker: the
// title line, a progress note where the branch tree will be, and the latest messages of the
// branch the agent was on (src/core/engine/xcsh/tailPeek.ts), newest at the bottom and scrolled
// into view. Replaced whole by the full view when `init` arrives.
import * as l10n from '@vscode/l10n';
import type { TailPeek } from '../src/protocol/messages';
import { h, icon } from './dom';
import { titleOf } from './headerBar';
import { renderMessageRow, type RowActions } from './messageRow';

/** A file size as the user reads it (MB with one decimal; the peek is only for files of megabytes). */
function megabytes(bytes: number): string {
  return l10n.t('{0} MB', (bytes / 1048576).toFixed(1));
}

export function renderPeek(peek: TailPeek, actions: RowActions): { element: HTMLElement; list: HTMLElement } {
  // Named as the full header names it (a title, else the first prompt): the peek is only for v3 files.
  const title = titleOf({ title: peek.title, firstPrompt: peek.firstPrompt, version: 3, filePath: peek.filePath, fileName: peek.filePath.split('/').pop() ?? '' });
  const header = h(
    'header',
    { class: 'sl-header' },
    h('div', { class: 'sl-header-top' }, title),
    h('div', { class: 'sl-header-meta sl-muted' }, peek.cwd ? h('span', {}, peek.cwd) : null, h('span', {}, megabytes(peek.size))),
  );
  const status = h(
    'div',
    { class: 'sl-peek-status', role: 'status' },
    h('span', { class: 'codicon codicon-loading codicon-modifier-spin', 'aria-hidden': 'true' }),
    ' ',
    l10n.t('Reading the whole session ({0})… The branch tree, the message numbers and the totals appear when it is read.', megabytes(peek.size)),
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
  const element = h('div', { class: 'sl-peek' }, header, h('div', { class: 'sl-layout' }, h('div', { class: 'sl-tree-pane sl-peek-tree' }, status), h('div', { class: 'sl-splitter', 'aria-hidden': 'true' }), pane));
  return { element, list };
}
