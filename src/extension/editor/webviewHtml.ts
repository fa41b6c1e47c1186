// The editor's HTML shell: strict CSP (no eval; scripts and styles only by this page's nonce),
// fonts and images only from the extension's dist folder (plus data: images that the host
// resolved from the blob store). The codicon link carries the id vscode-elements looks up: its
// icons link the same stylesheet inside their shadow roots.
//
// The webview's bundle and stylesheet travel inside the page. Linked, each was a fetch through the
// webview's service worker and the workbench: measured in the real VS Code (editor log, 100k
// session, loaded machine), main.js arrived 660 ms after the page had loaded and the rest waited
// on it; inline they come with the page in one message. So does codicon.css: linked, it held the
// bundle back until it arrived (a stylesheet blocks the scripts after it: 30–160 ms after the page
// had loaded, in the editor's log).
//
// Nothing is fetched before the page's `load`: VS Code hands the page what the host posted ahead
// of its `ready` (editorPanel.ts: the first paint's `init`) only once `load` has fired, and `load`
// waits for every fetch the page starts while it loads (a preloaded font held it 20–60 ms after
// the script had run). The codicon font is fetched when the first icons are drawn, after `load`;
// icons keep their width meanwhile (styles.css). The element vscode-elements looks up by id, to
// link the same stylesheet in its controls' shadow roots, is a disabled link: it carries the URL
// and fetches nothing.
//
// The translations travel in the HTML too: `vscode.l10n.bundle` (the extension's one bundle, the
// webview's keys included; undefined in English) as a JSON data block that webview/l10nBundle.ts
// hands to @vscode/l10n before anything renders, so no text is drawn in English first and no
// message round trip is needed. A data block (`type="application/json"`) is never executed: the
// CSP's script-src does not apply to it and it needs no nonce.
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import * as vscode from 'vscode';
import { inlineScript, inlineStyle, jsonScriptText } from '../../core/inlineHtml';

/** The webview's bundle and stylesheet as they go into the page (made safe to inline), by path. */
const assetCache = new Map<string, { mtimeMs: number; text: string }>();

/**
 * codicon.css as it goes into the page: its font's URL made this webview's (the URL the linked
 * stylesheet resolves in the controls' shadow roots, so that one fetch serves both), comments and
 * runs of white space dropped.
 */
let codiconCache: { mtimeMs: number; fontUri: string; text: string } | undefined;
function codiconStyle(path: string, fontUri: string): string {
  const mtimeMs = statSync(path).mtimeMs;
  if (codiconCache && codiconCache.mtimeMs === mtimeMs && codiconCache.fontUri === fontUri) return codiconCache.text;
  const css = readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/url\((["']?)\.\/codicon\.ttf([^)"']*)\1\)/g, (_m, _q, query: string) => `url("${fontUri}${query}")`)
    .replace(/\s+/g, ' ');
  codiconCache = { mtimeMs, fontUri, text: inlineStyle(css) };
  return codiconCache.text;
}

/** The source map is not next to an inline script: its link would only 404 in the devtools. */
const withoutSourceMap = (text: string): string => text.replace(/\n\/[/*]# sourceMappingURL=[^\n]*\s*$/, '\n');
const inlined = (path: string, text: string): string => (path.endsWith('.css') ? inlineStyle(withoutSourceMap(text)) : inlineScript(withoutSourceMap(text)));

/**
 * A built asset's text as it goes into the page, read and escaped once (again only when a rebuild
 * changed it: development) — not on every open: the bundle is over half a megabyte unminified.
 */
function assetText(path: string): string {
  const mtimeMs = statSync(path).mtimeMs;
  const cached = assetCache.get(path);
  if (cached && cached.mtimeMs === mtimeMs) return cached.text;
  const text = inlined(path, readFileSync(path, 'utf8'));
  assetCache.set(path, { mtimeMs, text });
  return text;
}

/**
 * Reads the page's assets ahead, off the extension host's thread (called at activation): the
 * first editor opened then does not read and escape them while the user waits (in a CPU profile
 * of an open, they were a third of the host's longest busy stretch).
 */
export async function preloadWebviewAssets(extensionUri: vscode.Uri): Promise<void> {
  for (const name of ['main.css', 'main.js']) {
    const path = vscode.Uri.joinPath(extensionUri, 'dist', 'webview', name).fsPath;
    try {
      const [st, text] = await Promise.all([stat(path), readFile(path, 'utf8')]);
      if (!assetCache.has(path)) assetCache.set(path, { mtimeMs: st.mtimeMs, text: inlined(path, text) });
    } catch {
      // read when an editor opens, which says what is wrong
    }
  }
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, fileName: string, bundle: Readonly<Record<string, string>> | undefined = vscode.l10n.bundle): string {
  const nonce = randomBytes(18).toString('base64');
  const asset = (...p: string[]): string => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', ...p)).toString();
  const distFile = (...p: string[]): string => vscode.Uri.joinPath(extensionUri, 'dist', ...p).fsPath;
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  const escAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  // A translation is text, not markup.
  const escHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return `<!DOCTYPE html>
<html lang="${escAttr(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" id="vscode-codicon-stylesheet" href="${asset('codicons', 'codicon.css')}" disabled>
<style nonce="${nonce}">${codiconStyle(distFile('codicons', 'codicon.css'), asset('codicons', 'codicon.ttf'))}</style>
<style nonce="${nonce}">${assetText(distFile('webview', 'main.css'))}</style>
<title>${escHtml(vscode.l10n.t('Session'))}</title>
${bundle ? `<script type="application/json" id="l10n-bundle">${jsonScriptText(bundle)}</script>\n` : ''}</head>
<body>
<div id="app" class="sl-app" data-session-file="${escAttr(fileName)}"><div class="sl-loading">${escHtml(vscode.l10n.t('Loading session…'))}</div></div>
<script type="module" nonce="${nonce}">${assetText(distFile('webview', 'main.js'))}</script>
</body>
</html>`;
}
