// Types of test/l10n-keys.mjs (the extractor the build and test/unit/l10n.test.ts share).
import type { CallExpression, SourceFile } from 'typescript';

/** One `vscode.l10n.t('key', …)`, `l10nT('key', …)` or (webview) `l10n.t('key', …)` call. */
export interface L10nCall {
  /** Relative to the repository root, with forward slashes. */
  file: string;
  /** 1-based. */
  line: number;
  key: string;
  /** How many arguments follow the key (null: one object of named arguments). */
  args: number | null;
}

/** A call whose key is not a string literal (or a tagged l10n.t template, or @vscode/l10n not imported as `* as l10n`). */
export interface L10nError {
  file: string;
  /** 1-based. */
  line: number;
  /** 0-based. */
  column: number;
  /** The source line, for the build's error display. */
  lineText: string;
  text: string;
}

export const SOURCE_DIR: string;
export const CORE_DIR: string;
export const WEBVIEW_DIR: string;
export const WEBVIEW_L10N: string;
export const BUNDLE_FILE: string;
/** src/extension and src/core. */
export function extensionSources(root: string): string[];
/** webview/. */
export function webviewSources(root: string): string[];
/** Everything whose l10n.t keys go into the bundle: extensionSources and webviewSources. */
export function l10nSources(root: string): string[];
export function parseSource(file: string): SourceFile;
export function isL10nCall(call: CallExpression): boolean;
export function findL10nCalls(root: string): { calls: L10nCall[]; errors: L10nError[] };
export function renderBundle(calls: readonly { key: string }[]): string;
export function writeL10nBundle(root: string): { errors: L10nError[]; count: number; written: boolean };
