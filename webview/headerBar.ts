// The header: what this session is (title, cwd, version, dates), what it cost, and what is
// wrong with its file (diagnostics, each a link to its line in the raw JSONL).
import type { SessionSummary } from '../src/protocol/messages';
import * as l10n from '@vscode/l10n';
import { formatTime, formatTokens, h, icon } from './dom';
import { request } from './rpc';

/** A dsh log's format chip and its state (complete · open · interrupted · torn · corrupt). */
function dshChips(s: SessionSummary): HTMLElement {
  const state = s.state;
  const tone = state === null || state.kind === 'complete' ? '' : state.kind === 'corrupt' ? ' sl-chip-error' : ' sl-chip-warn';
  const encoding = s.encoding === 'zstd' ? l10n.t('zstd frames') : s.encoding === 'sqlite' ? l10n.t('SQLite store') : l10n.t('raw JSONL');
  return h(
    'span',
    { class: 'sl-chips' },
    h('span', { class: 'sl-chip', title: l10n.t('A deepseek-harness session log ({0}), shown read-only', encoding) }, l10n.t('dsh')),
    state ? h('span', { class: `sl-chip${tone}`, title: state.description }, state.label) : null,
  );
}

/** Another agent's log, shown read-only: its name (a product name, not translated). */
const AGENT_NAMES: Partial<Record<SessionSummary['format'], string>> = { codex: 'Codex', claude: 'Claude Code' };

/** The chip naming another agent's log (null for xcsh and dsh: their own chips say what they are). */
export function agentChip(format: SessionSummary['format']): HTMLElement | null {
  const agent = AGENT_NAMES[format];
  return agent ? h('span', { class: 'sl-chip sl-agent-chip', title: l10n.t('A {0} session log, shown read-only', agent) }, agent) : null;
}

/** The lock chip of a log that is read-only by design (another agent's), `why` in its tooltip. */
export function readOnlyChip(why: string): HTMLElement {
  return h('span', { class: 'sl-chip', title: why }, icon('lock'), ' ', l10n.t('read-only'));
}

function stat(label: string, value: string, title?: string): HTMLElement {
  return h('span', { class: 'sl-stat', title }, h('span', { class: 'sl-stat-label' }, label), h('span', { class: 'sl-stat-value' }, value));
}

/**
 * A vscode-elements button (defined by controls.ts): secondary unless `primary`. Its codicon is a
 * child of ours, not its `icon` (a vscode-icon links codicon.css in its shadow root: a fetch after
 * the page's `load`, and one cut short by a closed editor held VS Code's next webview back 30 s).
 */
function button(iconName: string, text: string, title: string, onClick: () => void, opts: { primary?: boolean; cls?: string } = {}): HTMLElement {
  const b = h('vscode-button', { class: `sl-hbtn ${opts.cls ?? ''}`.trim(), title, secondary: opts.primary ? undefined : '' }, icon(iconName), text);
  b.addEventListener('click', onClick);
  return b;
}

/**
 * The title line: the session's title; an untitled session shows its first prompt (one line,
 * cut to fit) muted, and only a session with neither says "(untitled)".
 */
/** What names a session in its title line (the peek, tailPeek.ts, has these too). */
export type TitleFacts = Pick<SessionSummary, 'title' | 'firstPrompt' | 'version' | 'fileName' | 'filePath'>;

export function titleOf(s: TitleFacts): HTMLElement {
  const h1 = titleElement(s);
  if ((h1.textContent ?? '').length <= 16) h1.classList.add('sl-title-short');
  return h1;
}

function titleElement(s: TitleFacts): HTMLElement {
  if (s.title !== null) return h('h1', { class: 'sl-title', title: `${s.title}\n${s.filePath}` }, s.title);
  if (s.firstPrompt !== null) {
    const prompt = s.firstPrompt.length > 120 ? `${s.firstPrompt.slice(0, 119).trimEnd()}…` : s.firstPrompt;
    return h('h1', { class: 'sl-title sl-title-untitled', title: [l10n.t('Untitled session: its first prompt is shown'), s.filePath].join('\n') }, prompt);
  }
  // Without a header there is no session to name: the file's name says what is open.
  if (s.version === null) return h('h1', { class: 'sl-title sl-title-untitled', title: s.filePath }, s.fileName);
  return h('h1', { class: 'sl-title sl-title-untitled', title: s.filePath }, l10n.t('(untitled)'));
}

/**
 * What a file with no entries at all is, in words, instead of an empty tree and preview: an
 * empty file, or a file that is not a session (a random JSONL, a binary renamed .jsonl).
 */
export function emptyStateText(s: SessionSummary): string | null {
  if (s.entryCount > 0) return null;
  if (s.sizeBytes === 0) return l10n.t('{0} is empty (0 bytes): there is no session in it yet.', s.fileName);
  if (s.version === null) {
    // The diagnostic's message is the core's (English) wording, shown as it is.
    const first = s.diagnostics.find((d) => d.kind === 'no-header') ?? s.diagnostics.find((d) => d.severity === 'error');
    const reason = first?.message.split(';')[0] ?? '';
    const why = !first ? l10n.t('no valid session header') : first.line > 0 ? l10n.t('{0} (line {1})', reason, first.line) : reason;
    return l10n.t('{0} is not a session file: {1}. It is shown read-only and never written; "Raw JSONL" shows its text.', s.fileName, why);
  }
  return l10n.t('{0} holds a session header but no entries yet.', s.fileName);
}

