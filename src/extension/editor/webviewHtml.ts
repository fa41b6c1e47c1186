// The editor's HTML shell: strict CSP (no eval, no inline script, one nonce'd module script),
// styles, fonts and images only from the extension's dist folder (plus data: images that the
// host resolved from the blob store). The codicon link carries the id vscode-elements looks up:
// its icons link the same stylesheet inside their shadow roots.
//
// The translations travel in the HTML: `vscode.l10n.bundle` (the extension's one bundle, the
// webview's keys included; undefined in English) as a JSON data block that webview/l10nBundle.ts
// hands to @vscode/l10n before anything renders, so no text is drawn in English first and no
// message round trip is needed. A data block (`type="application/json"`) is never executed: the
// CSP's script-src does not apply to it and it needs no nonce.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/**
 * A JSON value as the text of a `<script type="application/json">` element: every `<`, `>` and `&`
 * written as a `\u` escape, so no string in it can close the element (`</script>`) or open a
 * comment (`<!--`); JSON.parse reads it back unchanged. Outside strings JSON has none of them.
 */
export function jsonScriptText(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, fileName: string, bundle: Readonly<Record<string, string>> | undefined = vscode.l10n.bundle): string {
  const nonce = randomBytes(18).toString('base64');
  const asset = (...p: string[]): string => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', ...p)).toString();
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
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
<link rel="preload" href="${asset('codicons', 'codicon.ttf')}" as="font" type="font/ttf" crossorigin>
<link rel="stylesheet" id="vscode-codicon-stylesheet" href="${asset('codicons', 'codicon.css')}">
<link rel="stylesheet" href="${asset('webview', 'main.css')}">
<title>${escHtml(vscode.l10n.t('Session'))}</title>
${bundle ? `<script type="application/json" id="l10n-bundle">${jsonScriptText(bundle)}</script>\n` : ''}</head>
<body>
<div id="app" class="sl-app" data-session-file="${escAttr(fileName)}"><div class="sl-loading">${escHtml(vscode.l10n.t('Loading session…'))}</div></div>
<script type="module" nonce="${nonce}" src="${asset('webview', 'main.js')}"></script>
</body>
</html>`;
}
