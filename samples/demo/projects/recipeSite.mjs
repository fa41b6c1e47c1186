// The demo's second project, a small recipe website: a session where the user pastes a
// screenshot (kept in the blob store), and a session file damaged the ways real ones are — two
// records glued on one line and a last line cut off mid-write — that "Repair into New File…" fixes.
import { Raster } from '../png.mjs';
import { hexId, SessionBuilder } from '../sessionBuilder.mjs';

export const CWD = '/home/dev/projects/recipe-site';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A browser window with the recipe site in dark mode, its toggle knob stuck on the wrong side. */
function pageScreenshot() {
  const r = new Raster(400, 240, '#202124');
  r.rect(0, 0, 400, 26, '#35363a').rect(10, 9, 8, 8, '#ee675c').rect(24, 9, 8, 8, '#fcc934').rect(38, 9, 8, 8, '#5bb974').rect(60, 6, 280, 14, '#202124');
  r.rect(0, 26, 400, 34, '#2d2e31').text(16, 41, [46, 30], '#e8eaed', 5);
  // the toggle: track dark, knob still on the "light" side
  r.rect(330, 36, 44, 16, '#5f6368').rect(332, 38, 12, 12, '#fdd663');
  for (let i = 0; i < 3; i++) {
    const x = 16 + i * 128;
    r.rect(x, 76, 112, 148, '#2d2e31').rect(x, 76, 112, 64, ['#7f4f24', '#5b8e3e', '#b5533c'][i]);
    r.text(x + 8, 152, [50, 30], '#e8eaed', 5).text(x + 8, 166, [30, 40, 16], '#9aa0a6').text(x + 8, 178, [60, 20], '#9aa0a6');
  }
  return r.png();
}

function darkMode(ctx) {
  const s = new SessionBuilder({ id: hexId('demo:recipes:dark', 16), cwd: CWD, startMs: ctx.now - 3.5 * HOUR });
  s.modelChange('anthropic/claude-sonnet-4-5');
  const shot = ctx.blob(pageScreenshot());
  s.user([
    { type: 'text', text: 'The dark mode toggle looks wrong in Safari: the knob stays on the light side. Screenshot attached.' },
    { type: 'image', mimeType: 'image/png', data: shot },
  ]);
  s.tool('read', { path: 'src/components/ThemeToggle.css' }, '.toggle[aria-checked="true"] .knob {\n  inset-inline-start: auto;\n  inset-inline-end: 2px;\n}\n');
  s.say('Safari before 15.4 ignores `inset-inline-*` inside a transition, so the knob keeps its start position. A transform works everywhere and animates better.');
  s.tool('edit', { path: 'src/components/ThemeToggle.css', oldText: 'inset-inline-start: auto;\n  inset-inline-end: 2px;', newText: 'transform: translateX(24px);' }, 'Applied 1 edit to src/components/ThemeToggle.css');
  s.bash('npx playwright test theme-toggle --project=webkit', 'Running 2 tests using 1 worker\n  ✓  1 [webkit] › theme-toggle.spec.ts:4:1 › toggles to dark (812ms)\n  ✓  2 [webkit] › theme-toggle.spec.ts:15:1 › remembers the choice (604ms)\n\n  2 passed (3.1s)');
  s.say('Fixed, and the WebKit run of the toggle tests passes.');
  ctx.session(s, { mtimeMs: s.time });
}

/**
 * A session the agent was writing when the machine went down: line 6 holds two records glued
 * together (a lost newline) and the last line stops mid-record. Shown read-only with its
 * diagnostics; "Repair into New File…" writes a clean copy beside it.
 */
function csvImport(ctx) {
  const s = new SessionBuilder({ id: hexId('demo:recipes:csv', 16), cwd: CWD, startMs: ctx.now - 4 * DAY });
  s.user('Import the recipes in `data/recipes.csv` into the site: one Markdown file per recipe under `content/recipes/`.');
  s.tool('read', { path: 'data/recipes.csv' }, 'title,servings,minutes,ingredients\nShakshuka,2,25,"eggs;tomatoes;peppers;cumin"\nLentil soup,4,40,"red lentils;carrot;onion;lemon"\n… (212 rows)');
  s.tool('write', { path: 'scripts/import-csv.ts', content: '…' }, 'Wrote scripts/import-csv.ts (57 lines).', { text: 'A small script with a real CSV parser (quoted fields contain commas).' });
  s.tool('bash', { command: 'npx tsx scripts/import-csv.ts data/recipes.csv' }, 'Wrote 212 recipes to content/recipes/ (3 skipped: no title).');
  s.say('212 recipes imported; 3 rows without a title were skipped and are listed in `import-report.txt`.');
  const lines = s.jsonl().trimEnd().split('\n');
  // A lost newline glues the 6th line to the 7th; the last record is cut off mid-write.
  lines.splice(5, 2, lines[5] + lines[6]);
  const torn = JSON.stringify({ type: 'message', id: hexId('demo:recipes:csv:torn', 8), parentId: s.leaf, timestamp: new Date(s.time + 30_000).toISOString(), message: { role: 'user', content: [{ type: 'text', text: 'Now generate an index page sorted by cooking time' }] } });
  ctx.file(CWD, s.fileName(), lines.join('\n') + '\n' + torn.slice(0, 97), { mtimeMs: s.time + 30_000 });
}

export const recipeSite = {
  cwd: CWD,
  write(ctx) {
    darkMode(ctx);
    csvImport(ctx);
  },
};
