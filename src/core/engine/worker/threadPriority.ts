// The model worker yields the CPU to VS Code's own threads (issue 11): indexing a 1M-entry session
// keeps a core busy for seconds, and on a machine with few cores the webview that is about to
// paint, the renderer and the extension host then wait for it. Linux schedules each thread on its
// own, so the worker lowers its own thread's priority (its id is /proc/thread-self). Elsewhere
// (or if the kernel refuses) nothing changes: the work is the same, only its share of the CPU.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** A nice value for background work: below VS Code's threads, well above idle. */
export const WORKER_NICE = 10;

/** Lowers the calling thread's priority; returns the thread id it applied to, or null. */
export function lowerThisThreadPriority(nice = WORKER_NICE): number | null {
  if (process.platform !== 'linux') return null;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return null;
    setPriority(tid, nice);
    return tid;
  } catch {
    return null;
  }
}
