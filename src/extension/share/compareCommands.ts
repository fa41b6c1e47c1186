// Compare with Leaf… and Open Diff (issue 13), both in VS Code's own diff editor over read-only
// virtual documents (a TextDocumentContentProvider never writes anything):
// - Compare: the Markdown of two contexts (src/core/compare/compareContexts.ts), the shared
//   prefix folded into one line on both sides so the first divergent message lines up;
// - Open Diff: an `edit` tool call's old and new text (or a `write`'s content against nothing),
//   named after the file so the editor picks its language.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { compareLeaves } from '../../core/compare/compareContexts';
import { toolCallDiff } from '../../core/compare/toolDiff';
import type { SessionModel } from '../../core/engine/model';
import { openSessionModel } from '../../core/engine/openModel';
import type { Block } from '../../protocol/messages';
import { activeEditor, editorOf } from '../editor/editorSelection';
import { prompts } from '../commands/prompts';
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
  const title =
    c.shared === 1
      ? vscode.l10n.t('{0} ↔ {1} ({2} shared message)', leftLeaf ?? '', right.leafId, 1)
      : vscode.l10n.t('{0} ↔ {1} ({2} shared messages)', leftLeaf ?? '', right.leafId, c.shared);
  await vscode.commands.executeCommand('vscode.diff', leftUri, rightUri, title, { preview: false, selection: c.divergenceLine.right ? new vscode.Range(c.divergenceLine.right - 1, 0, c.divergenceLine.right - 1, 0) : undefined });
  return { shared: c.shared, left: leftUri, right: rightUri, divergenceLine: c.divergenceLine };
}

type ToolCallBlock = Extract<Block, { kind: 'toolCall' }>;

/** Opens the diff of an `edit`/`write` tool call: (file, entryId, callId), or a right click on the call in the editor. */
export async function openToolDiff(docs: VirtualDocs, arg?: unknown, entryArg?: unknown, callArg?: unknown): Promise<vscode.Uri[] | undefined> {
  let file: string | undefined;
  let entryId: string | undefined;
  let callId: string | undefined;
  if (arg instanceof vscode.Uri || typeof arg === 'string') {
    file = arg instanceof vscode.Uri ? arg.fsPath : arg;
    entryId = typeof entryArg === 'string' ? entryArg : undefined;
    callId = typeof callArg === 'string' ? callArg : undefined;
  } else if (arg && typeof arg === 'object') {
    const ctx = arg as { entryId?: unknown; callId?: unknown };
    file = activeEditor()?.uri.fsPath;
    entryId = typeof ctx.entryId === 'string' ? ctx.entryId : undefined;
    callId = typeof ctx.callId === 'string' ? ctx.callId : undefined;
  }
  if (!file || !entryId) return void prompts.error(vscode.l10n.t('Open Diff: right-click an edit or write tool call in the session editor.'));
  const call = await withModel(file, async (model): Promise<ToolCallBlock | undefined> => {
    // the message of the entry, in the context at that entry (it is the last message there)
    const info = await model.context(entryId!);
    const at = await model.locate(info.leafId, entryId!);
    if (at.messageIndex === null) return undefined;
    const [m] = await model.messages(info.leafId, at.messageIndex, 1);
    const calls = (m?.blocks ?? []).filter((b): b is ToolCallBlock => b.kind === 'toolCall');
    return calls.find((b) => b.callId === callId) ?? calls.find((b) => toolCallDiff(b.name, safeArgs(b.argsJson)) !== null);
  });
  const diff = call ? toolCallDiff(call.name, safeArgs(call.argsJson)) : null;
  if (!call || !diff) return void prompts.error(vscode.l10n.t('Open Diff: this tool call edits no file (only edit and write calls have a diff).'));
  const name = path.basename(diff.file) || 'file';
  const before = docs.add(`before/${name}`, diff.before);
  const after = docs.add(`after/${name}`, diff.after);
  await vscode.commands.executeCommand('vscode.diff', before, after, vscode.l10n.t('{0} ({1}: before ↔ after)', name, call.name), { preview: true });
  return [before, after];
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
  const run =
    <A extends unknown[]>(fn: (...a: A) => Promise<unknown>) =>
    async (...a: A) => {
      try {
        return await fn(...a);
      } catch (err) {
        prompts.error(vscode.l10n.t('Session Loom: {0}', err instanceof Error ? err.message : String(err)));
        return undefined;
      }
    };
  return vscode.Disposable.from(
    vscode.workspace.registerTextDocumentContentProvider(COMPARE_SCHEME, docs),
    vscode.commands.registerCommand('sessionLoom.compareWithLeaf', run((a?: unknown, b?: unknown, c?: unknown) => compareWithLeaf(provider, docs, a, b, c))),
    vscode.commands.registerCommand('sessionLoom.openToolDiff', run((a?: unknown, b?: unknown, c?: unknown) => openToolDiff(docs, a, b, c))),
  );
}
