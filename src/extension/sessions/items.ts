// How each node looks: label, description, codicon, tooltip and the multi-flag `contextValue`
// the menus key on (`session current live writable`, `entry labelled leaf writable`, …).
import * as vscode from 'vscode';
import { formatDateTime, formatTimeOfDay } from '../../protocol/dates';
import { entryText, formatCount, formatRelativeTime, formatSize, isLive, oneLine, roleOf, type ViewEntry } from '../../core/tree/treeView';
import type { SessionSummary } from '../../protocol/messages';
import { sessionReader } from '../../core/engine/openModel';
import { shortenPreview } from '../../core/engine/xcsh/branchQueries';
import { RUN_PAGE } from './branchNodes';
import { isForeignAgent, type SessionMeta, type SessionState } from './catalog';
import { projectLabelParts } from './labels';
import { dshMessageCount, type DshRowStats } from './dshStats';
import { dshStateDescription, dshStateLabel } from '../../core/formats/dsh/stateWords';
import type { DiagnosticNode, EntryNode, InfoNode, LoomNode, MoreNode, NoticeNode, PeekNode, ProjectNode, RunNode, SessionNode } from './nodes';

/** "1 session", "3 sessions" (a project row's description). */
function sessionCount(n: number): string {
  return n === 1 ? vscode.l10n.t('{0} session', n) : vscode.l10n.t('{0} sessions', n);
}

export interface RenderContext {
  /** The session's summary once its model is open (the tooltip's figures, the repairable flag). */
  summary: SessionSummary | undefined;
  /** A dsh session's figures, once read (its tooltip). */
  dsh?: DshRowStats | undefined;
  now: number;
  messageCount: number | undefined;
  tokens: readonly string[];
  isWorkspaceProject: boolean;
  /** The session file is exactly as our own last write left it: recently modified, yet not live. */
  ownWrite?: boolean;
  /** During a search: what matched, shown first in the description of a project or session row. */
  searchNote?: string;
  /**
   * The tooltip waits for resolveTreeItem (VS Code only resolves a tooltip left undefined), so
   * hovering a session whose file is not read yet still shows its models, tokens and cost.
   */
  deferTooltip?: boolean;
}

export function renderItem(node: LoomNode, ctx: RenderContext): vscode.TreeItem {
  switch (node.kind) {
    case 'project':
      return projectItem(node, ctx);
    case 'session':
      return sessionItem(node, ctx);
    case 'diagnostic':
      return diagnosticItem(node);
    case 'run':
      return runItem(node, ctx);
    case 'entry':
      return entryItem(node, ctx);
    case 'more':
      return moreItem(node);
    case 'info':
    case 'notice':
      return textItem(node);
    case 'peek':
      return peekItem(node);
  }
}

const Collapsed = vscode.TreeItemCollapsibleState.Collapsed;
const None = vscode.TreeItemCollapsibleState.None;

function projectItem(node: ProjectNode, ctx: RenderContext): vscode.TreeItem {
  const n = node.info.sessions.length;
  const { name, where } = projectLabelParts(node.info.label);
  const item = new vscode.TreeItem(name, Collapsed);
  item.id = node.id;
  item.description = [ctx.searchNote ?? sessionCount(n), where].filter((x) => x !== '').join(' · ');
  item.iconPath = new vscode.ThemeIcon(ctx.isWorkspaceProject ? 'root-folder-opened' : 'folder');
  const md = new vscode.MarkdownString();
  const full = escapeMd(node.info.label);
  md.appendMarkdown(`${ctx.isWorkspaceProject ? vscode.l10n.t('**{0}** (this workspace)', full) : `**${full}**`}\n\n`);
  md.appendMarkdown(n === 1 ? vscode.l10n.t('{0} session in `{1}`', n, node.info.dir) : vscode.l10n.t('{0} sessions in `{1}`', n, node.info.dir));
  item.tooltip = md;
  item.contextValue = inWorkspace(node.info.dir) ? 'project inWorkspace' : 'project';
  item.resourceUri = undefined;
  return item;
}

/** Inside a workspace folder: the Explorer view can show it ("Reveal in Explorer View"). */
function inWorkspace(file: string): boolean {
  return vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file)) !== undefined;
}

