// The editor's HTML shell: strict CSP (no eval, no inline script, one nonce'd module script),
// styles, fonts and images only from the extension's dist folder (plus data: images that the
// host resolved from the blob store). The codicon link carries the id vscode-elements looks up:
// its icons link the same stylesheet inside their shadow roots.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, fileName: string): string {
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
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" id="vscode-codicon-stylesheet" href="${asset('codicons', 'codicon.css')}">
<link rel="stylesheet" href="${asset('webview', 'main.css')}">
<title>${escHtml(vscode.l10n.t('Session'))}</title>
</head>
<body>
<div id="app" class="sl-app" data-session-file="${escAttr(fileName)}"><div class="sl-loading">${escHtml(vscode.l10n.t('Loading session…'))}</div></div>
<script type="module" nonce="${nonce}" src="${asset('webview', 'main.js')}"></script>
</body>
</html>`;
}
