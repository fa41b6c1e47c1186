// Client of the harness API (test/integration/harness.mjs): lets tests inside the extension
// host ask the Playwright side for screenshots and UI actions. Only run.mjs provides it;
// under @vscode/test-electron SESSION_LOOM_HARNESS_PORT is unset and harnessAvailable() is false.

const port = process.env.SESSION_LOOM_HARNESS_PORT;

export function harnessAvailable(): boolean {
  return port !== undefined && port !== '';
}

async function call<T>(route: string, body: object): Promise<T> {
  if (!harnessAvailable()) throw new Error('No UI harness: run the suite with test/integration/run.mjs');
  const res = await fetch(`http://127.0.0.1:${port}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as T & { error?: string };
  if (!res.ok) throw new Error(`harness ${route}: ${answer.error ?? res.status}`);
  return answer;
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