/**
 * A session row's label: its title, else its first prompt that says what it is about. A session
 * with neither (it opens with "/mode", or holds no prompt yet) is told apart by when it started.
 */
function sessionTitle(node: SessionNode): string {
  const m = node.meta;
  const named = m.title ?? m.firstPrompt;
  if (named) return oneLine(named, 80);
  const when = formatDateTime(m.created ?? m.modifiedMs, vscode.env.language);
  return m.firstUserMessage ? `${oneLine(m.firstUserMessage, 40)} · ${when}` : vscode.l10n.t('Session of {0}', when);
}

/** The agent that wrote a Claude Code or Codex file, as the rows name it. */
function agentName(m: SessionMeta): string {
  return m.format === 'claude' ? vscode.l10n.t('Claude Code') : vscode.l10n.t('Codex');
}

function sessionFlags(node: SessionNode, ctx: RenderContext): string[] {
  const m = node.meta;
  if (isForeignAgent(m)) {
    // another agent's file: never `writable`, never `repairable` (Session Loom never writes it)
    // `resumable`: Copy Resume Command gives the agent's own command (core/discovery/resume.ts).
    const flags = ['session', m.format, 'readOnly', 'resumable'];
    if (m.state === 'damaged') flags.push('damaged');
    if ((ctx.summary?.problemCount ?? 0) > 0) flags.push('problems');
    if (isLive(m.modifiedMs, ctx.now)) flags.push('live');
    if (m.isSubagent) flags.push('subagent');
    if (m.relation === 'fork') flags.push('fork');
    if (inWorkspace(m.file)) flags.push('inWorkspace');
    return flags;
  }
  if (m.format === 'dsh') {
    // read-only: never `writable`, never `repairable` (repair is dsh's own job)
    const flags = ['session', 'dsh'];
    if (isLive(m.modifiedMs, ctx.now)) flags.push('live');
    if (m.isSubagent) flags.push('subagent');
    if (inWorkspace(m.file)) flags.push('inWorkspace');
    return flags;
  }
  const flags = ['session'];
  const state = m.state === 'needs-migration' ? 'needsMigration' : m.state === 'too-new' ? 'tooNew' : m.state;
  flags.push(state);
  if (isLive(m.modifiedMs, ctx.now) && !ctx.ownWrite) flags.push('live');
  if (m.isSubagent) flags.push('subagent');
  if (m.state === 'current' || m.state === 'needs-migration') flags.push('writable');
  if (m.state === 'damaged' || ctx.summary?.repairable) flags.push('repairable');
  // (Read: it has problems, its icon says so. The view draws the row again when this changes.)
  if ((ctx.summary?.problemCount ?? 0) > 0) flags.push('problems');
  if (inWorkspace(m.file)) flags.push('inWorkspace');
  return flags;
}

/** A dsh log's state as an icon: the most severe first (corrupt, torn), then an unfinished turn. */
function dshIcon(state: string | undefined, live: boolean, subagent: boolean): vscode.ThemeIcon {
  if (state === 'corrupt') return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.errorForeground'));
  if (state === 'torn') return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  if (live) return new vscode.ThemeIcon('pulse', new vscode.ThemeColor('charts.green'));
  if (state === 'interrupted' || state === 'open') return new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('list.warningForeground'));
  return new vscode.ThemeIcon(subagent ? 'hubot' : 'comment-discussion');
}

/**
 * One rule for every format (README, "State icons"): red warning — the file cannot be read as a
 * session (no header, a corrupt log) and is never written; yellow warning — it reads, with problems
 * (glued or torn records, a torn dsh frame: Repair writes a clean copy of an xcsh one); green pulse —
 * written in the last minute; arrow — needs migration; lock — newer than this version knows; else
 * the kind of session (a conversation, a subagent, a fork). What is known only once the file is read
 * (its problems, a dsh log's state) shows once it is.
 */
