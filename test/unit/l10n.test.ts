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

// ---------- the webview's text goes through l10n.t (@vscode/l10n) ----------

/**
 * Where the webview puts text on screen: `h(tag, attrs, ...children)` (webview/dom.ts) takes
 * children from argument 2 on and these attributes; the small helpers take text at these argument
 * positions; and these DOM properties and setAttribute names are text.
 */
const TEXT_ATTRS = new Set(['title', 'aria-label', 'placeholder', 'alt']);
const TEXT_ARGS: Record<string, number[]> = {
  icon: [1], // icon(codicon, title)
  sentence: [0], // sentence(l10n.t('… {0}', '{0}'), parts)
  stat: [0, 2], // headerBar: stat(label, value, title)
  button: [1, 2], // headerBar: button(codicon, text, title, onClick)
  chip: [1], // preview: chip(codicon, label, value)
  collapsible: [2], // messageRow: collapsible(key, actions, summary[], body, class)
  jumpLink: [0], // messageRow: jumpLink(text, index, actions)
};
const TEXT_PROPS = new Set(['textContent', 'innerText', 'title', 'placeholder', 'ariaLabel', 'alt']);
/** Literal text that is not words: symbols that \p{L} counts as letters. */
const NOT_WORDS = ['Σ'];

/** The literal text written in an expression (string and template literals, through `? :`, `??`, `||`, `+`, arrays). */
function literalText(e: ts.Expression): ts.Node[] {
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e)) return literalText(e.expression);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [e];
  if (ts.isTemplateExpression(e)) return [e];
  if (ts.isConditionalExpression(e)) return [...literalText(e.whenTrue), ...literalText(e.whenFalse)];
  if (ts.isArrayLiteralExpression(e)) return e.elements.flatMap((x) => (ts.isSpreadElement(x) ? [] : literalText(x)));
  if (ts.isBinaryExpression(e) && [ts.SyntaxKind.PlusToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(e.operatorToken.kind)) {
    return [...literalText(e.left), ...literalText(e.right)];
  }
  return [];
}

/** Whether literal text has words in it (the written parts of a template; minus NOT_WORDS). */
function hasWords(n: ts.Node): boolean {
  let text = '';
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) text = n.text;
  else if (ts.isTemplateExpression(n)) text = [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join(' ');
  for (const w of NOT_WORDS) text = text.split(w).join(' ');
  return /\p{L}/u.test(text);
}

/** Every place of a webview source that puts literal words on screen, as `file:line: code`. */
function plainWebviewText(sf: ts.SourceFile, name: string): { found: string[]; checked: number } {
  const found: string[] = [];
  let checked = 0;
  const at = (n: ts.Node) => `${name}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${n.getText(sf).slice(0, 100)}`;
  const check = (e: ts.Expression | undefined): void => {
    if (!e) return;
    checked++;
    for (const lit of literalText(e)) if (hasWords(lit)) found.push(at(lit));
  };
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && !l10n.isL10nCall(n)) {
      const c = n.expression;
      const fn = ts.isIdentifier(c) ? c.text : undefined;
      const method = ts.isPropertyAccessExpression(c) ? c.name.text : undefined;
      if (fn === 'h') {
        const attrs = n.arguments[1];
        if (attrs && ts.isObjectLiteralExpression(attrs)) {
          for (const p of attrs.properties) {
            const key = ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
            if (key && TEXT_ATTRS.has(key)) check((p as ts.PropertyAssignment).initializer);
          }
        }
        n.arguments.slice(2).forEach((a) => check(ts.isSpreadElement(a) ? undefined : a));
      } else if (fn && fn in TEXT_ARGS) {
        for (const i of TEXT_ARGS[fn]!) check(n.arguments[i]);
      } else if (method === 'setAttribute' && n.arguments[0] && ts.isStringLiteral(n.arguments[0]) && TEXT_ATTRS.has(n.arguments[0].text)) {
        check(n.arguments[1]);
      } else if (method === 'append' || method === 'prepend' || method === 'replaceChildren') {
        n.arguments.forEach((a) => check(ts.isSpreadElement(a) ? undefined : a));
      }
    }
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left) && TEXT_PROPS.has(n.left.name.text)) check(n.right);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { found, checked };
}

describe("the webview's text goes through l10n.t (@vscode/l10n)", () => {
  it('the bundle has the webview keys', () => {
    const fromWebview = l10n.findL10nCalls(root).calls.filter((c) => c.file.startsWith(`${l10n.WEBVIEW_DIR}/`));
    assert.ok(fromWebview.length > 50, `only ${fromWebview.length} l10n.t calls found in ${l10n.WEBVIEW_DIR}/: is the walk still finding them?`);
  });

  it('the check finds literal words, and only words', () => {
    const sf = ts.createSourceFile(
      'sample.ts',
      [
        "h('span', { class: 'sl-chip sl-muted', title: 'Plain title' }, icon('pass'), ' no diagnostics');",
        "h('div', { 'aria-label': ok ? 'Yes' : l10n.t('No') }, `${n} shown`, h('code', {}, data), x ?? 'fallback');",
        "el.textContent = `${a} hidden`; button('go-to-file', 'Raw JSONL', l10n.t('Open')); el.setAttribute('placeholder', 'Type');",
        // Not text: classes, codicons, roles, symbols, data, translated text.
        "h('span', { class: 'codicon codicon-error', role: 'alert', 'aria-hidden': 'true', name: 'search' }, icon('error', l10n.t('Error')), '…', ' · ', `#${i}`, `Σ ${t}`, `$ ${cmd}`, data);",
        "el.className = 'sl-tree-row'; el.setAttribute('aria-expanded', 'true'); el.title = l10n.t('Title {0}', x);",
      ].join('\n'),
      ts.ScriptTarget.Latest,
      true,
      ts.ScriptKind.TS,
    );
    const { found } = plainWebviewText(sf, 'sample.ts');
    const texts = found.map((f) => f.replace(/^sample\.ts:\d+: /, ''));
    assert.deepEqual(texts, ["'Plain title'", "' no diagnostics'", "'Yes'", '`${n} shown`', "'fallback'", '`${a} hidden`', "'Raw JSONL'", "'Type'"]);
  });

  it('no h() child, text attribute (title, aria-label, placeholder, alt), text helper argument or textContent is a plain literal with words', () => {
    const found: string[] = [];
    let checked = 0;
    for (const file of l10n.webviewSources(root)) {
      const r = plainWebviewText(l10n.parseSource(file), rel(file));
      found.push(...r.found);
      checked += r.checked;
    }
    assert.ok(checked > 100, `only ${checked} text positions found in ${l10n.WEBVIEW_DIR}/: is the walk still finding h() calls?`);
    assert.deepEqual(found, [], "wrap these in l10n.t(…) from '@vscode/l10n' (a {0} placeholder for each variable part)");
  });

  it('webview/main.ts loads the translations before any module that renders', () => {
    const sf = l10n.parseSource(join(root, l10n.WEBVIEW_DIR, 'main.ts'));
    const imports = sf.statements.filter(ts.isImportDeclaration).filter((s) => !s.importClause?.isTypeOnly).map((s) => (s.moduleSpecifier as ts.StringLiteral).text);
    const local = imports.filter((m) => m.startsWith('./') && !m.endsWith('.css'));
    assert.equal(local[0], './l10nBundle', `the first local import of webview/main.ts must be ./l10nBundle (imports: ${imports.join(', ')})`);
  });
});
