// The codicons the webview's page carries (scripts/codicons.mjs): only the glyphs its sources
// name, and every one of those. Checked on the font's own character map, not on the CSS alone.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error an .mjs build script without types
import { codiconGlyphs, makeCodiconSubset, usedCodiconNames } from '../../scripts/codicons.mjs';

const ROOT = join(__dirname, '..', '..');

interface Subset {
  names: string[];
  glyphs: Map<string, number>;
  css: string;
  font: Buffer;
}

/** The code points a TrueType font maps to a glyph (its cmap's format 4 and 12 subtables). */
function mappedCodePoints(font: Buffer): Set<number> {
  const tables = font.readUInt16BE(4);
  let cmap = -1;
  for (let i = 0; i < tables; i++) if (font.toString('latin1', 12 + i * 16, 16 + i * 16) === 'cmap') cmap = font.readUInt32BE(12 + i * 16 + 8);
  assert.ok(cmap >= 0, 'the font has a cmap table');
  const out = new Set<number>();
  const subtables = font.readUInt16BE(cmap + 2);
  for (let i = 0; i < subtables; i++) {
    const at = cmap + font.readUInt32BE(cmap + 4 + i * 8 + 4);
    const format = font.readUInt16BE(at);
    if (format === 4) {
      const segs = font.readUInt16BE(at + 6) / 2;
      const ends = at + 14;
      const starts = ends + segs * 2 + 2;
      const deltas = starts + segs * 2;
      const offsets = deltas + segs * 2;
      for (let s = 0; s < segs; s++) {
        const end = font.readUInt16BE(ends + s * 2);
        const start = font.readUInt16BE(starts + s * 2);
        const delta = font.readUInt16BE(deltas + s * 2);
        const offset = font.readUInt16BE(offsets + s * 2);
        for (let c = start; c <= end && c !== 0xffff; c++) {
          const glyph = offset === 0 ? (c + delta) & 0xffff : font.readUInt16BE(offsets + s * 2 + offset + (c - start) * 2);
          if (glyph !== 0) out.add(c);
        }
      }
    } else if (format === 12) {
      const groups = font.readUInt32BE(at + 12);
      for (let g = 0; g < groups; g++) {
        const start = font.readUInt32BE(at + 16 + g * 12);
        const end = font.readUInt32BE(at + 20 + g * 12);
        for (let c = start; c <= end; c++) out.add(c);
      }
    }
  }
  return out;
}

describe('the webview carries only the codicons it names (scripts/codicons.mjs)', () => {
  it('every icon name the webview sources name has its glyph in the subset font and its rule in the CSS; no other glyph rule is kept', async () => {
    const s = (await makeCodiconSubset(ROOT)) as Subset;
    // names reached through tables and parameters in the sources (KIND_ICONS, ROLE_ICONS, chips, buttons)
    for (const n of ['account', 'hubot', 'output', 'terminal', 'fold', 'git-branch', 'error', 'warning', 'info', 'chevron-down', 'chevron-right', 'loading', 'lock', 'search'])
      assert.ok(s.names.includes(n), `${n} is among the names found`);
    const mapped = mappedCodePoints(s.font);
    for (const n of s.names) {
      assert.ok(mapped.has(s.glyphs.get(n)!), `the font maps ${n} (U+${s.glyphs.get(n)!.toString(16)})`);
      assert.match(s.css, new RegExp(`\\.codicon-${n}:before`), `the CSS draws ${n}`);
    }
    const kept = [...s.css.matchAll(/\.codicon-([a-z0-9-]+):before/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(kept)].sort(), [...s.names].sort());
    // the font face, the base rule and the modifiers stay
    assert.match(s.css, /@font-face[\s\S]*url\("\.\/codicon\.ttf/);
    assert.match(s.css, /\.codicon\[class\*='codicon-'\]/);
    assert.match(s.css, /\.codicon-loading\.codicon-modifier-spin/);
    assert.ok(s.font.length < 20_000, `the subset font is small (${s.font.length} bytes)`);
  });

  it('a name left out of the subset has no glyph in it (the check above can fail)', async () => {
    const all = (await makeCodiconSubset(ROOT)) as Subset;
    const without = (await makeCodiconSubset(ROOT, all.names.filter((n) => n !== 'hubot'))) as Subset;
    const mapped = mappedCodePoints(without.font);
    assert.equal(mapped.has(all.glyphs.get('hubot')!), false);
    assert.ok(mapped.has(all.glyphs.get('account')!));
    assert.doesNotMatch(without.css, /\.codicon-hubot:before/);
  });

  it('finds names in string literals and codicon- classes, and only names the codicons have', () => {
    const glyphs = codiconGlyphs(readFileSync(join(ROOT, 'node_modules/@vscode/codicons/dist/codicon.css'), 'utf8')) as Map<string, number>;
    assert.ok(glyphs.size > 500);
    const names = usedCodiconNames(join(ROOT, 'webview'), glyphs) as string[];
    assert.ok(names.every((n) => glyphs.has(n)));
    assert.ok(names.length < 120, `${names.length} names`);
  });
});