function sessionIcon(node: SessionNode, live: boolean, ctx?: RenderContext): vscode.ThemeIcon {
  const problems = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  if (isForeignAgent(node.meta)) {
    if (node.meta.state === 'damaged') return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.errorForeground'));
    if ((ctx?.summary?.problemCount ?? 0) > 0 && !live) return problems;
    if (live) return new vscode.ThemeIcon('pulse', new vscode.ThemeColor('charts.green'));
    const r = node.meta.relation;
    return new vscode.ThemeIcon(r === 'fork' ? 'repo-forked' : r === 'compaction' ? 'fold' : node.meta.isSubagent ? 'hubot' : 'comment-discussion');
  }
  // A dsh log's state once read says more than its listing (which may not have read its header).
  if (node.meta.format === 'dsh') return !ctx?.dsh && node.meta.state === 'damaged' ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.errorForeground')) : dshIcon(ctx?.dsh?.state, live, node.meta.isSubagent);
  switch (node.meta.state) {
    case 'damaged':
      return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.errorForeground'));
    case 'too-new':
      return new vscode.ThemeIcon('lock', new vscode.ThemeColor('list.warningForeground'));
    case 'needs-migration':
      return new vscode.ThemeIcon('arrow-circle-up', new vscode.ThemeColor('list.warningForeground'));
    default:
      if (live) return new vscode.ThemeIcon('pulse', new vscode.ThemeColor('charts.green'));
      if ((ctx?.summary?.problemCount ?? 0) > 0) return problems;
      return new vscode.ThemeIcon(node.meta.isSubagent ? 'hubot' : 'comment-discussion');
  }
}

function stateText(state: SessionState): string {
  switch (state) {
    case 'current':
      return vscode.l10n.t('current (v3)');
    case 'needs-migration':
      return vscode.l10n.t('needs migration to v3');
    case 'damaged':
      return vscode.l10n.t('damaged: read-only (repair into a new file)');
    case 'too-new':
      return vscode.l10n.t('newer than v3: read-only');
  }
}

