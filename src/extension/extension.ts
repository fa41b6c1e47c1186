import * as vscode from 'vscode';
import { SessionsTreeProvider } from './sessionsView';

// Each feature registers itself and pushes its disposables onto the context; activate only wires them.
export function activate(context: vscode.ExtensionContext): void {
  SessionsTreeProvider.register(context);
}

export function deactivate(): void {}
