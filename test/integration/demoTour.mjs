// What `npm run demo -- --check` and `npm run demo -- --screenshots` do in the browser: they use
// the demo as a new user would — open the Sessions view, click a session, switch a branch in the
// editor — with Playwright on the real workbench. The check fails when the demo opens on anything
// but its own sessions (the tests' hostile samples, an image missing from the blob store); the
// screenshots are the README's (docs/screenshots/).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { findInFrames } from './harness.mjs';

const MAIN_SESSION = 'Hourly forecast and a response cache';
const row = (text) => `.part.sidebar .monaco-list-row:has-text(${JSON.stringify(text)})`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The Session Loom view, open, listing the demo's projects. */
export async function openSessionsView(page) {
  // A click on the icon of the view already shown would close the side bar.
  if (await page.locator(row('weather-cli')).first().isVisible()) return;
  const icon = page.locator('.activitybar [aria-label^="Session Loom"]').first();
  await icon.waitFor({ timeout: 60_000 });
  await icon.click();
  await page.locator(row('weather-cli')).first().waitFor({ timeout: 30_000 });
}

/** The webview of the session editor (a frame of its own), once it shows a ready session. */
async function editorFrame(page, extra = '', timeoutMs = 30_000) {
  const { frame } = await findInFrames(page, `#app[data-state="ready"] .sl-messages${extra}`, undefined, timeoutMs);
  return frame;
}

/** Expands a row of the Sessions view by its twistie (a click on a session row opens it instead). */
async function expand(page, text) {
  const r = page.locator(`${row(text)}[aria-expanded="false"]`).first();
  if ((await r.count()) === 0) return;
  await r.locator('.monaco-tl-twistie').click();
  await page.locator(`${row(text)}[aria-expanded="true"]`).first().waitFor({ timeout: 10_000 });
}

/** Clicks the demo's main session in the Sessions view; resolves once its editor shows it. */
async function openMainSession(page) {
  await expand(page, 'weather-cli');
  // Let the rows settle: a row redrawn under the pointer (its message count arriving) loses the click.
  await sleep(1000);
  for (let attempt = 0; ; attempt++) {
    await page.locator(row(MAIN_SESSION)).first().click();
    try {
      return await editorFrame(page, '', attempt < 2 ? 8_000 : 30_000);
    } catch (err) {
      if (attempt === 2) throw err;
    }
  }
}

/** Fails unless the demo opens on its own world: its projects first, no test samples, images that load. */
export async function checkDemo(page) {
  await openSessionsView(page);
  const projects = await page.locator('.part.sidebar .monaco-list-row[aria-level="1"]').allInnerTexts();
  if (!projects[0]?.startsWith('weather-cli')) throw new Error(`the first project is not the demo's weather-cli: ${JSON.stringify(projects)}`);
  if (projects.some((p) => /onerror|<img|loom-it/.test(p))) throw new Error(`the demo lists test samples: ${JSON.stringify(projects)}`);
  const frame = await openMainSession(page);
  // The context at the default leaf ends with the terminal screenshot, kept in the blob store.
  await frame.locator('.sl-messages').press('End');
  await frame.locator('.sl-messages img.sl-img').first().waitFor({ timeout: 15_000 });
  if ((await frame.locator('.sl-image-missing').count()) > 0) throw new Error('an image of the demo is missing from its blob store');
}

/** Runs a command from the command palette by its title. */
async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 10_000 });
  await input.fill(`>${title}`);
  await page.locator(`.quick-input-list .monaco-list-row:has-text(${JSON.stringify(title)})`).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  await sleep(500);
}

async function closeAllEditors(page) {
  await runCommand(page, 'View: Close All Editors');
}

/** Sets the workspace's colour theme (the workbench applies it live) and lets it settle. */
async function theme(workspaceDir, name) {
  const settings = {
    'git.openRepositoryInParentFolders': 'never',
    'workbench.view.alwaysShowHeaderActions': true,
    'workbench.colorTheme': name,
  };
  writeFileSync(path.join(workspaceDir, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
  await sleep(2000);
}

/** The README's screenshots, from the demo: the Sessions view, the editor after a click, a branch switch. */
export async function takeReadmeScreenshots(page, world, outDir) {
  const shot = async (name) => {
    await page.mouse.move(1180, 16); // an empty stretch of the title bar: no hover, no tooltip
    await sleep(700);
    const file = path.join(outDir, `${name}.png`);
    await page.screenshot({ path: file });
    console.log(`[demo] ${path.relative(process.cwd(), file)}`);
  };
  await theme(world.workspaceDir, 'Default Dark Modern');
  await openSessionsView(page);
  await closeAllEditors(page); // the README the demo opens with

  // 1. The editor right after a click on a session row: a preview, the header, the tree, the context.
  let frame = await openMainSession(page);
  await shot('editor-dark');
  await theme(world.workspaceDir, 'Default Light Modern');
  frame = await editorFrame(page);
  await shot('editor-light');
  await theme(world.workspaceDir, 'Default Dark Modern');
  frame = await editorFrame(page);

  // 2. What the compaction cut, shown greyed on demand.
  await frame.locator('.sl-band').click();
  await frame.locator('.sl-msg.seg-cut:not(.sl-placeholder)').first().waitFor({ timeout: 10_000 });
  await shot('compaction-band');
  await frame.locator('.sl-band').click();

  // 3. A branch switch: the abandoned SQLite attempt, before and after a click on its first row.
  await frame.locator('.sl-tree-row[data-entry-id]:has-text("Try SQLite.")').first().scrollIntoViewIfNeeded();
  await shot('branch-before');
  await frame.locator('.sl-tree-row[data-entry-id]:has-text("Try SQLite.")').first().click();
  await frame.locator('.sl-tree-row.is-selected:has-text("Try SQLite.")').waitFor({ timeout: 10_000 });
  frame = await editorFrame(page);
  await shot('branch-after');

  // 4. The Sessions view, wide enough for its labels, with the session's branch tree open.
  const side = await page.locator('.part.sidebar').boundingBox();
  const edge = { x: Math.round(side.x + side.width), y: Math.round(side.y + side.height / 2) };
  await page.mouse.move(edge.x, edge.y);
  await page.mouse.down();
  await page.mouse.move(edge.x + 160, edge.y, { steps: 12 });
  await page.mouse.up();
  // Only the user's prompts: the whole session fits, fork and all.
  await runCommand(page, 'Session Loom: Filter Branch Trees…');
  await page.locator('.quick-input-list .monaco-list-row:has-text("User Messages Only")').first().click();
  await sleep(800);
  // A row redrawn while it expands (its message count arriving) can come back collapsed: go over them again.
  for (let pass = 0; pass < 3; pass++) {
    for (const text of [MAIN_SESSION, 'Add an `--hourly` flag', 'Every call hits the API', 'recipe-site']) await expand(page, text);
    await sleep(1000);
  }
  await page.locator(row('Import the recipes')).first().waitFor({ timeout: 10_000 });
  await shot('sessions-view');
}
