// A small request/response channel over a worker_threads port, so the work of reading and
// indexing a session runs off the extension host's thread (issue 11: the host's event loop must
// never stall) while the CLI and the tests run the very same handlers in-process.
//
// Every request carries an id and gets exactly one answer (a result or an error), so a failed
// call rejects instead of hanging. A caller's AbortSignal sends a cancel message; the handler
// sees it as its own signal (checked between chunks of work). Typed arrays in a result can be
// moved instead of copied (`transfer`), which is what keeps a 1M-entry index from being cloned.
import type { MessagePort, Worker } from 'node:worker_threads';

/** What a handler may return: a value, or a value plus the buffers to move with it. */
export interface Transferable<T> {
  readonly [TRANSFER]: true;
  value: T;
  buffers: ArrayBuffer[];
}

const TRANSFER = Symbol('transfer');

/** Marks `value` to be posted with `buffers` moved (not copied) to the other side. */
export function transfer<T>(value: T, buffers: ArrayBuffer[]): Transferable<T> {
  return { [TRANSFER]: true, value, buffers };
}

function isTransferable(x: unknown): x is Transferable<unknown> {
  return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[TRANSFER] === true;
}

export type Handler = (params: unknown, signal: AbortSignal) => Promise<unknown>;
export type Handlers = Record<string, Handler>;

type Port = Pick<MessagePort, 'postMessage' | 'on' | 'off'>;

interface CallMessage {
  kind: 'call';
  id: number;
  method: string;
  params: unknown;
}
interface CancelMessage {
  kind: 'cancel';
  id: number;
}
interface ReplyMessage {
  kind: 'reply';
  id: number;
  ok: boolean;
  result?: unknown;
  error?: { message: string; name: string; code?: string };
}

/** The error a cancelled call rejects with (and a handler throws when its signal fires). */
export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

/** Serves `handlers` on a port (a worker's parentPort). Returns a function that stops serving. */
export function serve(port: Port, handlers: Handlers): () => void {
  const running = new Map<number, AbortController>();
  const onMessage = (msg: CallMessage | CancelMessage): void => {
    if (msg.kind === 'cancel') {
      running.get(msg.id)?.abort();
      return;
    }
    const handler = handlers[msg.method];
    const ac = new AbortController();
    running.set(msg.id, ac);
    const reply = (r: Omit<ReplyMessage, 'kind' | 'id'>, buffers: ArrayBuffer[] = []): void => {
      running.delete(msg.id);
      port.postMessage({ kind: 'reply', id: msg.id, ...r } satisfies ReplyMessage, buffers);
    };
    if (!handler) {
      reply({ ok: false, error: { name: 'Error', message: `unknown method ${msg.method}` } });
      return;
    }
    handler(msg.params, ac.signal).then(
      (out) => (isTransferable(out) ? reply({ ok: true, result: out.value }, out.buffers) : reply({ ok: true, result: out })),
      (e: unknown) => {
        const err = e instanceof Error ? e : new Error(String(e));
        reply({ ok: false, error: { name: err.name, message: err.message, ...((err as NodeJS.ErrnoException).code ? { code: (err as NodeJS.ErrnoException).code } : {}) } });
      },
    );
  };
  port.on('message', onMessage);
  return () => port.off('message', onMessage);
}

/** Calls handlers served on the other side of a port. */
export class RpcClient {
  #next = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly #onMessage = (msg: ReplyMessage): void => {
    const p = this.#pending.get(msg.id);
    if (!p) return;
    this.#pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else {
      const e = msg.error!.name === 'CancelledError' ? new CancelledError() : Object.assign(new Error(msg.error!.message), { name: msg.error!.name }, msg.error!.code ? { code: msg.error!.code } : {});
      p.reject(e);
    }
  };

  constructor(private readonly port: Port | Worker) {
    port.on('message', this.#onMessage);
  }

  call<T>(method: string, params: unknown, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(new CancelledError());
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => this.port.postMessage({ kind: 'cancel', id } satisfies CancelMessage);
      this.#pending.set(id, {
        resolve: (v) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(v as T);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.port.postMessage({ kind: 'call', id, method, params } satisfies CallMessage);
    });
  }

  /** Rejects every call still waiting (the worker died or was terminated). */
  failAll(error: Error): void {
    for (const p of this.#pending.values()) p.reject(error);
    this.#pending.clear();
  }

  close(): void {
    this.port.off('message', this.#onMessage);
  }
}

/** Throws CancelledError when the signal fired: handlers call it between chunks of work. */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError();
}
