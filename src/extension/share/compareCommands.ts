// Compare with Leaf… and Open Diff (issue 13), both in VS Code's own diff editor over read-only
// virtual documents (a TextDocumentContentProvider never writes anything):
// - Compare: the Markdown of two contexts (src/core/compare/compareContexts.ts), the shared
//   prefix folded into one line on both sides so the first divergent message lines up;
// - Open Diff: an `edit` tool call's old and new text (or a `write`'s content against nothing, or
//   the `details.diff` its result carries), named after the file so the editor picks its language;
// - Open Output: a tool's whole output as a read-only document, its language from the command.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { compareLeaves } from '../../core/compare/compareContexts';
import { toolCallDiff } from '../../core/compare/toolDiff';
import { outputDocName, resultDiff } from '../../core/compare/toolOutput';
import type { SessionModel } from '../../core/engine/model';
import { openSessionModel } from '../../core/engine/openModel';
import { readSessionName } from '../../core/sessionName';
import type { Block, MessageView } from '../../protocol/messages';
import { activeEditor, editorOf, keepSessionTab } from '../editor/editorSelection';
import { prompts, reportingErrors } from '../commands/prompts';
import type { SessionsTreeProvider } from '../sessions/sessionsTreeProvider';
import { shareTarget } from './shareCommands';

export const COMPARE_SCHEME = 'session-loom-compare';

/** The virtual documents' texts, by URI; they live as long as the window (a few KB to MB each). */
class VirtualDocs implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 1;
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
  /** A new read-only document named `name` (its extension picks the language) holding `text`. */
  add(name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: COMPARE_SCHEME, path: `/${this.next++}/${name}` });
    this.texts.set(uri.toString(), text);
    return uri;
  }
}

async function withModel<T>(file: string, fn: (model: SessionModel) => Promise<T>): Promise<T> {
  const open = editorOf(file);
  if (open) return fn(await open.model());
  const model = await openSessionModel(file, { l10nT: vscode.l10n.t });
  try {
    return await fn(model);
  } finally {
    model.dispose();
  }
}

interface LeafPick {
  file: string;
  leafId: string;
}

/** The leaves of a session, for a quick pick (the one compared from left out). */
async function leavesOf(file: string, except: string | null): Promise<(vscode.QuickPickItem & { pick: LeafPick })[]> {
  return withModel(file, async (model) => {
    const items: (vscode.QuickPickItem & { pick: LeafPick })[] = [];
    for (let start = 0; ; ) {
      const r = await model.tree({ filter: 'all', search: '', leafId: null, focusEntryId: null, start, count: 1000 });
      for (const row of r.rows) {
        if (!row.isLeaf || row.entryId === except) continue;
        items.push({ label: row.text || row.kind, description: `${row.kind} · ${row.entryId}${row.label ? ` [${row.label}]` : ''}${row.isDefaultLeaf ? ` · ${vscode.l10n.t('latest')}` : ''}`, pick: { file, leafId: row.entryId } });
      }
      start += r.rows.length;
      if (r.rows.length === 0 || start >= r.total) return items;
    }
  });
}

export interface CompareOutcome {
  shared: number;
  left: vscode.Uri;
  right: vscode.Uri;
  divergenceLine: { left: number | null; right: number | null };
}

/**
 * Compares the context at the target entry with another leaf, picked from the same session or
 * from another session file (a fork). `other` skips the pick ({file, leafId}).
 */
