// The translations of the webview's text, before any of it is drawn. The host writes
// `vscode.l10n.bundle` (the extension's one bundle, webview keys included; absent in English)
// into the HTML as a JSON data block (src/extension/editor/webviewHtml.ts), so it is here
// synchronously at start-up: no text is ever drawn in English first. main.ts imports this module
// before anything that renders. Without the block, or with a broken one, l10n.t gives English.
import * as l10n from '@vscode/l10n';

const block = document.getElementById('l10n-bundle');
if (block?.textContent) {
  try {
    const contents: unknown = JSON.parse(block.textContent);
    if (contents && typeof contents === 'object' && !Array.isArray(contents)) l10n.config({ contents: contents as Record<string, string> });
  } catch (err) {
    console.error('[session-loom] unreadable l10n bundle: the editor shows English', err);
  }
}
