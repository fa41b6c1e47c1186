// Renders one MessageView (a context message or a cut entry) as a list row.
import * as l10n from '@vscode/l10n';
import type { Block, MessageView } from '../src/protocol/messages';
import { formatShortTime, formatTime, formatTokens, h, icon } from './dom';
import { renderMarkdown } from './markdown';

export interface RowActions {
  /** Expanded collapsibles, keyed `<entryId>:<block>`; toggles are reported back. */
  isExpanded(key: string): boolean;
  setExpanded(key: string, open: boolean): void;
  revealEntry(entryId: string): void;
  revealInSessions(entryId: string): void;
  /** Opens the session a tool call started (a subagent's transcript). */
  openLinkedSession(path: string): void;
  jumpToMessage(index: number): void;
  loadImage(entryId: string, blockIndex: number, into: HTMLElement): void;
}

const ROLE_ICONS: Record<string, string> = {
  user: 'account',
  developer: 'gear',
  assistant: 'hubot',
  toolResult: 'output',
  bashExecution: 'terminal',
  pythonExecution: 'symbol-method',
  custom: 'extensions',
  hookMessage: 'extensions',
  branchSummary: 'git-branch',
  compactionSummary: 'fold',
};

/** Role ids spelled out. Roles are the session's data (as `user`, `assistant` are): not translated. */
const ROLE_NAMES: Record<string, string> = {
  toolResult: 'tool result',
  bashExecution: 'bash',
  pythonExecution: 'python',
  branchSummary: 'branch summary',
  compactionSummary: 'compaction summary',
};

/** A block that starts collapsed; whether the user opened it is remembered per entry and block. */
function collapsible(key: string, actions: RowActions, summary: (Node | string)[], body: Node, cls: string): HTMLDetailsElement {
  const d = h('details', { class: cls, 'data-key': key });
  d.open = actions.isExpanded(key);
  d.append(h('summary', {}, ...summary), body);
  d.addEventListener('toggle', () => actions.setExpanded(key, d.open));
  return d;
}

function truncNote(from: number | undefined, shown: number): HTMLElement | null {
  if (from === undefined) return null;
  return h('div', { class: 'sl-trunc' }, from - shown === 1 ? l10n.t('… {0} more character not shown here (open the raw JSONL to see all).', 1) : l10n.t('… {0} more characters not shown here (open the raw JSONL to see all).', (from - shown).toLocaleString()));
}

