// The extension host's runtime strings go through vscode.l10n.t, and l10n/bundle.l10n.json (what
// VS Code translates from: package.json "l10n": "./l10n") lists every one of them. The build writes
// the bundle (esbuild.mjs, with the extractor test/l10n-keys.mjs that this test uses too); here:
// the committed bundle is current, messages shown to the user are not plain literals, and every
// `{N}` placeholder of a template gets an argument.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

type L10nKeys = typeof import('../l10n-keys.mjs', { with: { 'resolution-mode': 'import' } });

const root = resolve(__dirname, '..', '..');
let l10n: L10nKeys;

before(async () => {
  l10n = await import('../l10n-keys.mjs');
});

const rel = (file: string) => relative(root, file).split(sep).join('/');

describe('l10n bundle', () => {
  it('package.json points VS Code at ./l10n', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { l10n?: string };
    assert.equal(pkg.l10n, './l10n');
  });

  it('every l10n.t key is a string literal', () => {
    const { errors } = l10n.findL10nCalls(root);
    assert.deepEqual(errors.map((e) => e.text), []);
  });

  it('the committed l10n/bundle.l10n.json is what the sources give now', () => {
    const { calls } = l10n.findL10nCalls(root);
    assert.ok(calls.length > 0, 'no l10n.t call found in src/extension');
    const expected = l10n.renderBundle(calls);
    const committed = readFileSync(join(root, l10n.BUNDLE_FILE), 'utf8');
    if (committed === expected) return;
    const want = Object.keys(JSON.parse(expected) as Record<string, string>);
    const have = JSON.parse(committed) as Record<string, string>;
    const missing = want.filter((k) => !(k in have));
    const stale = Object.keys(have).filter((k) => !want.includes(k));
    assert.fail(
      `${l10n.BUNDLE_FILE} is out of date: run \`node esbuild.mjs\` and commit it.` +
        (missing.length ? `\nmissing: ${missing.map((k) => JSON.stringify(k)).join(', ')}` : '') +
        (stale.length ? `\nno longer used: ${stale.map((k) => JSON.stringify(k)).join(', ')}` : '') +
        (!missing.length && !stale.length ? '\n(same keys: order, values or formatting differ)' : ''),
    );
  });

  it('every {N} placeholder of a template has an argument, and every argument a placeholder', () => {
    const problems: string[] = [];
    for (const c of l10n.findL10nCalls(root).calls) {
      if (c.args === null) continue; // named arguments ({ name }): not used here, not checked
      const used = new Set([...c.key.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1])));
      for (const n of used) if (n >= c.args) problems.push(`${c.file}:${c.line}: {${n}} has no argument (${c.args} given) in ${JSON.stringify(c.key)}`);
      for (let i = 0; i < c.args; i++) if (!used.has(i)) problems.push(`${c.file}:${c.line}: argument ${i} fills no {${i}} in ${JSON.stringify(c.key)}`);
    }
    assert.deepEqual(problems, []);
  });
});

// ---------- user-facing calls go through l10n.t ----------

/** Text written in the code: a string or template literal, or a `+` of one. */
function isPlainText(e: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(e)) return isPlainText(e.expression);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isTemplateExpression(e)) return true;
  if (ts.isConditionalExpression(e)) return isPlainText(e.whenTrue) || isPlainText(e.whenFalse);
  return ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken && (isPlainText(e.left) || isPlainText(e.right));
}

const SHOW_MESSAGE = new Set(['showErrorMessage', 'showInformationMessage', 'showWarningMessage']);
const PROMPTS = new Set(['error', 'info', 'confirm']);
/** Calls whose options object carries user-visible text (input box, quick pick, progress, open dialog). */
const WITH_OPTIONS = new Set(['input', 'showInputBox', 'showQuickPick', 'withProgress', 'showOpenDialog', 'showSaveDialog']);
const OPTION_TEXT = new Set(['title', 'prompt', 'placeHolder', 'openLabel', 'saveLabel']);

function calleeName(call: ts.CallExpression): { name: string; on: string } | undefined {
  const c = call.expression;
  if (!ts.isPropertyAccessExpression(c)) return undefined;
  const obj = c.expression;
  const on = ts.isIdentifier(obj) ? obj.text : ts.isPropertyAccessExpression(obj) ? obj.name.text : '';
  return { name: c.name.text, on };
}

describe('user-facing messages go through vscode.l10n.t', () => {
  it('no show*Message / prompts.error|info|confirm call, and no input box, quick pick or progress title, is a plain literal', () => {
    const found: string[] = [];
    let checked = 0;
    for (const file of l10n.extensionSources(root)) {
      const sf = l10n.parseSource(file);
      // Modules without vscode (tested under plain Node) have no l10n and show nothing themselves.
      if (!sf.statements.some((s) => ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text === 'vscode')) continue;
      const at = (n: ts.Node) => `${rel(file)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${n.getText(sf).slice(0, 100)}`;
      const visit = (n: ts.Node): void => {
        if (ts.isCallExpression(n) && !l10n.isL10nCall(n)) {
          const callee = calleeName(n);
          const shows = callee && (SHOW_MESSAGE.has(callee.name) || (callee.on === 'prompts' && PROMPTS.has(callee.name)));
          if (shows) {
            checked++;
            // The message, and the buttons after it (a modal's options object is not text).
            for (const arg of n.arguments) if (isPlainText(arg)) found.push(at(arg));
          }
          if (callee && (WITH_OPTIONS.has(callee.name) || (callee.on === 'prompts' && callee.name === 'input'))) {
            for (const arg of n.arguments) {
              if (!ts.isObjectLiteralExpression(arg)) continue;
              for (const p of arg.properties) {
                if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && OPTION_TEXT.has(p.name.text) && isPlainText(p.initializer)) found.push(at(p));
              }
            }
          }
        }
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
    assert.ok(checked > 10, `only ${checked} message calls found: is the walk still finding them?`);
    assert.deepEqual(found, [], 'wrap these in vscode.l10n.t(…) (a placeholder for each variable part)');
  });
});
