// The webview side of the protocol: every message from the host is validated before use,
// requests get an id and a promise that settles with the (validated) result or the host's error.
import { HostToWebviewSchema, parseResult, WebviewStateSchema, type HostToWebview, type Method, type Params, type Result, type WebviewState, type WebviewToHost } from '../src/protocol/messages';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

// The page's first script acquired it (webviewHtml.ts: it can be acquired once); an exported page has none.
const api = (globalThis as { slVscode?: VsCodeApi }).slVscode ?? acquireVsCodeApi();
let nextId = 1;
const pending = new Map<number, { method: Method; resolve: (v: unknown) => void; reject: (e: Error) => void }>();
const listeners: ((m: Exclude<HostToWebview, { type: 'response' }>) => void)[] = [];
let answeredAt = 0;

/** When the last answer from the host arrived (performance.now()): splits a repaint's time into waiting and drawing. */
export function lastAnswerAt(): number {
  return answeredAt;
}

/** How many requests this page has made so far (the round trips a paint waited for, in the editor's log). */
export function requestCount(): number {
  return nextId - 1;
}

export function post(message: WebviewToHost): void {
  api.postMessage(message);
}

export function request<M extends Method>(method: M, params: Params<M>): Promise<Result<M>> {
  const id = nextId++;
  return new Promise<Result<M>>((resolve, reject) => {
    pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject });
    post({ type: 'request', id, method, params } as WebviewToHost);
  });
}

export function onHostMessage(listener: (m: Exclude<HostToWebview, { type: 'response' }>) => void): void {
  listeners.push(listener);
}

/** When the page did what (ms since its document began): the first paint's steps, for the editor's log. */
export const steps: Record<string, number> = {};
/** Records when `step` was first done. */
export function mark(step: string): void {
  steps[step] ??= Math.round(performance.now());
}

window.addEventListener('message', (event: MessageEvent) => {
  if ((event.data as { type?: unknown } | null)?.type === 'init') mark('init received');
  const parsed = HostToWebviewSchema.safeParse(event.data);
  if (!parsed.success) {
    console.error('[session-loom] invalid message from the host', parsed.error.message);
    return;
  }
  const msg = parsed.data;
  if (msg.type === 'response') {
    answeredAt = performance.now();
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (!msg.ok) {
      p.reject(new Error(msg.error));
      return;
    }
    try {
      p.resolve(parseResult(p.method, msg.result));
    } catch (err) {
      p.reject(new Error(`invalid ${p.method} result: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`));
    }
    return;
  }
  for (const l of listeners) l(msg);
});

/** Whether VS Code kept this page's own state (it was hidden and shown, or the window reloaded). */
export function hasOwnState(): boolean {
  const s = api.getState();
  return !!s && typeof s === 'object';
}

/**
 * The page's saved state: its own (VS Code keeps it while the editor is open, hidden or not), else
 * the one the host kept from the file's last editor and put in the page (webviewHtml.ts), checked.
 */
export function loadState(): WebviewState | null {
  const s = api.getState();
  if (s && typeof s === 'object') return s as WebviewState;
  const kept = document.getElementById('sl-state')?.textContent;
  if (!kept) return null;
  try {
    const parsed = WebviewStateSchema.safeParse(JSON.parse(kept));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function saveState(state: WebviewState): void {
  api.setState(state);
}
