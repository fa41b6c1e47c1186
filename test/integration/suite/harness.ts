// Client of the harness API (test/integration/harness.mjs): lets tests inside the extension
// host ask the Playwright side for screenshots and UI actions. Only run.mjs provides it;
// under @vscode/test-electron SESSION_LOOM_HARNESS_PORT is unset and harnessAvailable() is false.

import * as http from 'node:http';

const port = process.env.SESSION_LOOM_HARNESS_PORT;

export function harnessAvailable(): boolean {
  return port !== undefined && port !== '';
}

/**
 * One POST to the harness. Through node:http rather than fetch: the tests run inside the extension
 * host whose event loop the perf tests measure, and fetch (undici) builds web streams per call —
 * in a host CPU profile of the 100k open, the test's own calls were most of the JavaScript there.
 */
function call<T>(route: string, body: object): Promise<T> {
  if (!harnessAvailable()) return Promise.reject(new Error('No UI harness: run the suite with test/integration/run.mjs'));
  const payload = JSON.stringify(body);
  return new Promise<T>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: Number(port), path: route, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          try {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as T & { error?: string };
            if ((res.statusCode ?? 500) >= 300) reject(new Error(`harness ${route}: ${answer.error ?? res.statusCode}`));
            else resolve(answer);
          } catch (err) {
            reject(new Error(`harness ${route}: unreadable answer (${String(err)})`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Saves a screenshot of the whole workbench to test-results/screenshots/<name>.png; resolves to its path. */
export async function screenshot(name: string): Promise<string> {
  return (await call<{ path: string }>('/screenshot', { name })).path;
}

/** innerText of the first element matching a Playwright selector in any frame (webviews are frames). */
export async function frameText(selector: string, options: { urlContains?: string; timeoutMs?: number } = {}): Promise<string> {
  return (await call<{ text: string }>('/frame-text', { selector, ...options })).text;
}

/**
 * Evaluates `body`, a function body over `el` (the first match of `selector` in any frame) and
 * `arg`, in that frame; resolves to its JSON result.
 */
export async function frameEval<T>(selector: string, body: string, arg: unknown = null, options: { frameUrlContains?: string; timeoutMs?: number } = {}): Promise<T> {
  return (await call<{ value: T }>('/frame-eval', { selector, body, arg, ...options })).value;
}

export interface ClickOptions {
  frameUrlContains?: string;
  timeoutMs?: number;
  /** "right" opens a context menu. */
  button?: 'left' | 'right' | 'middle';
  /** 2: a double click. */
  count?: 1 | 2;
  /** Where to click, relative to the element's top left (default: its centre). */
  position?: { x: number; y: number };
}

export async function click(selector: string, options: ClickOptions = {}): Promise<void> {
  await call('/click', { selector, ...options });
}

/** Presses keys in order ("Control+Shift+P", "Escape", …), then types `text` if given. */
export async function keys(keysToPress: string | string[], text?: string): Promise<void> {
  await call('/keys', { keys: keysToPress, text });
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where an element is on the page, in pixels (the first match in any frame). */
export async function box(selector: string, options: { frameUrlContains?: string; timeoutMs?: number } = {}): Promise<Box> {
  return call<Box>('/box', { selector, ...options });
}

/** Drags the mouse from one page point to another (a sash, a splitter). */
export async function drag(from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  await call('/drag', { from, to });
}

/** Moves the mouse, e.g. away from a control so no hover or tooltip shows in a screenshot. */
export async function moveMouse(x: number, y: number): Promise<void> {
  await call('/move', { x, y });
}

const MENU = '.context-view .monaco-menu';

/** Whether a context menu of the workbench is open. */
async function menuOpen(): Promise<boolean> {
  return frameEval<boolean>('.monaco-workbench', `return el.ownerDocument.querySelector(${JSON.stringify(MENU)}) !== null`);
}

/**
 * Chooses `label` in the open context menu, as a user's click does. A monaco menu ignores a click
 * that comes right after it opened (the mouse-up of the right click that opened it): the menu is
 * let settle first, and a click it still swallowed (seen in CI: the menu stayed open with the item
 * highlighted) is made again.
 */
export async function chooseMenuItem(label: string): Promise<void> {
  const item = `${MENU} .action-item:has-text(${JSON.stringify(label)})`;
  await frameText(item, { timeoutMs: 10_000 });
  for (let attempt = 1; ; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 400));
    await click(item);
    const deadline = Date.now() + 1500;
    while (Date.now() < deadline && (await menuOpen())) await new Promise((resolve) => setTimeout(resolve, 100));
    if (!(await menuOpen())) return;
    if (attempt === 3) throw new Error(`the context menu stayed open after three clicks on "${label}"`);
  }
}

/** Starts a CPU profile of the page's renderer thread (the workbench and its in-process webviews). */
export async function profileStart(intervalUs = 100): Promise<void> {
  await call('/profile-start', { intervalUs });
}

/** Stops it and writes test-results/profiles/<name>.cpuprofile; its path. */
export async function profileStop(name: string): Promise<string> {
  return (await call<{ path: string }>('/profile-stop', { name })).path;
}
