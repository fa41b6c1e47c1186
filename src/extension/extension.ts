import * as vscode from 'vscode';
import { SessionEditorProvider } from './editor/sessionEditorProvider';
import { registerHistoryView, type HistoryViewApi } from './history';
import { registerSessionsView, type SessionsViewApi } from './sessions';

// Each feature registers itself and pushes its disposables onto the context; activate only wires them.
/** What `activate` returns: test hooks reached through `getExtension(…).exports`. */
export interface SessionLoomApi {
  sessions: SessionsViewApi;
  history: HistoryViewApi;
}

export function activate(context: vscode.ExtensionContext): SessionLoomApi {
  const sessions = registerSessionsView(context);
  const history = registerHistoryView(context);
  context.subscriptions.push(SessionEditorProvider.register(context));
  return { sessions, history };
}

export function deactivate(): void {}
