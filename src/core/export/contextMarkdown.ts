// "Export Context as Markdown…" / "Copy Context" / `session-loom export --format md` (issue 13):
// the messages the model sees at a leaf as readable Markdown, the equivalent of omp's `/dump`.
//
// Built on the session model (src/core/engine/model.ts), not on the raw context: the same windows
// the editor shows, so the export says exactly what the editor says, for xcsh and dsh alike, and
// works across the worker port. Long blocks are clipped as in the editor (the note says how long
// they were); images are not embedded (a note names the blob), thinking is a quote.
import type { SessionModel } from '../engine/model';
import { english, type Translate } from '../l10n';
import type { Block, ContextInfo, MessageView, SessionSummary } from '../../protocol/messages';

/** Messages asked of the model at a time (the protocol's window limit). */
const WINDOW = 500;

/** Every message of the context at `leafId`, in windows. */
export async function allMessages(model: SessionModel, leafId: string | null, count: number): Promise<MessageView[]> {
  const out: MessageView[] = [];
  for (let start = 0; start < count; start += WINDOW) out.push(...(await model.messages(leafId, start, Math.min(WINDOW, count - start))));
  return out;
}

/** The leaf an export means: the one given, or the session's default leaf. */
export async function exportLeaf(model: SessionModel, leafId: string | null | undefined): Promise<string | null> {
  return leafId === undefined ? model.defaultLeaf() : leafId;
}

export async function contextMarkdown(model: SessionModel, leafId?: string | null, l10nT: Translate = english): Promise<string> {
  const leaf = await exportLeaf(model, leafId);
  const [summary, ctx] = await Promise.all([model.summary(), model.context(leaf)]);
  return renderContextMarkdown(summary, ctx, await allMessages(model, ctx.leafId, ctx.messageCount), l10nT);
}

/** A fence longer than any run of backticks in the text, so no content can close it early. */
export function fenced(text: string, lang = ''): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = '`'.repeat(Math.max(3, longest + 1));
  return `${f}${lang}\n${text}${text.endsWith('\n') ? '' : '\n'}${f}`;
}