function oneLine(s: string, max = 100): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function renderBlock(m: MessageView, b: Block, i: number, actions: RowActions): HTMLElement {
  const key = `${m.entryId}:${i}`;
  switch (b.kind) {
    case 'markdown': {
      const div = h('div', { class: 'sl-md' });
      div.append(renderMarkdown(b.text));
      const note = truncNote(b.truncatedFrom, b.text.length);
      return note ? h('div', {}, div, note) : div;
    }
    case 'text': {
      const pre = h('pre', { class: 'sl-pre' }, b.text);
      const note = truncNote(b.truncatedFrom, b.text.length);
      const lines = b.text.split('\n').length;
      const body = h('div', {}, pre, note);
      if (lines <= 12 && b.text.length < 1500) return body;
      return collapsible(key, actions, [icon('list-flat'), ' ', lines === 1 ? l10n.t('Output · {0} line', 1) : l10n.t('Output · {0} lines', lines.toLocaleString()), h('span', { class: 'sl-preview' }, oneLine(b.text))], body, 'sl-fold sl-output');
    }
    case 'thinking':
      if (b.redacted) return h('div', { class: 'sl-thinking sl-muted' }, icon('eye-closed'), ' ', l10n.t('Redacted thinking'));
      return collapsible(key, actions, [icon('lightbulb'), ' ', b.text.length === 1 ? l10n.t('Thinking · {0} char', 1) : l10n.t('Thinking · {0} chars', b.text.length.toLocaleString()), h('span', { class: 'sl-preview' }, oneLine(b.text))], h('pre', { class: 'sl-pre' }, b.text), 'sl-fold sl-thinking');
    case 'toolCall': {
      const status =
        b.resultIndex === null
          ? h('span', { class: 'sl-result-link sl-muted' }, l10n.t('no result in this context'))
          : b.resultIndex < 0
            ? // a peek's row (tailPeek.ts): the result is further down, its number not known yet
              h('span', { class: `sl-result-link${b.resultIsError ? ' sl-is-error' : ''}` }, icon(b.resultIsError ? 'error' : 'arrow-down'), ' ', b.resultIsError ? l10n.t('error below') : l10n.t('result below'))
            : h(
              'a',
              { class: `sl-result-link${b.resultIsError ? ' sl-is-error' : ''}`, href: '#', 'data-jump': String(b.resultIndex) },
              icon(b.resultIsError ? 'error' : 'arrow-down'),
              ' ',
              b.resultIsError ? l10n.t('error · #{0}', b.resultIndex + 1) : l10n.t('result · #{0}', b.resultIndex + 1),
            );
      status.addEventListener('click', (e) => {
        e.preventDefault();
        e.stopPropagation();
        if (b.resultIndex !== null && b.resultIndex >= 0) actions.jumpToMessage(b.resultIndex);
      });
      let argsPreview = '';
      try {
        const args = JSON.parse(b.argsJson) as Record<string, unknown>;
        argsPreview = oneLine(typeof args === 'object' && args ? Object.values(args).filter((v) => typeof v === 'string').join(' ') : '', 80);
      } catch {
        argsPreview = oneLine(b.argsJson, 80);
      }
      const d = collapsible(key, actions, [icon('tools'), ' ', h('span', { class: 'sl-tool-name' }, b.name), h('span', { class: 'sl-preview' }, argsPreview), status], renderArgs(b.argsJson), `sl-fold sl-toolcall${b.resultIsError ? ' sl-is-error' : ''}`);
      // VS Code's webview context menu (package.json `webview/context`): "Open Diff" for file edits.
      d.setAttribute('data-vscode-context', JSON.stringify({ webviewSection: 'toolCall', toolName: b.name, entryId: m.entryId, callId: b.callId, preventDefaultContextMenuItems: true }));
      if (!b.session) return d;
      // The session this call started (a subagent's transcript): opened in an editor of its own.
      const session = b.session;
      const open = h('button', { class: 'sl-session-link', title: session.path }, icon('link-external'), ' ', l10n.t('Open the subagent session ({0})', session.label));
      open.addEventListener('click', (e) => {
        e.stopPropagation();
        actions.openLinkedSession(session.path);
      });
      return h('div', { class: 'sl-toolcall-wrap' }, d, open);
    }
    case 'image': {
      const box = h('div', { class: 'sl-image' }, h('span', { class: 'sl-muted' }, icon('file-media'), ' ', l10n.t('{0} · loading…', b.mimeType)));
      actions.loadImage(b.entryId, b.blockIndex, box);
      return box;
    }
    case 'exec': {
      const prompt = b.language === 'bash' ? '$ ' : '>>> ';
      const out = h('pre', { class: 'sl-pre sl-exec-out' }, b.output || l10n.t('(no output)'));
      const meta = [
        b.exitCode !== null ? l10n.t('exit {0}', b.exitCode) : null,
        b.cancelled ? l10n.t('cancelled') : null,
        b.truncated ? l10n.t('output truncated') : null,
        b.fullOutputPath ? l10n.t('full output: {0}', b.fullOutputPath) : null,
      ].filter(Boolean).join(' · ');
      return h('div', { class: `sl-exec${b.exitCode ? ' sl-is-error' : ''}` }, h('pre', { class: 'sl-pre sl-exec-cmd' }, prompt + b.command), out, meta ? h('div', { class: 'sl-muted sl-small' }, meta) : null);
    }
    case 'compaction': {
      const head = h(
        'div',
        { class: 'sl-compaction-head' },
        // The time is in the row head already (as for every message): not repeated here.
        b.tokensBefore !== null ? h('span', { class: 'sl-chip' }, b.tokensBefore === 1 ? l10n.t('{0} token before', 1) : l10n.t('{0} tokens before', formatTokens(b.tokensBefore))) : null,
      );
      const short = b.shortSummary ? h('p', { class: 'sl-short-summary' }, b.shortSummary) : null;
      const full = h('div', { class: 'sl-md' });
      full.append(renderMarkdown(b.summary));
      return h(
        'div',
        { class: 'sl-compaction' },
        head,
        short,
        collapsible(key, actions, [l10n.t('Full summary sent to the model'), h('span', { class: 'sl-muted' }, ' · ', b.summary.length === 1 ? l10n.t('{0} char', 1) : l10n.t('{0} chars', b.summary.length.toLocaleString()))], full, 'sl-fold'),
      );
    }
    case 'branchSummary': {
      const full = h('div', { class: 'sl-md' });
      full.append(renderMarkdown(b.summary));
      // A heading and where the summary comes from (muted), each its own phrase.
      return h(
        'div',
        { class: 'sl-branch-summary' },
        h('div', {}, icon('git-branch'), ' ', h('strong', {}, l10n.t('Branch summary')), b.fromId ? h('span', { class: 'sl-muted' }, ' ', l10n.t('from {0}', b.fromId)) : null),
        full,
      );
    }
    case 'json':
      return collapsible(key, actions, [icon('json'), ` ${b.label}`], h('pre', { class: 'sl-pre sl-json' }, b.json), 'sl-fold');
    case 'error':
      return h('div', { class: 'sl-error-block' }, icon('error'), ' ', b.text);
  }
}