function sessionItem(node: SessionNode, ctx: RenderContext): vscode.TreeItem {
  const m = node.meta;
  const live = isLive(m.modifiedMs, ctx.now) && !ctx.ownWrite;
  const title = sessionTitle(node);
  // A row whose model lists no branch rows here (dsh's turns, Claude Code's and Codex's logs: in the
  // editor) expands only to its subagent sessions and forks.
  const expandable = sessionReader(m.format).branchRowsInView || m.subagents.length > 0;
  const item = new vscode.TreeItem(ctx.tokens.length > 0 ? highlight(title, ctx.tokens) : title, expandable ? Collapsed : None);
  item.id = node.id;
  const desc = [formatRelativeTime(m.activityMs, ctx.now, vscode.l10n.t)];
  if (ctx.messageCount !== undefined) desc.push(ctx.messageCount === 1 ? vscode.l10n.t('{0} msg', 1) : vscode.l10n.t('{0} msgs', formatCount(ctx.messageCount)));
  desc.push(formatSize(m.size));
  // the read-only marker: whose file it is
  if (isForeignAgent(m)) desc.push(vscode.l10n.t('{0}, read-only', agentName(m)));
  if (live) desc.unshift(vscode.l10n.t('live'));
  if (ctx.searchNote) desc.unshift(ctx.searchNote);
  item.description = desc.join(' · ');
  item.iconPath = sessionIcon(node, live, ctx);
  item.contextValue = sessionFlags(node, ctx).join(' ');

  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${escapeMd(m.title ?? m.firstPrompt ?? title)}**\n\n`);
  const rows: string[] = [];
  if (m.cwd) rows.push(vscode.l10n.t('cwd: `{0}`', m.cwd));
  if (m.created) rows.push(vscode.l10n.t('created: {0}', formatDateTime(m.created, vscode.env.language)));
  const modified = formatDateTime(m.modifiedMs, vscode.env.language);
  rows.push(live ? vscode.l10n.t('modified: {0} (live)', modified) : vscode.l10n.t('modified: {0}', modified));
  if (isForeignAgent(m) && m.activityMs !== m.modifiedMs) rows.push(vscode.l10n.t('last record: {0}', formatDateTime(m.activityMs, vscode.env.language)));
  rows.push(vscode.l10n.t('file: `{0}`', m.file));
  if (m.format === 'dsh') rows.push(vscode.l10n.t('format: deepseek-harness (dsh), read-only'));
  else if (isForeignAgent(m)) {
    const by = m.agentVersion ? `${agentName(m)} ${m.agentVersion}` : agentName(m);
    rows.push(m.format === 'claude' ? vscode.l10n.t('written by {0}: a Claude Code transcript, read-only (Session Loom never writes it)', by) : vscode.l10n.t('written by {0}: an OpenAI Codex CLI rollout, read-only (Session Loom never writes it)', by));
    if (m.relation === 'fork') rows.push(vscode.l10n.t('forked from thread `{0}`', m.parentSession ?? '—'));
    else if (m.relation === 'compaction') rows.push(vscode.l10n.t('the compaction helper of its session (it wrote the summary the conversation continues from)'));
    else if (m.isSubagent) rows.push(vscode.l10n.t('a subagent of its session'));
    if (m.state === 'damaged') rows.push(vscode.l10n.t('damaged: its first record is not a session_meta'));
  } else rows.push(vscode.l10n.t('version: {0} · {1}', m.version ?? '—', stateText(m.state)));
  rows.push(vscode.l10n.t('size: {0}', formatSize(m.size)));
  const d = ctx.dsh;
  if (d) {
    rows.push(vscode.l10n.t('state: {0}', `${dshStateLabel(d.state, vscode.l10n.t)} — ${dshStateDescription(d.state, vscode.l10n.t)}`));
    if (d.models.length > 0) rows.push(vscode.l10n.t('models: {0}', d.models.map((x) => `\`${x.provider}/${x.model}\``).join(', ')));
    rows.push(vscode.l10n.t('messages: {0}', dshMessageCount(d)));
    rows.push(vscode.l10n.t('turns: {0}', d.turns));
    rows.push(vscode.l10n.t('tokens: {0}', formatCount(d.usage.inputTokens + d.usage.outputTokens + d.usage.cacheReadTokens + d.usage.cacheWriteTokens)));
    rows.push(vscode.l10n.t('diagnostics: {0}', d.diagnostics));
  }
  const s = ctx.summary;
  if (s) {
    const t = s.totals;
    if (s.models.length > 0) rows.push(vscode.l10n.t('models: {0}', s.models.map((x) => `\`${x}\``).join(', ')));
    rows.push(vscode.l10n.t('messages: {0}', t.messages));
    rows.push(vscode.l10n.t('entries: {0}', s.entryCount));
    rows.push(vscode.l10n.t('tokens: {0}', formatCount(t.tokensTotal || t.tokensIn + t.tokensOut + t.cacheRead + t.cacheWrite)));
    rows.push(vscode.l10n.t('cost: ${0}', t.cost.toFixed(4)));
    rows.push(vscode.l10n.t('diagnostics: {0}', s.problemCount ?? 0));
  }
  md.appendMarkdown(rows.join('  \n'));
  item.tooltip = ctx.deferTooltip ? undefined : md;
  // A click opens the session (a preview; a double click or Enter pins it); the twistie expands.
  // No arguments: the command takes the row from the view's selection, which outlives a redraw of
  // the rows above it (arguments do not: see clickedRow in viewCommands.ts).
  item.command = { command: 'sessionLoom.openRow', title: vscode.l10n.t('Open Session') };
  return item;
}

function diagnosticItem(node: DiagnosticNode): vscode.TreeItem {
  const d = node.diagnostic;
  const item = new vscode.TreeItem(vscode.l10n.t('line {0}: {1}', d.line, oneLine(d.message, 100)), None);
  item.id = node.id;
  item.description = d.kind;
  const sev = d.severity;
  item.iconPath = new vscode.ThemeIcon(sev === 'error' ? 'error' : sev === 'warning' ? 'warning' : 'info', new vscode.ThemeColor(sev === 'error' ? 'list.errorForeground' : 'list.warningForeground'));
  item.tooltip = vscode.l10n.t('{0} (line {1})\n{2}', d.kind, d.line, d.message);
  item.contextValue = 'diagnostic';
  // The raw text at the line: `vscode.open` would pick the session editor for files under the roots.
  item.command = { command: 'sessionLoom.openRawJsonl', title: vscode.l10n.t('Open at line'), arguments: [vscode.Uri.file(node.parent.file), d.line] };
  return item;
}

