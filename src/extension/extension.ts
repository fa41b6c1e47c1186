// First: zod decides whether it may compile a schema's parser when the schema is defined (at
// module load, before activate runs), so jitless must be set before any module defines one.
// Compiling took ~15–25 ms of the host's thread inside the first message an editor sent (a CPU
// profile of an open), for messages the plain path checks about as fast.
import '../protocol/jitless';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ModelHost } from '../core/engine/worker/modelHost';
import { SessionEditorProvider } from './editor/sessionEditorProvider';
import type { EditorTiming } from './editor/editorPanel';
import { registerHistoryView, type HistoryViewApi } from './history';
import { registerSessionsView, type SessionsViewApi } from './sessions';

// Each feature registers itself and pushes its disposables onto the context; activate only wires them.
/** What `activate` returns: test hooks reached through `getExtension(…).exports`. */
export interface SessionLoomApi {
  sessions: SessionsViewApi;
  history: HistoryViewApi;
  /** The session editor's paint timings: the latest messages while indexing, the full view, a repaint after a selection. */
  editor: { onDidPaint: vscode.Event<EditorTiming>; forgetPlaces(): void };
}

export function activate(context: vscode.ExtensionContext): SessionLoomApi {
  // The thread sessions are read and held in (issue 11): the host's event loop only waits for
  // answers. dist/modelWorker.js sits beside dist/extension.js.
  const models = new ModelHost({ workerFile: path.join(__dirname, 'modelWorker.js'), indexCacheDir: path.join(context.globalStorageUri.fsPath, 'index') });
  context.subscriptions.push({ dispose: () => models.dispose() });
  const sessions = registerSessionsView(context, models);
  const history = registerHistoryView(context);
  const editor = SessionEditorProvider.register(context, models);
  context.subscriptions.push(editor.disposable);
  // Whatever opens first (an editor, a row's message count) finds the worker's bundle loaded.
  models.warm();
  return { sessions, history, editor: { onDidPaint: editor.onDidPaint, forgetPlaces: editor.forgetPlaces } };
}

export function deactivate(): void {}