/** A string argument this long, or with a line break, is shown as a block of text of its own. */
const ARG_BLOCK_CHARS = 60;

/**
 * A tool call's arguments as a reader wants them: each argument by name, strings as text (an
 * edit's old and new text with their line breaks, not escaped JSON), short values on one line,
 * objects and arrays as indented JSON. Arguments that are not a JSON object stay as they came.
 */
function renderArgs(argsJson: string): HTMLElement {
  let args: unknown;
  try {
    args = JSON.parse(argsJson);
  } catch {
    return h('pre', { class: 'sl-pre sl-json' }, argsJson);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args) || Object.keys(args).length === 0) return h('pre', { class: 'sl-pre sl-json' }, argsJson);
  const rows = Object.entries(args as Record<string, unknown>).map(([name, value]) => {
    const label = h('span', { class: 'sl-arg-name' }, name);
    // An edit's two sides, always blocks and tinted as a diff's are (old/new, before/after…).
    const side = typeof value !== 'string' ? '' : /^(old|before|search)/i.test(name) ? ' sl-arg-old' : /^(new|after|replace)/i.test(name) ? ' sl-arg-new' : '';
    if (typeof value === 'string' && (side !== '' || value.length > ARG_BLOCK_CHARS || value.includes('\n'))) {
      return h('div', { class: 'sl-arg sl-arg-block' }, label, h('pre', { class: `sl-pre sl-arg-text${side}` }, value));
    }
    const text = typeof value === 'string' ? value : JSON.stringify(value, null, typeof value === 'object' && value !== null ? 2 : undefined);
    return typeof value === 'object' && value !== null
      ? h('div', { class: 'sl-arg sl-arg-block' }, label, h('pre', { class: 'sl-pre sl-json' }, text))
      : h('div', { class: 'sl-arg' }, label, ' ', h('code', { class: typeof value === 'string' ? 'sl-arg-value' : 'sl-arg-value sl-json' }, text));
  });
  return h('div', { class: 'sl-args' }, ...rows);
}