function emptyNotice(s: SessionSummary): HTMLElement | null {
  const text = emptyStateText(s);
  if (text === null) return null;
  const isError = s.sizeBytes > 0 && s.version === null;
  return h('div', { class: `sl-empty-notice${isError ? ' sl-empty-notice-error' : ''}`, role: isError ? 'alert' : 'status' }, icon(isError ? 'error' : 'info'), h('span', {}, text));
}

export function renderHeader(s: SessionSummary, onError: (e: unknown) => void): HTMLElement {
  const t = s.totals;
  const versionChip = s.format === 'dsh' ? dshChips(s) : (agentChip(s.format) ?? h(
    'span',
    {
      class: `sl-chip${s.needsMigration ? ' sl-chip-warn' : ''}`,
      title: s.needsMigration ? l10n.t('Version {0}: shown migrated to v{1} in memory; the file is unchanged', String(s.version), s.currentVersion) : l10n.t('Session format version'),
    },
    s.version === null ? l10n.t('no header') : l10n.t('v{0}', s.version),
  ));
  const diagList = h('div', { class: 'sl-diag-list', role: 'list', hidden: '' });
  for (const d of s.diagnostics) {
    const item = h(
      'button',
      { class: `sl-diag sl-diag-${d.severity}`, role: 'listitem', title: l10n.t('Open line {0} in the raw JSONL', d.line) },
      icon(d.severity === 'error' ? 'error' : d.severity === 'warning' ? 'warning' : 'info'),
      h('span', { class: 'sl-diag-line' }, d.line > 0 ? l10n.t('line {0}', d.line) : l10n.t('file')),
      h('span', { class: 'sl-diag-kind' }, d.kind),
      h('span', { class: 'sl-diag-msg' }, d.message),
    );
    item.addEventListener('click', () => request('openRaw', { line: d.line > 0 ? d.line : null }).catch(onError));
    diagList.append(item);
  }
  if (s.diagnosticCount > s.diagnostics.length) diagList.append(h('div', { class: 'sl-muted sl-small' }, l10n.t('… and {0} more (run session-loom doctor)', (s.diagnosticCount - s.diagnostics.length).toLocaleString())));
  const diagCount = s.diagnosticCount.toLocaleString();
  const diagBtn =
    s.diagnosticCount > 0
      ? button(s.diagnostics.some((d) => d.severity === 'error') ? 'error' : 'warning', s.diagnosticCount === 1 ? l10n.t('{0} diagnostic', diagCount) : l10n.t('{0} diagnostics', diagCount), l10n.t('Show what is wrong with this file'), () => {
          const show = diagList.hidden;
          diagList.hidden = !show;
          diagBtn?.setAttribute('aria-expanded', String(show));
        }, { cls: 'sl-btn-diag' })
      : h('span', { class: 'sl-chip sl-muted', title: l10n.t('No problems found in this file') }, icon('pass'), ' ', l10n.t('no diagnostics'));

  const actions = h(
    'div',
    { class: 'sl-header-actions' },
    s.needsMigration ? button('arrow-up', l10n.t('Migrate…'), l10n.t('Rewrite the file as v{0} (with a preview and a backup)', s.currentVersion), () => request('migrate', {}).catch(onError), { primary: true }) : null,
    diagBtn,
    // zstd frames and SQLite pages are not text: only a raw log opens in the text editor
    s.encoding === 'jsonl' ? button('go-to-file', l10n.t('Raw JSONL'), l10n.t('Open the file in the text editor'), () => request('openRaw', { line: null }).catch(onError)) : null,
  );

  return h(
    'header',
    { class: 'sl-header' },
    h(
      'div',
      { class: 'sl-header-top' },
      titleOf(s),
      versionChip,
      // another agent's log is read-only by design (the reason in the tooltip), not a fault
      s.readOnlyReason && s.format !== 'xcsh'
        ? readOnlyChip(s.readOnlyReason)
        : s.readOnlyReason
          ? h('span', { class: 'sl-chip sl-chip-error', title: l10n.t('This file is not written by Session Loom') }, icon('lock'), ' ', l10n.t('read-only: {0}', s.readOnlyReason))
          : null,
      h('span', { class: 'sl-spacer' }),
      actions,
    ),
    h(
      'div',
      { class: 'sl-header-meta' },
      s.cwd ? stat(l10n.t('cwd'), s.cwd) : null,
      stat(l10n.t('created'), formatTime(s.created) || '—'),
      stat(l10n.t('modified'), formatTime(s.modified) || '—'),
      s.format === 'dsh'
        ? stat(l10n.t('events'), s.entryCount.toLocaleString(), s.leafCount === 1 ? l10n.t('{0} turn', 1) : l10n.t('{0} turns', s.leafCount.toLocaleString()))
        : stat(l10n.t('entries'), s.entryCount.toLocaleString(), s.leafCount === 1 ? l10n.t('{0} leaf', 1) : l10n.t('{0} leaves', s.leafCount.toLocaleString())),
      stat(l10n.t('messages'), t.messages.toLocaleString()),
      stat(l10n.t('tool calls'), t.toolCalls.toLocaleString()),
      stat(l10n.t('tokens in/out'), `${formatTokens(t.tokensIn)} / ${formatTokens(t.tokensOut)}`, l10n.t('From the usage the provider reported')),
      stat(l10n.t('cache r/w'), `${formatTokens(t.cacheRead)} / ${formatTokens(t.cacheWrite)}`),
      // the other agents' logs record token usage, not prices
      s.format !== 'xcsh' ? null : stat(l10n.t('cost'), `$${t.cost.toFixed(t.cost >= 100 ? 0 : 2)}`),
      s.models.length > 0 ? stat(l10n.t('models'), s.models.join(', ')) : null,
    ),
    diagList,
    emptyNotice(s),
  );
}