/**
 * A run row: what the run is about first (its first user prompt), how many entries it holds in the
 * description ("7 entries · current branch"), so the distinguishing words are what a narrow
 * sidebar shows.
 */
function runItem(node: RunNode, ctx: RenderContext): vscode.TreeItem {
  const n = node.facts.count;
  const count = n === 1 ? vscode.l10n.t('{0} entry', 1) : vscode.l10n.t('{0} entries', n);
  const title = node.facts.title;
  const item = new vscode.TreeItem(highlight(title, ctx.tokens), Collapsed);
  item.id = node.id;
  const onActive = node.facts.onActivePath;
  item.iconPath = new vscode.ThemeIcon('list-unordered', onActive ? new vscode.ThemeColor('charts.blue') : undefined);
  item.description = onActive ? `${count} · ${vscode.l10n.t('current branch')}` : count;
  item.tooltip = `${count}: ${title}`;
  item.contextValue = 'run';
  return item;
}

/** "Show 500 more… (of 12,345)": a row like the others, so a click or Enter shows the next page. */
function moreItem(node: MoreNode): vscode.TreeItem {
  const next = Math.min(node.remaining, RUN_PAGE);
  const item = new vscode.TreeItem(node.remaining === next ? vscode.l10n.t('Show {0} more…', formatCount(next)) : vscode.l10n.t('Show {0} more… ({1} not shown)', formatCount(next), formatCount(node.remaining)), None);
  item.id = node.id;
  item.iconPath = new vscode.ThemeIcon('ellipsis');
  item.contextValue = 'more';
  item.command = { command: 'sessionLoom.showMoreEntries', title: vscode.l10n.t('Show More Entries'), arguments: [node] };
  return item;
}

const ROLE_ICONS: Record<string, string> = {
  user: 'account',
  developer: 'person',
  assistant: 'sparkle',
  toolResult: 'output',
  bashExecution: 'terminal',
  pythonExecution: 'terminal',
  custom: 'extensions',
  hookMessage: 'extensions',
  branchSummary: 'git-merge',
  compactionSummary: 'fold',
  fileMention: 'file',
};

const TYPE_ICONS: Record<string, string> = {
  compaction: 'fold',
  turn: 'comment-discussion',
  system: 'info',
  branch_summary: 'git-merge',
  model_change: 'settings-gear',
  thinking_level_change: 'lightbulb',
  label: 'tag',
  custom: 'extensions',
  custom_message: 'extensions',
  session_init: 'rocket',
  mode_change: 'symbol-enum',
  ttsr_injection: 'law',
};

/** The codicon of an entry row: by the message's role, else by the entry's type (`kind`). */
export function entryIconId(role: string | null, kind: string, callsTools: boolean): string {
  if (role === 'assistant' && callsTools) return 'tools';
  if (role) return ROLE_ICONS[role] ?? 'comment';
  return TYPE_ICONS[kind] ?? 'question';
}



function entryItem(node: EntryNode, ctx: RenderContext): vscode.TreeItem {
  const row = node.row;
  const label = row.label ?? undefined;
  const isLeaf = row.isDefaultLeaf;
  const text = `${label ? `[${label}] ` : ''}${shortenPreview(row.text, 100)}`;
  const item = new vscode.TreeItem(highlight(text, ctx.tokens, label ? label.length + 2 : 0), node.hasBranches ? Collapsed : None);
  item.id = node.id;
  const desc: string[] = [];
  if (isLeaf) desc.push(vscode.l10n.t('● leaf'));
  const kids = node.hasBranches ? node.facts.branches : 0;
  if (kids > 1) desc.push(vscode.l10n.t('{0} branches', kids));
  const ts = row.timestamp !== null ? Date.parse(row.timestamp) : NaN;
  if (Number.isFinite(ts)) desc.push(formatTimeOfDay(ts, vscode.env.language, node.session.meta.created));
  item.description = desc.join(' · ');
  const onActive = row.onPath;
  item.iconPath = new vscode.ThemeIcon(isLeaf ? 'target' : entryIconId(node.facts.role, row.kind, node.facts.callsTools), isLeaf ? new vscode.ThemeColor('charts.blue') : undefined);
  const flags = ['entry'];
  if (label) flags.push('labelled');
  if (isLeaf) flags.push('leaf');
  if (onActive) flags.push('active');
  if (!isForeignAgent(node.session.meta) && (node.session.meta.state === 'current' || node.session.meta.state === 'needs-migration')) flags.push('writable');
  item.contextValue = flags.join(' ');
  // The tooltip shows the entry's text, which stays in the worker until the row is hovered (resolveTreeItem).
  item.tooltip = undefined;
  // A click shows the context at this entry in the session editor (see sessionItem: no arguments).
  item.command = { command: 'sessionLoom.openRow', title: vscode.l10n.t('Preview Context at Entry') };
  return item;
}

