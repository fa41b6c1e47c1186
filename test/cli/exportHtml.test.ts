// `session-loom export --format html` opened in Chromium (issue 13): the page is the session
// editor's own webview over a static host. It shows, for a chosen leaf, as many messages as
// `session-loom context` prints; the XSS sample stays inert; and no request leaves the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { openSessionModel } from '../../src/core/engine/openModel';
import { REPO_ROOT, fixture } from '../helpers/fixtures';
import { assertCliBuilt, runCli } from '../helpers/runCli';

const CHROMIUM = process.env.SESSION_LOOM_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
let work: string;
let browser: Browser | undefined;

before(async () => {
  assertCliBuilt();
  work = mkdtempSync(join(tmpdir(), 'sl-html-'));
  if (existsSync(CHROMIUM)) {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  }
});
after(async () => {
  await browser?.close();
});

const cli = (...args: string[]) => runCli(args, { env: { ...process.env, HOME: work }, timeout: 180_000 });

function exportHtml(src: string, ...args: string[]): string {
  const dir = join(work, String(Math.random()).slice(2));
  mkdirSync(dir);
  const p = join(dir, basename(src));
  copyFileSync(src, p);
  const out = join(dir, 'export.html');
  const r = cli('export', p, '--format', 'html', '-o', out, ...args);
  assert.equal(r.code, 0, r.stderr);
  return out;
}

/** Opens the page, recording every request that is not the page itself. */
async function open(file: string, hash = ''): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const context = await browser!.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  const self = pathToFileURL(file).href;
  page.on('request', (r) => {
    if (r.url().split('#')[0] !== self) requests.push(r.url().slice(0, 120));
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(self + hash);
  await page.waitForSelector('#app[data-state="ready"] [data-message-count]', { timeout: 60_000 });
  return { page, requests, errors };
}

test('the exported page shows the message count `session-loom context` prints, at a #leaf= deep link too, with no request made', { timeout: 300_000 }, async (t) => {
  if (!browser) return t.skip(`no Chromium at ${CHROMIUM}`);
  const src = fixture('upstream-full', 'pi-before-compaction.jsonl');
  const out = exportHtml(src);
  const html = readFileSync(out, 'utf8');
  assert.doesNotMatch(html, /<(script|link|img)[^>]+(src|href)="(https?:)?\/\//i, 'nothing is loaded from elsewhere');
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/);

  const { page, requests, errors } = await open(out);
  const def = JSON.parse(cli('context', src).stdout) as { messages: unknown[]; leafId: string };
  assert.equal(await page.getAttribute('[data-message-count]', 'data-message-count'), String(def.messages.length));
  // The context chart: the exported page answers the editor's getChart from its own data, with the model's points.
  const model = await openSessionModel(src);
  const chart = await model.chart(def.leafId);
  model.dispose();
  assert.ok(chart.points.length > 10, `${chart.points.length} points`);
  assert.equal(await page.getAttribute('.sl-chart', 'data-points', { timeout: 30_000 }), String(chart.points.length));
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, 'export-html-default-leaf.png') });

  // an entry three quarters down the path: a deep link, and then a click on its row in the tree
  const tree = JSON.parse(cli('tree', src, '--json').stdout) as { roots: { entries: { id: string; type: string }[] }[] };
  const line = tree.roots[0]!.entries.filter((e) => e.type === 'message');
  const chosen = line[Math.floor(line.length * 0.3)]!.id;
  const atChosen = JSON.parse(cli('context', src, '--leaf', chosen).stdout) as { messages: unknown[] };
  assert.notEqual(atChosen.messages.length, def.messages.length);
  const linked = await open(out, `#leaf=${chosen}`);
  await linked.page.waitForSelector(`[data-message-count][data-leaf-id="${chosen}"]`, { timeout: 30_000 });
  assert.equal(await linked.page.getAttribute('[data-message-count]', 'data-message-count'), String(atChosen.messages.length));
  // A link is a jump (issue 25): the linked entry's message is on screen, flashed.
  await linked.page.waitForSelector(`.sl-msg[data-jumped][data-entry-id="${chosen}"]`, { timeout: 30_000 });
  const inView = await linked.page.evaluate(`(() => { const r = document.querySelector('.sl-msg[data-jumped]').getBoundingClientRect(); const l = document.querySelector('.sl-messages').getBoundingClientRect(); return r.top < l.bottom && r.bottom > l.top; })()`);
  assert.ok(inView, 'the linked message is in view');
  await linked.page.screenshot({ path: join(SCREENSHOTS, 'export-html-deep-link.png') });

  // clicking the default leaf's row selects it and the address follows (#leaf=…)
  await linked.page.click(`.sl-tree-row[data-entry-id="${def.leafId}"]`, { timeout: 30_000 }).catch(async () => {
    // the row may be scrolled away in a long list: select it through the address instead
    await linked.page.evaluate(`location.hash = ${JSON.stringify(`#leaf=${def.leafId}`)}`);
  });
  await linked.page.waitForSelector(`[data-message-count][data-leaf-id="${def.leafId}"]`, { timeout: 30_000 });
  assert.equal(await linked.page.getAttribute('[data-message-count]', 'data-message-count'), String(def.messages.length));

  assert.deepEqual(requests, [], 'no network request');
  assert.deepEqual(linked.requests, [], 'no network request');
  assert.deepEqual([...errors, ...linked.errors], []);
});

