// The codicons the webview draws, and only those: dist/codicons/codicon.css and codicon.ttf, made
// from @vscode/codicons at build time (esbuild.mjs). The editor's page and an exported page carry
// the font inline (a data URL: they fetch nothing, webviewHtml.ts says why); the whole font is
// 126 KB of TrueType, 168 KB as base64, and it cost the editor's first row 70–90 ms in the real
// VS Code (VS Code's webview host reads the page's HTML before its document begins, and the page
// decodes the font before the first row with an icon is drawn). The subset holds the glyphs of
// the icon names the webview's sources name (every string literal, and every `codicon-NAME`
// class, that is a codicon's name: a name reached through a table or a parameter is still a
// literal somewhere in webview/) — a few KB. subset-font (harfbuzz's hb-subset, as WASM) cuts it.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import subsetFont from 'subset-font';

const GLYPH_RULE = /^\.codicon-([a-z0-9-]+):before\s*\{\s*content:\s*"\\([0-9a-f]+)"\s*\}\s*$/;

/** The codicon names and their code points, from the full codicon.css (one `:before` rule a line). */
export function codiconGlyphs(css) {
  const glyphs = new Map();
  for (const line of css.split('\n')) {
    const m = GLYPH_RULE.exec(line.trim());
    if (m) glyphs.set(m[1], parseInt(m[2], 16));
  }
  return glyphs;
}

/** Every codicon name the webview's sources name (`dir`: webview/, read recursively). */
export function usedCodiconNames(dir, glyphs) {
  const names = new Set();
  const visit = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) visit(p);
      else if (/\.(ts|css)$/.test(e.name)) {
        const text = readFileSync(p, 'utf8');
        for (const m of text.matchAll(/(['"`])([a-z0-9-]+)\1/g)) if (glyphs.has(m[2])) names.add(m[2]);
        for (const m of text.matchAll(/codicon-([a-z0-9-]+)/g)) if (glyphs.has(m[1])) names.add(m[1]);
      }
    }
  };
  visit(dir);
  return [...names].sort();
}

/** The subset's codicon.css: the full one's rules but the glyph rules of names not used. */
export function subsetCss(css, names) {
  const keep = new Set(names);
  return css
    .split('\n')
    .filter((line) => {
      const m = GLYPH_RULE.exec(line.trim());
      return !m || keep.has(m[1]);
    })
    .join('\n');
}

/**
 * The subset of the package's codicons for `names` (default: those the webview's sources name):
 * codicon.css without the other glyph rules, and codicon.ttf with only their glyphs.
 */
export async function makeCodiconSubset(root, names) {
  const from = join(root, 'node_modules/@vscode/codicons/dist');
  const css = readFileSync(join(from, 'codicon.css'), 'utf8');
  const glyphs = codiconGlyphs(css);
  const used = names ?? usedCodiconNames(join(root, 'webview'), glyphs);
  const text = used.map((n) => String.fromCodePoint(glyphs.get(n))).join('');
  const font = await subsetFont(readFileSync(join(from, 'codicon.ttf')), text, { targetFormat: 'truetype' });
  return { names: used, glyphs, css: subsetCss(css, used), font };
}

/** Writes dist/codicons/codicon.css and codicon.ttf: the glyphs the webview uses. */
export async function writeCodiconSubset(root) {
  const { css, font } = await makeCodiconSubset(root);
  const to = join(root, 'dist/codicons');
  mkdirSync(to, { recursive: true });
  writeFileSync(join(to, 'codicon.css'), css);
  writeFileSync(join(to, 'codicon.ttf'), font);
}