/** Inline code that survives backticks in the text. */
function code(text: string): string {
  const one = oneLine(text);
  let longest = 0;
  for (const m of one.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = '`'.repeat(longest + 1);
  return longest > 0 ? `${f} ${one} ${f}` : `${f}${one}${f}`;
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ').trim();
}

/** Text from the file in a heading or a list item: one line, Markdown and HTML punctuation escaped. */
function plain(text: string): string {
  return oneLine(text).replace(/[\\`*_{}[\]()<>#+!|~]/g, (c) => `\\${c}`);
}

export function roleTitle(role: string, l10nT: Translate = english): string {
  switch (role) {
    case 'user':
      return l10nT('User');
    case 'assistant':
      return l10nT('Assistant');
    case 'developer':
      return l10nT('Developer');
    case 'toolResult':
      return l10nT('Tool result');
    case 'bashExecution':
      return l10nT('Bash');
    case 'pythonExecution':
      return l10nT('Python');
    case 'custom':
      return l10nT('Custom message');
    case 'compactionSummary':
      return l10nT('Compaction summary');
    case 'branchSummary':
      return l10nT('Branch summary');
    case 'fileMention':
      return l10nT('File mention');
    default:
      return role;
  }
}

/** Output that is data, not prose: fenced (tool output, a command's output). */
const FENCED_TEXT_ROLES = new Set(['toolResult', 'bashExecution', 'pythonExecution']);

function clipNote(b: { truncatedFrom?: number }, l10nT: Translate): string {
  return b.truncatedFrom !== undefined ? `\n\n_${l10nT('(clipped; full length in the file: {0})', b.truncatedFrom)}_` : '';
}

function blockMarkdown(b: Block, m: MessageView, l10nT: Translate): string {
  switch (b.kind) {
    case 'markdown':
      return b.text + clipNote(b, l10nT);
    case 'text':
      return (FENCED_TEXT_ROLES.has(m.role) ? fenced(b.text, 'text') : b.text) + clipNote(b, l10nT);
    case 'thinking':
      if (b.redacted) return `> _${l10nT('Thinking (redacted)')}_`;
      return `> **${l10nT('Thinking')}**\n>\n` + b.text.split('\n').map((l) => (l ? `> ${l}` : '>')).join('\n');
    case 'toolCall':
      return `**${l10nT('Tool call')}** ${code(b.name)}${b.callId ? ` (${code(b.callId)})` : ''}${b.resultIsError ? ` — ${l10nT('failed')}` : ''}\n\n${fenced(b.argsJson, 'json')}`;
    case 'image':
      return `_${b.blobHash ? l10nT('[{0} image not embedded: blob sha256:{1}]', b.mimeType, b.blobHash) : l10nT('[{0} image not embedded]', b.mimeType)}_`;
    case 'exec': {
      const lines = [fenced(`${b.language === 'bash' ? '$' : '>>>'} ${b.command}`, b.language)];
      if (b.output) lines.push(fenced(b.output, 'text'));
      const notes: string[] = [];
      if (b.exitCode !== null) notes.push(l10nT('exit code {0}', b.exitCode));
      if (b.cancelled) notes.push(l10nT('cancelled'));
      if (b.truncated) notes.push(b.fullOutputPath ? l10nT('output truncated; full output in {0}', b.fullOutputPath) : l10nT('output truncated'));
      if (notes.length) lines.push(`_${notes.join(' · ')}_`);
      return lines.join('\n\n');
    }
    case 'compaction':
      return b.summary + (b.tokensBefore !== null ? `\n\n_${l10nT('tokens before the compaction: {0}', b.tokensBefore)}_` : '');
    case 'branchSummary':
      return b.summary + (b.fromId ? `\n\n_${l10nT('summary of the branch left at {0}', code(b.fromId))}_` : '');
    case 'json':
      return `${plain(b.label)}\n\n${fenced(b.json, 'json')}`;
    case 'error':
      return `> ⚠ ${oneLine(b.text)}`;
  }
}

function tokens(n: number, l10nT: Translate): string {
  return n === 1 ? l10nT('≈{0} token', 1) : l10nT('≈{0} tokens', n);
}

function messageMarkdown(m: MessageView, l10nT: Translate): string {
  const title = [`${m.index + 1}. ${roleTitle(m.role, l10nT)}`];
  if (m.subtitle) title.push(plain(m.subtitle));
  if (m.toolResult?.isError) title.push(l10nT('error'));
  const meta = [l10nT('entry {0}', code(m.entryId))];
  if (m.timestamp) meta.push(m.timestamp);
  meta.push(tokens(m.tokensEst, l10nT));
  if (m.usage) meta.push(l10nT('{0} in / {1} out', m.usage.input, m.usage.output));
  const body = m.blocks.map((b) => blockMarkdown(b, m, l10nT)).filter((s) => s !== '');
  return [`## ${title.join(' · ')}`, `_${meta.join(' · ')}_`, ...body].join('\n\n');
}

/** The Markdown document (pure: from the summary, the context and its messages). */
export function renderContextMarkdown(summary: SessionSummary, ctx: ContextInfo, messages: readonly MessageView[], l10nT: Translate = english): string {
  const name = summary.title ?? summary.firstPrompt ?? summary.fileName;
  const facts: string[] = [`- ${l10nT('File')}: ${code(summary.filePath)}`];
  if (summary.sessionId) facts.push(`- ${l10nT('Session')}: ${code(summary.sessionId)}${summary.cwd ? ` · ${l10nT('cwd')} ${code(summary.cwd)}` : ''}`);
  if (ctx.leafId) facts.push(`- ${l10nT('Leaf')}: ${code(ctx.leafId)}${ctx.leaf ? ` — ${plain(ctx.leaf.kind)}${ctx.leaf.label ? ` [${plain(ctx.leaf.label)}]` : ''}: ${plain(ctx.leaf.text)}` : ''}`);
  facts.push(`- ${ctx.messageCount === 1 ? l10nT('{0} message', 1) : l10nT('{0} messages', ctx.messageCount)} · ${tokens(ctx.totalTokensEst, l10nT)}`);
  const rt = ctx.runtime;
  const models = Object.entries(rt.models).map(([role, model]) => `${role}: ${model}`);
  const modeLabel = rt.modeLabel ?? `${l10nT('Mode')}:`;
  facts.push(`- ${l10nT('Thinking')}: ${plain(rt.thinkingLevel)} · ${plain(modeLabel)} ${plain(rt.mode)}${models.length ? ` · ${l10nT('Models')}: ${plain(models.join(', '))}` : ''}`);
  if (rt.injectedTtsrRules.length) facts.push(`- ${l10nT('Injected rules')}: ${rt.injectedTtsrRules.map(code).join(', ')}`);
  // Another agent's log: what it does not hold of the request, and what the preview notes about this context.
  if (ctx.notRecorded) facts.push(`- _${plain(ctx.notRecorded)}_`);
  for (const note of ctx.notes ?? []) facts.push(`- ${plain(note)}`);
  if (ctx.compaction) {
    const c = ctx.compaction;
    facts.push(`- ${c.cutCount === 1 ? l10nT('Compaction {0}: {1} entry not sent, summarised', code(c.id), 1) : l10nT('Compaction {0}: {1} entries not sent, summarised', code(c.id), c.cutCount)}`);
  }
  const parts = [`# ${plain(name)}`, facts.join('\n')];
  if (rt.systemPrompt) parts.push(`## ${l10nT('System prompt')}\n\n${fenced(rt.systemPrompt, 'text')}`);
  for (const m of messages) parts.push(messageMarkdown(m, l10nT));
  if (messages.length === 0) parts.push(`_${l10nT('The model sees no messages at this leaf.')}_`);
  return parts.join('\n\n') + '\n';
}