export async function compareWithLeaf(provider: SessionsTreeProvider, docs: VirtualDocs, arg?: unknown, second?: unknown, other?: unknown): Promise<CompareOutcome | undefined> {
  const t = shareTarget(provider, arg, second);
  if (!t) return void prompts.error(vscode.l10n.t('Compare with Leaf: open a session or select an entry first.'));
  const leftLeaf = t.entryId ?? (await withModel(t.file, (m) => m.defaultLeaf()));
  let pick: LeafPick | undefined =
    other && typeof other === 'object' && typeof (other as LeafPick).file === 'string' && typeof (other as LeafPick).leafId === 'string' ? (other as LeafPick) : undefined;
  if (!pick) {
    const another = { label: `$(file) ${vscode.l10n.t('A leaf of another session (a fork)…')}`, pick: null as LeafPick | null };
    const chosen = await vscode.window.showQuickPick([...(await leavesOf(t.file, leftLeaf)), another], { title: vscode.l10n.t('Compare with Leaf'), placeHolder: vscode.l10n.t('The leaf to compare the context at {0} with', leftLeaf ?? '') });
    if (!chosen) return undefined;
    if (chosen.pick) pick = chosen.pick;
    else {
      const files = await vscode.window.showOpenDialog({ title: vscode.l10n.t('Compare with Leaf'), defaultUri: vscode.Uri.file(path.dirname(t.file)), filters: { [vscode.l10n.t('Sessions')]: ['jsonl'] }, canSelectMany: false });
      const file = files?.[0]?.fsPath;
      if (!file) return undefined;
      const second = await vscode.window.showQuickPick(await leavesOf(file, null), { title: vscode.l10n.t('Compare with Leaf'), placeHolder: path.basename(file) });
      if (!second) return undefined;
      pick = second.pick;
    }
  }
  const right = pick;
  const c = await withModel(t.file, (a) => withModel(right.file, (b) => compareLeaves({ model: a, leafId: leftLeaf }, { model: b, leafId: right.leafId }, vscode.l10n.t)));
  const leftUri = docs.add(`${leftLeaf ?? 'default'}.md`, c.left);
  const rightUri = docs.add(`${right.leafId}.md`, c.right);
  // Named by the sessions' titles (issue 25): "Fix the parser: a1b2 ↔ c3d4", or "Fix the parser ↔ Fork of …".
  const [leftName, rightName] = await Promise.all([readSessionName(t.file, 40), readSessionName(right.file, 40)]);
  const sides = right.file === t.file ? vscode.l10n.t('{0}: {1} ↔ {2}', leftName, leftLeaf ?? '', right.leafId) : vscode.l10n.t('{0} ↔ {1}', leftName, rightName);
  const title = c.shared === 1 ? vscode.l10n.t('{0} ({1} shared message)', sides, 1) : vscode.l10n.t('{0} ({1} shared messages)', sides, c.shared);
  await vscode.commands.executeCommand('vscode.diff', leftUri, rightUri, title, { preview: false, selection: c.divergenceLine.right ? new vscode.Range(c.divergenceLine.right - 1, 0, c.divergenceLine.right - 1, 0) : undefined });
  return { shared: c.shared, left: leftUri, right: rightUri, divergenceLine: c.divergenceLine };
}

type ToolCallBlock = Extract<Block, { kind: 'toolCall' }>;

/** The file, entry and call a command was given: (file, entryId, callId), or a right click in the editor. */
function toolTarget(arg?: unknown, entryArg?: unknown, callArg?: unknown): { file?: string; entryId?: string; callId?: string } {
  if (arg instanceof vscode.Uri || typeof arg === 'string') {
    return {
      file: arg instanceof vscode.Uri ? arg.fsPath : arg,
      ...(typeof entryArg === 'string' ? { entryId: entryArg } : {}),
      ...(typeof callArg === 'string' ? { callId: callArg } : {}),
    };
  }
  if (arg && typeof arg === 'object') {
    const ctx = arg as { entryId?: unknown; callId?: unknown };
    const file = activeEditor()?.uri.fsPath;
    return { ...(file ? { file } : {}), ...(typeof ctx.entryId === 'string' ? { entryId: ctx.entryId } : {}), ...(typeof ctx.callId === 'string' ? { callId: ctx.callId } : {}) };
  }
  return {};
}

/** The message an entry contributes, in the context at that entry (it is the last one there). */
async function messageAt(model: SessionModel, entryId: string): Promise<{ m: MessageView; leafId: string | null } | undefined> {
  const info = await model.context(entryId);
  const at = await model.locate(info.leafId, entryId);
  if (at.messageIndex === null) return undefined;
  const [m] = await model.messages(info.leafId, at.messageIndex, 1);
  return m ? { m, leafId: info.leafId } : undefined;
}

/** The `details.diff` a stored tool result carries, if any. */
function detailsDiff(raw: unknown): string | null {
  const d = (raw as { message?: { details?: { diff?: unknown } } } | null)?.message?.details?.diff;
  return typeof d === 'string' ? d : null;
}

/** A stored entry's whole text output (the display blocks are clipped): tool result text, or a run's output. */
function fullOutput(raw: unknown): string | null {
  const msg = (raw as { message?: { content?: unknown; output?: unknown } } | null)?.message;
  if (!msg) return null;
  if (typeof msg.output === 'string') return msg.output;
  if (typeof msg.content === 'string') return msg.content;
  if (Array.isArray(msg.content)) {
    const texts = msg.content.filter((b): b is { type: 'text'; text: string } => (b as { type?: unknown })?.type === 'text' && typeof (b as { text?: unknown }).text === 'string').map((b) => b.text);
    return texts.length > 0 ? texts.join('\n') : null;
  }
  return null;
}

/**
 * Opens the diff of a file-editing tool call in VS Code's diff editor: from the call's arguments
 * (`edit`, `write`), else from the `details.diff` its result carries. Given the call's entry and
 * call id, or the result's entry (a right click on either in the editor).
 */
