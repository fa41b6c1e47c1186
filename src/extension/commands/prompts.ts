// Every question the session commands ask goes through this object, so integration tests can
// answer modals ("Write anyway" / "Cancel") and input boxes without leaving a dialog open.
// Tests replace a function and put the original back; nothing else should touch it.
// Callers pass text already localized (vscode.l10n.t at the call site, so the bundle extractor and
// test/unit/l10n.test.ts see every message where it is written).
import * as vscode from 'vscode';

export interface Prompts {
  /** A modal warning; resolves to the chosen item, or undefined for Cancel / Escape. */
  confirm(message: string, detail: string, ...choices: string[]): Thenable<string | undefined>;
  input(options: vscode.InputBoxOptions): Thenable<string | undefined>;
  /** A notification; with choices, resolves to the one clicked (not awaited by the commands). */
  info(message: string, ...choices: string[]): Thenable<string | undefined> | void;
  error(message: string): void;
}

export const prompts: Prompts = {
  confirm: (message, detail, ...choices) => vscode.window.showWarningMessage(message, { modal: true, detail }, ...choices),
  input: (options) => vscode.window.showInputBox(options),
  info: (message, ...choices) => vscode.window.showInformationMessage(message, ...choices),
  error: (message) => void vscode.window.showErrorMessage(message),
};

/** The button of a refused write that retries it (a function: l10n.t runs after activation). */
export const writeAnyway = (): string => vscode.l10n.t('Write anyway');

/** A command body whose failure is shown as one error message (not an unhandled rejection). */
export function reportingErrors<A extends unknown[]>(fn: (...a: A) => Promise<unknown>): (...a: A) => Promise<unknown> {
  return async (...a: A) => {
    try {
      return await fn(...a);
    } catch (err) {
      prompts.error(vscode.l10n.t('Session Loom: {0}', err instanceof Error ? err.message : String(err)));
      return undefined;
    }
  };
}
