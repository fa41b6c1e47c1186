// The runtime strings of the extension: every `vscode.l10n.t(…)` call in src/extension, every
// `l10nT(…)` call in src/core (the core's UI wording, which the extension translates by passing
// `vscode.l10n.t` as `l10nT`; see src/core/l10n.ts) and every `l10n.t(…)` call in webview/ (the
// session editor's webview, through @vscode/l10n: the host hands it `vscode.l10n.bundle`, so
// its keys live in the same bundle), found with the TypeScript compiler API. Shared by the build
// (esbuild.mjs writes l10n/bundle.l10n.json from it on every build) and by
// test/unit/l10n.test.ts (which checks that the committed bundle is what the sources give now).
// Plain ESM so both can load it as is.
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';

/** Where the extension host's sources are, relative to the repository root. */
export const SOURCE_DIR = 'src/extension';
/** The core: its UI wording goes through an `l10nT` argument (src/core/l10n.ts). */
export const CORE_DIR = 'src/core';
/** The session editor's webview: `l10n.t` from @vscode/l10n, imported as `* as l10n`. */
export const WEBVIEW_DIR = 'webview';
/** The package the webview translates with. */
export const WEBVIEW_L10N = '@vscode/l10n';
/** The bundle VS Code reads for the default language (package.json `"l10n": "./l10n"`). */
export const BUNDLE_FILE = 'l10n/bundle.l10n.json';

/**
 * The `.ts` files under the given directories of `root`, sorted, as absolute paths.
 * @param {string} root
 * @param {readonly string[]} dirs
 * @returns {string[]}
 */
function tsFiles(root, dirs) {
  /** @type {string[]} */
  const out = [];
  const walk = (/** @type {string} */ dir) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (d.name.endsWith('.ts') && !d.name.endsWith('.d.ts')) out.push(p);
    }
  };
  for (const dir of dirs) walk(join(root, dir));
  return out.sort();
}

/**
 * The `.ts` files of the extension host (src/extension and src/core), sorted, as absolute paths.
 * @param {string} root
 * @returns {string[]}
 */
export function extensionSources(root) {
  return tsFiles(root, [SOURCE_DIR, CORE_DIR]);
}

/**
 * The `.ts` files of the webview (webview/), sorted, as absolute paths.
 * @param {string} root
 * @returns {string[]}
 */
export function webviewSources(root) {
  return tsFiles(root, [WEBVIEW_DIR]);
}

/**
 * Every file whose `l10n.t` keys go into the bundle: the extension host's and the webview's.
 * @param {string} root
 * @returns {string[]}
 */
export function l10nSources(root) {
  return [...extensionSources(root), ...webviewSources(root)];
}

/**
 * @param {string} file
 * @returns {import('typescript').SourceFile}
 */
export function parseSource(file) {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

/**
 * Whether an expression is `vscode.l10n.t` or `l10n.t` (`l10n` imported by name, or the webview's
 * `import * as l10n from '@vscode/l10n'`).
 * @param {import('typescript').Expression} callee
 */
function isL10nT(callee) {
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 't') return false;
  const obj = callee.expression;
  return (ts.isPropertyAccessExpression(obj) && obj.name.text === 'l10n') || (ts.isIdentifier(obj) && obj.text === 'l10n');
}

/**
 * Whether a call is `vscode.l10n.t(…)`, `l10n.t(…)` or the core's `l10nT(…)`.
 * @param {import('typescript').CallExpression} call
 */
export function isL10nCall(call) {
  const callee = call.expression;
  if (ts.isIdentifier(callee) && callee.text === 'l10nT') return true;
  return isL10nT(callee);
}

/**
 * Every l10n.t call of the extension host and webview sources, and an error for each whose first
 * argument is not a string literal (the bundle key must be readable without running the code),
 * for each tagged-template use (l10n.t`…`: its key is not written out), and for each import of
 * @vscode/l10n other than `* as l10n` (a `t` imported by name would not be found here).
 * @param {string} root
 * @returns {{ calls: import('./l10n-keys.d.mts').L10nCall[], errors: import('./l10n-keys.d.mts').L10nError[] }}
 */
export function findL10nCalls(root) {
  /** @type {import('./l10n-keys.d.mts').L10nCall[]} */
  const calls = [];
  /** @type {import('./l10n-keys.d.mts').L10nError[]} */
  const errors = [];
  for (const file of l10nSources(root)) {
    const sf = parseSource(file);
    const rel = relative(root, file).split(sep).join('/');
    const fail = (/** @type {import('typescript').Node} */ at, /** @type {string} */ why) => {
      const { line, character } = sf.getLineAndCharacterOfPosition(at.getStart(sf));
      errors.push({ file: rel, line: line + 1, column: character, lineText: sf.text.split(/\r?\n/)[line] ?? '', text: `${rel}:${line + 1}: ${why}` });
    };
    const visit = (/** @type {import('typescript').Node} */ node) => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text === WEBVIEW_L10N) {
        const bindings = node.importClause?.namedBindings;
        const asL10n = !node.importClause?.name && bindings && ts.isNamespaceImport(bindings) && bindings.name.text === 'l10n';
        if (!asL10n) fail(node, `import ${WEBVIEW_L10N} as \`import * as l10n from '${WEBVIEW_L10N}'\` (the bundle's keys are found as l10n.t calls)`);
      }
      if (ts.isTaggedTemplateExpression(node) && isL10nT(node.tag)) {
        fail(node, `call l10n.t('…{0}…', value) rather than tagging a template: the key of ${BUNDLE_FILE} must be written out`);
      }
      if (ts.isCallExpression(node) && isL10nCall(node)) {
        const first = node.arguments[0];
        const { line, character } = sf.getLineAndCharacterOfPosition((first ?? node).getStart(sf));
        if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) {
          const named = node.arguments.length === 2 && ts.isObjectLiteralExpression(/** @type {import('typescript').Expression} */ (node.arguments[1]));
          calls.push({ file: rel, line: line + 1, key: first.text, args: named ? null : node.arguments.length - 1 });
        } else {
          errors.push({
            file: rel,
            line: line + 1,
            column: character,
            lineText: sf.text.split(/\r?\n/)[line] ?? '',
            text: `${rel}:${line + 1}: the first argument of l10n.t must be a string literal (the key of ${BUNDLE_FILE}), not ${first ? ts.SyntaxKind[first.kind] : 'nothing'}`,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { calls, errors };
}

/**
 * The bundle's text: each key mapped to itself (the English is the key), keys sorted, 2-space
 * indent, trailing newline.
 * @param {readonly { key: string }[]} calls
 * @returns {string}
 */
export function renderBundle(calls) {
  const keys = [...new Set(calls.map((c) => c.key))].sort();
  /** @type {Record<string, string>} */
  const bundle = {};
  for (const k of keys) bundle[k] = k;
  return `${JSON.stringify(bundle, null, 2)}\n`;
}

/**
 * Writes l10n/bundle.l10n.json from the sources (only when its text changes). With errors nothing
 * is written.
 * @param {string} root
 * @returns {{ errors: import('./l10n-keys.d.mts').L10nError[], count: number, written: boolean }}
 */
export function writeL10nBundle(root) {
  const { calls, errors } = findL10nCalls(root);
  if (errors.length > 0) return { errors, count: 0, written: false };
  const text = renderBundle(calls);
  const out = join(root, BUNDLE_FILE);
  const count = new Set(calls.map((c) => c.key)).size;
  if (existsSync(out) && readFileSync(out, 'utf8') === text) return { errors, count, written: false };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  return { errors, count, written: true };
}
