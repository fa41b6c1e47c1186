// The harness side of UI testing. Mocha runs inside the extension host and cannot reach
// the browser that shows the workbench, so run.mjs serves this small HTTP API on
// 127.0.0.1 and passes its port to the server (and so to the extension host) as
// SESSION_LOOM_HARNESS_PORT. Tests call it through test/integration/suite/harness.ts and
// await the answer, so a screenshot is on disk when the call returns.
//
// Every request is POST with a JSON body; every answer is JSON ({ error } with status 500
// when the action failed). Selectors are Playwright selectors (CSS, `text=…`, `:has-text()`).
//
//   GET  /ping                                          → { ok: true }
//   POST /screenshot { name }                           → { path }   test-results/screenshots/<name>.png
//   POST /frame-text { selector, urlContains?, timeoutMs? }
//        waits until an element matching `selector` exists in any frame (webviews are nested
//        iframes; `urlContains` narrows the frames by URL) → { text, frameUrl }  (innerText)
//   POST /click { selector, frameUrlContains?, timeoutMs?, button?, count?, position? } → { frameUrl }
//        button "right" opens a context menu, count 2 is a double click, position {x, y} is
//        relative to the element's top left (default: its centre)
//   POST /keys { keys: string | string[] }              each one through page.keyboard.press,
//        e.g. "Control+Shift+P", "Escape"; or { text } typed with page.keyboard.type → { ok: true }
//   POST /box { selector, frameUrlContains?, timeoutMs? } → { x, y, width, height }  (page pixels;
//        for elements of the workbench itself, e.g. ".part.sidebar")
//   POST /drag { from: {x, y}, to: {x, y} }             mouse down at `from`, move in steps, up at
//        `to` (e.g. a sash between two parts) → { ok: true }
//   POST /move { x, y }                                 moves the mouse (off a hover) → { ok: true }
//   POST /profile-start { intervalUs? }, POST /profile-stop { name } → { path }
//        a CPU profile of the page's renderer thread (the workbench and the webviews it runs in
//        process), written as test-results/profiles/<name>.cpuprofile: where a webview's first
//        paint goes (build with SESSION_LOOM_WEBVIEW_UNMINIFIED=1 for readable names)
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const DEFAULT_TIMEOUT_MS = 10_000;