export function renderMessageRow(m: MessageView, total: number, actions: RowActions): HTMLElement {
  const isCut = m.segment === 'cut';
  const entryType = m.role.startsWith('entry:') ? m.role.slice(6) : null;
  const roleName = entryType ?? ROLE_NAMES[m.role] ?? m.role;
  const isError = m.toolResult?.isError === true;
  const row = h('div', {
    class: `sl-msg role-${m.role.replace(/[^\w-]/g, '_')} seg-${m.segment}${isError ? ' sl-is-error' : ''}${m.hiddenFromUser ? ' sl-hidden-msg' : ''}`,
    ...(m.index < 0 ? { 'data-peek-index': String(m.index) } : { 'data-index': String(m.index) }),
    'data-role': m.role,
    'data-entry-id': m.entryId,
    role: 'listitem',
    // VS Code's webview context menu (package.json `webview/context`): the entry's actions, as on
    // its tree row, beside Copy (kept for selected text). A tool call or output inside narrows it.
    'data-vscode-context': JSON.stringify({ webviewSection: 'entry', entryId: m.entryId }),
  });
  // For screen readers (and tests): what this row is, in one sentence.
  // A negative index is a row of the peek shown while the session is read (tailPeek.ts): counted
  // from the end, since its place in the context is not known yet.
  const fromEnd = m.index < 0 ? -m.index : 0;
  const sr = h(
    'span',
    { class: 'sl-sr' },
    fromEnd
      ? l10n.t('Latest message {0} of {1}, counted from the end: {2} from entry {3}.', fromEnd, total, m.role, m.entryId)
      : isCut
        ? l10n.t('Cut entry {0} of {1}: {2} from entry {3}.', m.index + 1, total, m.role, m.entryId)
        : l10n.t('Message {0} of {1}: {2} from entry {3}.', m.index + 1, total, m.role, m.entryId),
  );

  // Not tab stops (a Tab moves between the page's parts, not through every message's buttons): the
  // row's own keys and its context menu (Shift+F10) reach the same.
  const entryBtn = h('button', { class: 'sl-entry-link', tabindex: '-1', title: l10n.t('Select this entry in the branch tree') }, m.entryId);
  entryBtn.addEventListener('click', (e) => {
    e.stopPropagation();
    actions.revealEntry(m.entryId);
  });
  const sessionsBtn = h('button', { class: 'sl-icon-btn', tabindex: '-1', title: l10n.t('Reveal in the Sessions view'), 'aria-label': l10n.t('Reveal in the Sessions view') }, icon('list-tree'));
  sessionsBtn.addEventListener('click', (e) => {
    e.stopPropagation();
    actions.revealInSessions(m.entryId);
  });

  const head = h(
    'div',
    { class: 'sl-msg-head' },
    fromEnd
      ? h('span', { class: 'sl-index', 'aria-hidden': 'true', title: l10n.t('Numbered once the whole session is read') }, '#…')
      : h('span', { class: 'sl-index', 'aria-hidden': 'true' }, isCut ? `✂ ${m.index + 1}` : `#${m.index + 1}`),
    icon(ROLE_ICONS[m.role] ?? (entryType ? 'symbol-event' : 'question')),
    h('span', { class: 'sl-role' }, roleName),
    m.subtitle ? h('span', { class: 'sl-subtitle' }, m.subtitle) : null,
    m.toolResult && m.toolResult.callIndex !== null ? jumpLink(l10n.t('↑ call #{0}', m.toolResult.callIndex + 1), m.toolResult.callIndex, actions) : null,
    ...m.badges.map((b) => h('span', { class: `sl-badge${b === 'error' || b.startsWith('exit') ? ' sl-badge-error' : ''}` }, b)),
    m.segment === 'kept' ? h('span', { class: 'sl-badge sl-badge-kept', title: l10n.t('Kept verbatim by the compaction') }, l10n.t('kept')) : null,
    h('span', { class: 'sl-spacer' }),
    entryBtn,
    sessionsBtn,
    m.timestamp ? h('time', { class: 'sl-time', datetime: m.timestamp, title: formatTime(m.timestamp) }, formatShortTime(m.timestamp)) : null,
    m.tokensEst > 0 || !entryType ? h('span', { class: 'sl-tokens', title: l10n.t('Estimated tokens of this message: characters ÷ 4 (images ≈ 1k each)') }, l10n.t('≈ {0} tok', formatTokens(m.tokensEst))) : null,
  );
  const body = h('div', { class: 'sl-msg-body' });
  m.blocks.forEach((b, i) => body.append(renderBlock(m, b, i, actions)));
  // VS Code's webview context menu (package.json `webview/context`): "Open Output" (the whole
  // output as a document), and "Open Diff" when the result belongs to a file edit.
  if (m.toolResult || m.blocks.some((b) => b.kind === 'exec')) {
    body.setAttribute('data-vscode-context', JSON.stringify({ webviewSection: 'toolOutput', toolName: m.toolResult?.toolName ?? '', entryId: m.entryId, preventDefaultContextMenuItems: true }));
  }
  if (m.usage) {
    const u = m.usage;
    const [input, output, cacheRead, cacheWrite] = [formatTokens(u.input), formatTokens(u.output), formatTokens(u.cacheRead), formatTokens(u.cacheWrite)];
    const usage = u.cost
      ? l10n.t('usage: in {0} · out {1} · cache read {2} · cache write {3} · {4}', input, output, cacheRead, cacheWrite, `$${u.cost.toFixed(4)}`)
      : l10n.t('usage: in {0} · out {1} · cache read {2} · cache write {3}', input, output, cacheRead, cacheWrite);
    body.append(h('div', { class: 'sl-usage sl-muted sl-small' }, usage));
  }
  // A cut entry is not sent: no running total of the context (issue 25: it read as one).
  const side = isCut
    ? h('div', { class: 'sl-msg-side sl-muted', title: l10n.t('Cut by the compaction: not sent to the model, so not in the context\'s total') }, h('span', { class: 'sl-running' }, l10n.t('not sent')))
    : h('div', { class: 'sl-msg-side', title: l10n.t('Running total of our estimate of the context up to here (characters ÷ 4)') }, h('span', { class: 'sl-running' }, `Σ ${formatTokens(m.cumulativeTokensEst)}`));
  row.append(sr, h('div', { class: 'sl-msg-main' }, head, body), ...(fromEnd ? [] : [side]));
  // The head's buttons are not tab stops: on the focused row, T selects its entry in the branch
  // tree and S reveals it in the Sessions view (README, Keyboard).
  row.addEventListener('keydown', (e) => {
    if (e.target !== row || e.altKey || e.ctrlKey || e.metaKey) return;
    const key = e.key.toLowerCase();
    if (key === 't') actions.revealEntry(m.entryId);
    else if (key === 's') actions.revealInSessions(m.entryId);
    else return;
    e.preventDefault();
  });
  return row;
}

function jumpLink(text: string, index: number, actions: RowActions): HTMLElement {
  const a = h('a', { href: '#', class: 'sl-jump' }, text);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    e.stopPropagation();
    actions.jumpToMessage(index);
  });
  return a;
}
