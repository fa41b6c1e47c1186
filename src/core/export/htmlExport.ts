// "Export Branch as HTML…" / `session-loom export --format html` (issue 13): one self-contained
// page that opens in any browser, offline. Unlike the agents' /export (renderers from a CDN, no
// blob images) everything is inside the file: the session editor's own webview bundle, its
// styles, the codicon font, the images (data URLs) and the data (exportData.ts), answered by a
// static host (webview/exportHost.ts). The escaping is the editor's because the code is.
//
// The page's Content-Security-Policy allows no network at all (`default-src 'none'`, no
// connect-src), scripts only by the hashes of the two inline scripts, images and fonts only as
// data: URLs. Session text travels only as JSON in a data block, escaped so it cannot end it.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExportData } from '../../protocol/exportData';
import { inlineScript, inlineStyle, jsonScriptText } from '../inlineHtml';
import { english, type Translate } from '../l10n';

export interface ExportAssets {
  /** dist/webview/main.js and main.css: the session editor's webview. */
  mainJs: string;
  mainCss: string;
  /** dist/webview/exportHost.js: the static host. */
  hostJs: string;
  /** dist/codicons/codicon.css and codicon.ttf. */
  codiconCss: string;
  codiconFont: Buffer;
}

/** Reads the built assets from a `dist` folder (the CLI's and the extension's). */
export async function readExportAssets(distDir: string): Promise<ExportAssets> {
  const text = (...p: string[]): Promise<string> => readFile(join(distDir, ...p), 'utf8');
  return {
    mainJs: await text('webview', 'main.js'),
    mainCss: await text('webview', 'main.css'),
    hostJs: await text('webview', 'exportHost.js'),
    codiconCss: await text('codicons', 'codicon.css'),
    codiconFont: await readFile(join(distDir, 'codicons', 'codicon.ttf')),
  };
}