test('the XSS sample exports inert: no script runs, no data-xss attribute, no request', { timeout: 180_000 }, async (t) => {
  if (!browser) return t.skip(`no Chromium at ${CHROMIUM}`);
  const src = join(REPO_ROOT, 'samples', 'sessions', '--demo-xss--', '2026-03-02T10-00-00-000Z_5d1e0c0ffee0dead.jsonl');
  const out = exportHtml(src);
  const { page, requests } = await open(out);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const ctx = JSON.parse(cli('context', src).stdout) as { messages: unknown[] };
  assert.equal(await page.getAttribute('[data-message-count]', 'data-message-count'), String(ctx.messages.length));
  // open every fold (thinking, tool calls, summaries) so every renderer has run
  await page.evaluate(`for (const d of document.querySelectorAll('details')) d.open = true;`);
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(`document.body.getAttribute('data-xss')`), null);
  assert.equal(await page.evaluate(`document.documentElement.getAttribute('data-xss')`), null);
  const text = await page.evaluate<string>(`document.body.innerText`);
  assert.match(text, /<script>document\.body\.setAttribute/, 'the markup is shown as text');
  await page.screenshot({ path: join(SCREENSHOTS, 'export-html-xss.png') });
  assert.deepEqual(requests, []);
  assert.deepEqual(dialogs, []);
});

test('--branch exports the path to the leaf only', { timeout: 180_000 }, async () => {
  const src = fixture('upstream-full', 'pi-session.jsonl');
  const tree = JSON.parse(cli('tree', src, '--json').stdout) as { roots: { entries: { id: string }[] }[] };
  const leaf = tree.roots[0]!.entries[99]!.id;
  const out = exportHtml(src, '--branch', '--leaf', leaf);
  const m = /<script type="application\/json" id="session-loom-export">(.*?)<\/script>/s.exec(readFileSync(out, 'utf8'));
  const data = JSON.parse(m![1]!) as { scope: string; selectLeafId: string; trees: { all: { entryId: string }[] }; contexts: Record<string, unknown> };
  assert.equal(data.scope, 'branch');
  assert.equal(data.selectLeafId, leaf);
  assert.deepEqual(
    data.trees.all.map((r) => r.entryId),
    tree.roots[0]!.entries.slice(0, 100).map((e) => e.id),
    'the root → leaf path (this session is one line up to there)',
  );
  assert.equal(Object.keys(data.contexts).length, 100, 'a context for every entry of the path');
});

// Issue 22 §19: entry ids are data. One named `__proto__` (or `constructor`, `toString`) is an entry like any
// other in the export's tables, and the page opened at `#leaf=__proto__` becomes ready on that entry.
test('entries whose ids are __proto__, constructor and toString are exported and a #leaf=__proto__ link opens on that entry', { timeout: 120_000 }, async (t) => {
  const t0 = '2026-06-01T10:00:00.000Z';
  const lines = [
    { type: 'session', version: 3, id: 'proto-session', timestamp: t0, cwd: '/p' },
    { type: 'message', id: 'constructor', parentId: null, timestamp: t0, message: { role: 'user', content: 'first prompt', timestamp: 0 } },
    { type: 'message', id: '__proto__', parentId: 'constructor', timestamp: t0, message: { role: 'assistant', content: [{ type: 'text', text: 'an answer' }], timestamp: 0 } },
    { type: 'message', id: 'toString', parentId: '__proto__', timestamp: t0, message: { role: 'user', content: 'second prompt', timestamp: 0 } },
  ];
  const src = join(work, 'proto.jsonl');
  writeFileSync(src, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const out = exportHtml(src);
  const html = readFileSync(out, 'utf8');
  const block = /<script type="application\/json" id="session-loom-export">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(block, 'the data block');
  const data = JSON.parse(block[1]!) as { parents: Record<string, unknown>; contexts: Record<string, unknown> };
  for (const id of ['constructor', '__proto__', 'toString']) {
    assert.ok(Object.prototype.hasOwnProperty.call(data.parents, id), `parents has ${id}`);
    assert.ok(Object.prototype.hasOwnProperty.call(data.contexts, id), `contexts has ${id}`);
  }
  assert.equal(data.parents['toString'], '__proto__');
  if (!browser) return t.skip(`no Chromium at ${CHROMIUM}`);
  const { page, errors } = await open(out, '#leaf=__proto__');
  await page.waitForSelector('[data-message-count][data-leaf-id="__proto__"]', { timeout: 30_000 });
  assert.equal(await page.getAttribute('[data-message-count]', 'data-message-count'), '2');
  assert.deepEqual(errors, []);
  await page.context().close();
});
