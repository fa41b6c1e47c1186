// The editor's HTML shell: strict CSP (no eval; scripts and styles only by this page's nonce),
// fonts only as data URLs, images only from the extension's dist folder (plus data: images that
// the host resolved from the blob store).
//
// The page fetches nothing. The webview's bundle and stylesheets travel inside it: linked, each was
// a fetch through the webview's service worker and the workbench (main.js arrived 660 ms after the
// page had loaded, in the editor's log; a linked codicon.css held the bundle back 30–160 ms, a
// preloaded font held the page's `load` 20–60 ms — and VS Code hands the page what the host posted
// ahead of its `ready` only at `load`). A fetch after `load` is worse: VS Code's webview service
// worker waits up to 30 s for an answer, and while one is in flight for an editor that was closed,
// the next webview's document did not begin for 20–30 s (seen in the integration tests). So the
// codicon font is a data URL in the inlined codicon.css, and no vscode-icon is used (it links
// codicon.css in its shadow root): our own codicon spans are.
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
import type { WebviewState } from '../../protocol/messages';

/**
 * Runs before the bundle is parsed: tells the host the page exists and whether it restores state
 * (editorPanel.ts then posts a fresh page its first paint's `init`, to be handed over at `load`),
 * and keeps the one VS Code API object for rpc.ts.
 */
const HELLO_SCRIPT = 'globalThis.slVscode=acquireVsCodeApi();slVscode.postMessage({type:"hello",restored:slVscode.getState()!=null});';

/** The webview's bundle and stylesheet as they go into the page (made safe to inline), by path. */
const assetCache = new Map<string, { mtimeMs: number; text: string }>();

/**
 * codicon.css as it goes into the page, its font a data URL (so the page fetches nothing at all:
 * a fetch still in flight when an editor closes — VS Code's webview service worker waits 30 s for
 * its answer — held the next webview's document back as long), comments and white space dropped.
 */
let codiconCache: { key: string; text: string } | undefined;
function codiconStyle(cssPath: string, fontPath: string): string {
  const key = `${statSync(cssPath).mtimeMs} ${statSync(fontPath).mtimeMs}`;
  if (codiconCache?.key === key) return codiconCache.text;
  const font = `data:font/ttf;base64,${readFileSync(fontPath).toString('base64')}`;
  const css = readFileSync(cssPath, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/url\((["']?)\.\/codicon\.ttf[^)"']*\1\)/g, `url("${font}")`)
    .replace(/\s+/g, ' ');
  codiconCache = { key, text: inlineStyle(css) };
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

/**
 * The page of a session editor. `kept`: where the user was in the file's last editor (its tab was
 * closed or replaced), as a JSON data block the page restores when it has no state of its own.
 */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, fileName: string, bundle: Readonly<Record<string, string>> | undefined = vscode.l10n.bundle, kept?: WebviewState): string {
  const nonce = randomBytes(18).toString('base64');
  const distFile = (...p: string[]): string => vscode.Uri.joinPath(extensionUri, 'dist', ...p).fsPath;
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    'font-src data:',
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
<style nonce="${nonce}">${codiconStyle(distFile('codicons', 'codicon.css'), distFile('codicons', 'codicon.ttf'))}</style>
<style nonce="${nonce}">${assetText(distFile('webview', 'main.css'))}</style>
<title>${escHtml(vscode.l10n.t('Session'))}</title>
${bundle ? `<script type="application/json" id="l10n-bundle">${jsonScriptText(bundle)}</script>\n` : ''}${kept ? `<script type="application/json" id="sl-state">${jsonScriptText(kept)}</script>\n` : ''}</head>
<body>
<div id="app" class="sl-app" data-session-file="${escAttr(fileName)}"><div class="sl-loading">${escHtml(vscode.l10n.t('Loading session…'))}</div></div>
<script nonce="${nonce}">${HELLO_SCRIPT}</script>
<script type="module" nonce="${nonce}">${assetText(distFile('webview', 'main.js'))}</script>
</body>
</html>`;
}
