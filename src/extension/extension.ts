import * as vscode from 'vscode';
import { SessionEditorProvider } from './editor/sessionEditorProvider';
import { registerSessionsView, type SessionsViewApi } from './sessions';

// Each feature registers itself and pushes its disposables onto the context; activate only wires them.
/** What `activate` returns: test hooks reached through `getExtension(…).exports`. */
export interface SessionLoomApi {
  sessions: SessionsViewApi;
}

export function activate(context: vscode.ExtensionContext): SessionLoomApi {
  const sessions = registerSessionsView(context);
  context.subscriptions.push(SessionEditorProvider.register(context));
  return { sessions };
}

export function deactivate(): void {}