export async function openToolDiff(docs: VirtualDocs, arg?: unknown, entryArg?: unknown, callArg?: unknown): Promise<vscode.Uri[] | undefined> {
  const { file, entryId, callId } = toolTarget(arg, entryArg, callArg);
  if (!file || !entryId) return void prompts.error(vscode.l10n.t('Open Diff: right-click an edit or write tool call in the session editor.'));
  const found = await withModel(file, async (model) => {
    const at = await messageAt(model, entryId);
    if (!at) return undefined;
    let call: ToolCallBlock | undefined;
    let resultEntry: string | undefined;
    if (at.m.toolResult) {
      resultEntry = entryId;
      const { callIndex, callId: id } = at.m.toolResult;
      const [c] = callIndex === null ? [] : await model.messages(at.leafId, callIndex, 1);
      call = c?.blocks.find((b): b is ToolCallBlock => b.kind === 'toolCall' && b.callId === id);
    } else {
      const calls = at.m.blocks.filter((b): b is ToolCallBlock => b.kind === 'toolCall');
      call = calls.find((b) => b.callId === callId) ?? calls.find((b) => toolCallDiff(b.name, safeArgs(b.argsJson)) !== null) ?? calls[0];
      const [r] = call?.resultIndex == null ? [] : await model.messages(at.leafId, call.resultIndex, 1);
      resultEntry = r?.entryId;
    }
    const fromArgs = call ? toolCallDiff(call.name, safeArgs(call.argsJson)) : null;
    if (fromArgs) return { ...fromArgs, tool: call!.name };
    const carried = resultEntry && model.rawEntry ? detailsDiff(await model.rawEntry(resultEntry)) : null;
    const sides = carried ? resultDiff(carried) : null;
    if (!sides) return undefined;
    const args = call ? safeArgs(call.argsJson) : {};
    const path0 = ['path', 'file_path', 'filePath', 'file'].map((k) => args[k]).find((v): v is string => typeof v === 'string');
    return { file: path0 ?? 'file', ...sides, tool: call?.name ?? at.m.toolResult?.toolName ?? 'tool' };
  });
  if (!found) return void prompts.error(vscode.l10n.t('Open Diff: this tool call edits no file (only edit and write calls have a diff).'));
  const name = path.basename(found.file) || 'file';
  const before = docs.add(`before/${name}`, found.before);
  const after = docs.add(`after/${name}`, found.after);
  const stillPreview = await keepSessionTab(vscode, file);
  await vscode.commands.executeCommand('vscode.diff', before, after, vscode.l10n.t('{0} ({1}: before ↔ after)', name, found.tool), { preview: !stillPreview });
  return [before, after];
}

/**
 * Opens a tool's output (a tool result, or a bash/python run) as a read-only document, whole (the
 * editor's rows clip long outputs), named so VS Code picks the language from what the tool was
 * asked: the file a `read` showed, a diff for `git diff`, else a log.
 */
export async function openToolOutput(docs: VirtualDocs, arg?: unknown, entryArg?: unknown): Promise<vscode.Uri | undefined> {
  const { file, entryId } = toolTarget(arg, entryArg);
  if (!file || !entryId) return void prompts.error(vscode.l10n.t('Open Output: right-click a tool result in the session editor.'));
  const found = await withModel(file, async (model) => {
    const at = await messageAt(model, entryId);
    if (!at) return undefined;
    const exec = at.m.blocks.find((b): b is Extract<Block, { kind: 'exec' }> => b.kind === 'exec');
    if (!at.m.toolResult && !exec) return undefined;
    let toolName = at.m.toolResult?.toolName ?? null;
    let args: Record<string, unknown> | null = null;
    if (at.m.toolResult && at.m.toolResult.callIndex !== null) {
      const [c] = await model.messages(at.leafId, at.m.toolResult.callIndex, 1);
      const call = c?.blocks.find((b): b is ToolCallBlock => b.kind === 'toolCall' && b.callId === at.m.toolResult!.callId);
      if (call) {
        toolName = call.name;
        args = safeArgs(call.argsJson);
      }
    }
    const shown = at.m.blocks.map((b) => (b.kind === 'text' || b.kind === 'markdown' ? b.text : b.kind === 'exec' ? b.output : '')).filter((t) => t !== '').join('\n');
    const whole = model.rawEntry ? fullOutput(await model.rawEntry(entryId)) : null;
    return { name: outputDocName(toolName, args, exec?.command ?? null), text: whole ?? shown };
  });
  if (!found) return void prompts.error(vscode.l10n.t('Open Output: this entry is no tool result or command run.'));
  const uri = docs.add(`output/${found.name}`, found.text);
  const stillPreview = await keepSessionTab(vscode, file);
  await vscode.window.showTextDocument(uri, { preview: !stillPreview });
  return uri;
}

function safeArgs(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function registerCompareCommands(provider: SessionsTreeProvider): vscode.Disposable {
  const docs = new VirtualDocs();
  const run = reportingErrors;
  return vscode.Disposable.from(
    vscode.workspace.registerTextDocumentContentProvider(COMPARE_SCHEME, docs),
    vscode.commands.registerCommand('sessionLoom.compareWithLeaf', run((a?: unknown, b?: unknown, c?: unknown) => compareWithLeaf(provider, docs, a, b, c))),
    vscode.commands.registerCommand('sessionLoom.openToolDiff', run((a?: unknown, b?: unknown, c?: unknown) => openToolDiff(docs, a, b, c))),
    vscode.commands.registerCommand('sessionLoom.openToolOutput', run((a?: unknown, b?: unknown) => openToolOutput(docs, a, b))),
  );
}