/** First locator matching `selector` in a frame whose URL contains `urlContains`, waiting up to `timeoutMs`. */
export async function findInFrames(page, selector, urlContains, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      if (urlContains && !frame.url().includes(urlContains)) continue;
      try {
        const loc = frame.locator(selector).first();
        if ((await loc.count()) > 0) return { frame, loc };
      } catch {
        // a frame can detach while we look; try the others
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`No element matches ${JSON.stringify(selector)}${urlContains ? ` in a frame whose URL contains ${JSON.stringify(urlContains)}` : ''} after ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function safeName(name) {
  const base = String(name ?? '').replace(/\.png$/i, '');
  if (!/^[\w.-]+$/.test(base)) throw new Error(`Screenshot name must be [A-Za-z0-9_.-]+, got ${JSON.stringify(name)}`);
  return base;
}

/** Routes of the API; each gets the parsed body and returns the JSON answer. */
function routes(page, screenshotsDir, log) {
  let profiler;
  return {
    'GET /ping': async () => ({ ok: true }),
    'POST /screenshot': async ({ name }) => {
      const file = path.join(screenshotsDir, `${safeName(name)}.png`);
      mkdirSync(screenshotsDir, { recursive: true });
      // Two animation frames first: the picture is of what the page shows now (a style change made
      // just before, a theme, is painted), and a page that paints no frame is said in the log.
      const t0 = Date.now();
      const painted = await Promise.race([
        page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))),
        new Promise((resolve) => setTimeout(() => resolve(false), 5000)),
      ]).catch(() => false);
      if (!painted) log(`[harness] ${name}: the page painted no frame in 5 s before its screenshot`);
      else if (Date.now() - t0 > 500) log(`[harness] ${name}: the page's next frame came ${Date.now() - t0} ms after the screenshot was asked for`);
      await page.screenshot({ path: file });
      log(`[harness] screenshot ${path.relative(process.cwd(), file)}`);
      return { path: file };
    },
    'POST /frame-text': async ({ selector, urlContains, timeoutMs = DEFAULT_TIMEOUT_MS }) => {
      const { frame, loc } = await findInFrames(page, selector, urlContains, timeoutMs);
      return { text: await loc.innerText(), frameUrl: frame.url() };
    },
    'POST /click': async ({ selector, frameUrlContains, timeoutMs = DEFAULT_TIMEOUT_MS, button = 'left', count = 1, position }) => {
      const { frame, loc } = await findInFrames(page, selector, frameUrlContains, timeoutMs);
      const opts = { timeout: timeoutMs, button, ...(position ? { position } : {}) };
      if (count === 2) await loc.dblclick(opts);
      else await loc.click(opts);
      return { frameUrl: frame.url() };
    },
    // Runs `body` (a function body over `el` and `arg`) on the first match in any frame and
    // returns its JSON-serialisable result: computed styles, focus, sizes a test asserts on.
    'POST /frame-eval': async ({ selector, body, arg = null, frameUrlContains, timeoutMs = DEFAULT_TIMEOUT_MS }) => {
      const { loc } = await findInFrames(page, selector, frameUrlContains, timeoutMs);
      const fn = new Function('el', 'arg', String(body));
      return { value: await loc.evaluate(fn, arg, { timeout: timeoutMs }) };
    },
    'POST /box': async ({ selector, frameUrlContains, timeoutMs = DEFAULT_TIMEOUT_MS }) => {
      const { loc } = await findInFrames(page, selector, frameUrlContains, timeoutMs);
      const box = await loc.boundingBox({ timeout: timeoutMs });
      if (!box) throw new Error(`${JSON.stringify(selector)} is not visible`);
      return box;
    },
    'POST /drag': async ({ from, to }) => {
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(to.x, to.y, { steps: 12 });
      await page.mouse.up();
      return { ok: true };
    },
    'POST /move': async ({ x, y }) => {
      await page.mouse.move(x, y);
      return { ok: true };
    },
    // A CPU profile of the page's renderer thread (the workbench and the webviews it runs in
    // process), for finding where a webview's time goes: start, then stop with a name →
    // test-results/profiles/<name>.cpuprofile.
    'POST /profile-start': async ({ intervalUs = 100 }) => {
      profiler = await page.context().newCDPSession(page);
      await profiler.send('Profiler.enable');
      await profiler.send('Profiler.setSamplingInterval', { interval: intervalUs });
      await profiler.send('Profiler.start');
      return { ok: true };
    },
    'POST /profile-stop': async ({ name }) => {
      if (!profiler) throw new Error('no profile was started');
      const { profile } = await profiler.send('Profiler.stop');
      await profiler.detach();
      profiler = undefined;
      const dir = path.join(screenshotsDir, '..', 'profiles');
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${safeName(name)}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return { path: file };
    },
    'POST /keys': async ({ keys, text }) => {
      for (const k of keys === undefined ? [] : Array.isArray(keys) ? keys : [keys]) await page.keyboard.press(k);
      if (text !== undefined) await page.keyboard.type(String(text));
      return { ok: true };
    },
  };
}

/** Serves the API for `page` on a free port of 127.0.0.1. */
export function startHarness(page, { screenshotsDir, log = console.log }) {
  const table = routes(page, screenshotsDir, log);
  const server = http.createServer(async (req, res) => {
    const route = table[`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`];
    const reply = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (!route) return reply(404, { error: `No route ${req.method} ${req.url}` });
    try {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      reply(200, await route(raw ? JSON.parse(raw) : {}));
    } catch (err) {
      reply(500, { error: err instanceof Error ? err.message : String(err) });
    }
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: server.address().port,
        close: () => new Promise((r) => {
          server.closeAllConnections?.();
          server.close(() => r());
        }),
      });
    });
  });
}