function sha256Base64(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

const escHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The workbench's theme variables the webview's CSS reads, for a page outside VS Code: light and
 * dark follow the browser (prefers-color-scheme), forced colours (high contrast) use system colours.
 */
const THEME_CSS = `
:root {
  color-scheme: light dark;
  --vscode-font-family: system-ui, -apple-system, "Segoe UI", Ubuntu, sans-serif;
  --vscode-font-size: 13px;
  --vscode-editor-font-family: ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace;
  --vscode-editor-font-size: 13px;
  --vscode-foreground: #3b3b3b; --vscode-descriptionForeground: #717171; --vscode-errorForeground: #c72e0f;
  --vscode-editor-background: #ffffff; --vscode-sideBar-background: #f8f8f8; --vscode-editorWidget-background: #f8f8f8;
  --vscode-widget-border: #e5e5e5; --vscode-panel-border: #e5e5e5; --vscode-focusBorder: #005fb8;
  --vscode-textLink-foreground: #005fb8; --vscode-textLink-activeForeground: #005fb8;
  --vscode-textCodeBlock-background: #f2f2f2; --vscode-textPreformat-foreground: #3b3b3b; --vscode-textPreformat-background: #0000001f;
  --vscode-textBlockQuote-border: #e5e5e5;
  --vscode-badge-background: #cccccc; --vscode-badge-foreground: #3b3b3b;
  --vscode-button-background: #005fb8; --vscode-button-foreground: #ffffff; --vscode-button-hoverBackground: #0258a8; --vscode-button-border: #0000001a;
  --vscode-button-secondaryBackground: #e5e5e5; --vscode-button-secondaryForeground: #3b3b3b; --vscode-button-secondaryHoverBackground: #cccccc;
  --vscode-list-hoverBackground: #f2f2f2; --vscode-list-activeSelectionBackground: #e8e8e8; --vscode-list-activeSelectionForeground: #000000;
  --vscode-list-inactiveSelectionBackground: #e4e6f1; --vscode-list-focusOutline: #005fb8;
  --vscode-editor-inactiveSelectionBackground: #e5ebf1; --vscode-editor-findMatchHighlightBackground: #ea5c0055;
  --vscode-inputValidation-errorBackground: #f2dede; --vscode-inputValidation-errorBorder: #be1100;
  --vscode-inputValidation-warningBackground: #f6f5d2; --vscode-inputValidation-infoBackground: #d6ecf2; --vscode-inputValidation-infoBorder: #007acc;
  --vscode-editorWarning-foreground: #bf8803; --vscode-editorInfo-foreground: #1a85ff; --vscode-editorInfo-background: transparent;
  --vscode-testing-iconPassed: #388a34; --vscode-gitDecoration-addedResourceForeground: #587c0c; --vscode-terminal-ansiCyan: #0598bc;
  --vscode-statusBarItem-prominentBackground: #00000080; --vscode-statusBarItem-prominentForeground: #ffffff;
  --vscode-charts-blue: #1a85ff; --vscode-charts-green: #388a34; --vscode-charts-orange: #d18616; --vscode-charts-purple: #652d90;
  --vscode-dropdown-background: #ffffff; --vscode-dropdown-foreground: #3b3b3b; --vscode-dropdown-border: #cecece;
  --vscode-input-background: #ffffff; --vscode-input-foreground: #3b3b3b; --vscode-input-border: #cecece; --vscode-input-placeholderForeground: #767676;
  --vscode-icon-foreground: #3b3b3b; --vscode-settings-dropdownListBorder: #cecece; --vscode-quickInput-background: #f8f8f8;
  --vscode-scrollbarSlider-background: #64646466; --vscode-scrollbarSlider-hoverBackground: #646464b3;
}
@media (prefers-color-scheme: dark) {
  :root {
    --vscode-foreground: #cccccc; --vscode-descriptionForeground: #9d9d9d; --vscode-errorForeground: #f85149;
    --vscode-editor-background: #1f1f1f; --vscode-sideBar-background: #181818; --vscode-editorWidget-background: #202020;
    --vscode-widget-border: #313131; --vscode-panel-border: #2b2b2b; --vscode-focusBorder: #0078d4;
    --vscode-textLink-foreground: #4daafc; --vscode-textLink-activeForeground: #4daafc;
    --vscode-textCodeBlock-background: #2b2b2b; --vscode-textPreformat-foreground: #d0d0d0; --vscode-textPreformat-background: #3c3c3c;
    --vscode-textBlockQuote-border: #616161;
    --vscode-badge-background: #616161; --vscode-badge-foreground: #f8f8f8;
    --vscode-button-background: #0078d4; --vscode-button-foreground: #ffffff; --vscode-button-hoverBackground: #026ec1; --vscode-button-border: #ffffff12;
    --vscode-button-secondaryBackground: #313131; --vscode-button-secondaryForeground: #cccccc; --vscode-button-secondaryHoverBackground: #3c3c3c;
    --vscode-list-hoverBackground: #2a2d2e; --vscode-list-activeSelectionBackground: #04395e; --vscode-list-activeSelectionForeground: #ffffff;
    --vscode-list-inactiveSelectionBackground: #37373d; --vscode-list-focusOutline: #0078d4;
    --vscode-editor-inactiveSelectionBackground: #3a3d41; --vscode-editor-findMatchHighlightBackground: #9e6a03;
    --vscode-inputValidation-errorBackground: #5a1d1d; --vscode-inputValidation-errorBorder: #be1100;
    --vscode-inputValidation-warningBackground: #352a05; --vscode-inputValidation-infoBackground: #063b49; --vscode-inputValidation-infoBorder: #007acc;
    --vscode-editorWarning-foreground: #cca700; --vscode-editorInfo-foreground: #3794ff;
    --vscode-testing-iconPassed: #73c991; --vscode-gitDecoration-addedResourceForeground: #81b88b; --vscode-terminal-ansiCyan: #11a8cd;
    --vscode-charts-blue: #3794ff; --vscode-charts-green: #89d185; --vscode-charts-orange: #d18616; --vscode-charts-purple: #b180d7;
    --vscode-dropdown-background: #313131; --vscode-dropdown-foreground: #cccccc; --vscode-dropdown-border: #3c3c3c;
    --vscode-input-background: #313131; --vscode-input-foreground: #cccccc; --vscode-input-border: #3c3c3c; --vscode-input-placeholderForeground: #989898;
    --vscode-icon-foreground: #cccccc; --vscode-settings-dropdownListBorder: #454545; --vscode-quickInput-background: #222222;
    --vscode-scrollbarSlider-background: #79797966; --vscode-scrollbarSlider-hoverBackground: #646464b3;
  }
}
@media (forced-colors: active) {
  :root { --vscode-contrastBorder: CanvasText; --vscode-contrastActiveBorder: Highlight; --vscode-focusBorder: Highlight; }
}
/* Raw JSONL and Migrate… need VS Code: an exported page has neither */
.sl-exported .sl-header-actions vscode-button:not(.sl-btn-diag) { display: none; }
html, body { margin: 0; height: 100%; background: var(--vscode-editor-background); color: var(--vscode-foreground);
  font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); }
`;

/** The page: the data, the webview's code and styles and the static host, nothing fetched. */
export function renderExportHtml(data: ExportData, assets: ExportAssets, opts: { lang?: string; l10nBundle?: Readonly<Record<string, string>>; l10nT?: Translate } = {}): string {
  const l10nT = opts.l10nT ?? english;
  const host = inlineScript(assets.hostJs);
  const main = inlineScript(assets.mainJs);
  const font = `data:font/ttf;base64,${assets.codiconFont.toString('base64')}`;
  const codiconCss = assets.codiconCss.replace(/url\((["']?)\.\/codicon\.ttf[^)"']*\1\)/g, `url("${font}")`);
  const csp = [
    "default-src 'none'",
    "img-src data:",
    "font-src data:",
    "style-src 'unsafe-inline' data:",
    `script-src 'sha256-${sha256Base64(host)}' 'sha256-${sha256Base64(main)}'`,
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
  const title = data.summary.title ?? data.summary.firstPrompt ?? data.summary.fileName;
  return `<!DOCTYPE html>
<html lang="${escHtml(opts.lang ?? 'en')}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="Session Loom">
<title>${escHtml(title)}</title>
<link rel="stylesheet" id="vscode-codicon-stylesheet" href="data:text/css;base64,${Buffer.from(codiconCss).toString('base64')}">
<style>${THEME_CSS}</style>
<style>${inlineStyle(assets.mainCss)}</style>
<script type="application/json" id="session-loom-export">${jsonScriptText(data)}</script>
${opts.l10nBundle ? `<script type="application/json" id="l10n-bundle">${jsonScriptText(opts.l10nBundle)}</script>\n` : ''}</head>
<body>
<div id="app" class="sl-app sl-exported" data-session-file="${escHtml(data.summary.fileName)}"><div class="sl-loading">${escHtml(l10nT('Loading session…'))}</div></div>
<script>${host}</script>
<script type="module">${main}</script>
</body>
</html>
`;
}