/** One of a big session's latest messages while it is read (a click opens the editor there, as an entry row's does). */
function peekItem(node: PeekNode): vscode.TreeItem {
  const item = new vscode.TreeItem(shortenPreview(node.text, 100), None);
  item.id = node.id;
  const desc: string[] = [];
  if (node.isLeaf) desc.push(vscode.l10n.t('● leaf'));
  const ts = node.timestamp !== null ? Date.parse(node.timestamp) : NaN;
  if (Number.isFinite(ts)) desc.push(formatTimeOfDay(ts, vscode.env.language, node.parent.meta.created));
  item.description = desc.join(' · ');
  item.iconPath = new vscode.ThemeIcon(node.isLeaf ? 'target' : entryIconId(node.role, 'message', node.callsTools), node.isLeaf ? new vscode.ThemeColor('charts.blue') : undefined);
  item.tooltip = vscode.l10n.t('One of the latest messages of the branch the session ends on, read from the end of the file while the whole session is read.');
  item.contextValue = 'peek';
  item.command = { command: 'sessionLoom.openRow', title: vscode.l10n.t('Preview Context at Entry') };
  return item;
}

/** An entry row's tooltip, from the entry as the session holds it (read when the row is hovered). */
export function entryTooltip(node: EntryNode, e: ViewEntry): vscode.MarkdownString {
  const label = node.row.label;
  const md = new vscode.MarkdownString();
  const head = [`**${roleOf(e) ?? node.row.kind}**`, `\`${node.entryId}\``];
  if (label) head.push(vscode.l10n.t('label **{0}**', escapeMd(label)));
  if (node.row.isDefaultLeaf) head.push(vscode.l10n.t('default leaf'));
  md.appendMarkdown(`${head.join(' · ')}\n\n`);
  if (typeof e.timestamp === 'string') md.appendMarkdown(`${escapeMd(formatDateTime(e.timestamp, vscode.env.language))}\n\n`);
  // Another agent's record is no xcsh entry: where its text reads shorter than the row the model
  // made of it (a Codex payload, a Claude tool result), the row's preview says more.
  const own = entryText(e);
  const body = own.length >= node.row.text.length ? own : node.row.text;
  md.appendCodeblock(body.length > 600 ? `${body.slice(0, 600)}…` : body, 'text');
  return md;
}

/** A plain message row (an info line under a session, or a notice such as "no matches"). */
function textItem(node: InfoNode | NoticeNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.text, None);
  item.id = node.id;
  item.iconPath = new vscode.ThemeIcon(node.icon);
  item.contextValue = node.kind;
  return item;
}

/** Highlights the search tokens in a row label (from `offset` on, case-insensitively). */
function highlight(text: string, tokens: readonly string[], offset = 0): vscode.TreeItemLabel {
  const highlights: [number, number][] = [];
  const lower = text.toLowerCase();
  for (const t of tokens) {
    const i = lower.indexOf(t, offset);
    if (i !== -1) highlights.push([i, i + t.length]);
  }
  if (offset > 0) highlights.push([0, offset - 1]);
  highlights.sort((a, b) => a[0] - b[0]);
  return { label: text, highlights };
}

function escapeMd(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
