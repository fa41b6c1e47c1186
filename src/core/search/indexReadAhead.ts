// A bulk index update in two threads: a worker (indexReadWorker.ts) reads and parses the next
// session files while this thread writes the rows of the previous one into SQLite. The writer
// stays single (one connection, one transaction at a time); reading, parsing and picking each
// entry's searchable text — about half of a first build's CPU time on one thread — overlap
// with it. The worker runs at most READ_AHEAD_BYTES of files ahead, so a slow writer does not pile
// up a corpus of parsed rows in memory. Anything unexpected (no worker file, the worker dies, a
// file asked out of order) falls back to reading in this thread: the result is the same.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { readWholeFile, type WholeFileRows } from './indexRead';
import type { ReadReply, ReadRequest } from './indexReadWorker';

/** File bytes the worker may read ahead of the writer. */
const READ_AHEAD_BYTES = 48 * 1024 * 1024;

/** The read worker's bundle beside this bundle (dist/, bench/out/), or null (run from sources). */
export function defaultReadWorkerFile(): string | null {
  const p = join(__dirname, 'searchReadWorker.js');
  return existsSync(p) ? p : null;
}

type Outcome = { rows: WholeFileRows } | { error: string };

export class ReadAhead {
  private readonly worker: Worker | null;
  private readonly outcomes = new Map<number, Outcome>();
  private waiting: { i: number; resolve: () => void } | null = null;
  private failed = false;
  private sent = 0;
  private taken = 0;
  private ahead = 0;

  constructor(
    workerFile: string,
    private readonly jobs: readonly { path: string; size: number }[],
    private readonly maxRows: number,
  ) {
    let worker: Worker | null = null;
    try {
      worker = new Worker(workerFile);
      worker.on('message', (m: ReadReply) => {
        this.outcomes.set(m.i, 'rows' in m ? { rows: m.rows } : { error: m.error });
        if (this.waiting?.i === m.i) this.wake();
      });
      worker.on('error', () => this.fail());
      worker.on('exit', () => this.fail());
    } catch {
      this.failed = true;
    }
    this.worker = worker;
    this.fill();
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = null;
    w?.resolve();
  }

  private fail(): void {
    this.failed = true;
    this.wake();
  }

  private fill(): void {
    if (this.failed || !this.worker) return;
    while (this.sent < this.jobs.length && (this.sent === this.taken || this.ahead < READ_AHEAD_BYTES)) {
      const job = this.jobs[this.sent]!;
      this.worker.postMessage({ i: this.sent, path: job.path, maxRows: this.maxRows } satisfies ReadRequest);
      this.ahead += job.size;
      this.sent++;
    }
  }

  /** The rows of `path`, the next file of the jobs (else it is read here). Throws as the read would. */
  async take(path: string): Promise<WholeFileRows> {
    const i = this.taken;
    if (this.jobs[i]?.path !== path || i >= this.sent) return readWholeFile(path, this.maxRows);
    if (!this.outcomes.has(i) && !this.failed) await new Promise<void>((resolve) => (this.waiting = { i, resolve }));
    const outcome = this.outcomes.get(i);
    this.outcomes.delete(i);
    this.taken++;
    this.ahead -= this.jobs[i]!.size;
    this.fill();
    if (!outcome) return readWholeFile(path, this.maxRows);
    if ('error' in outcome) throw new Error(outcome.error);
    return outcome.rows;
  }

  close(): void {
    this.failed = true;
    void this.worker?.terminate();
  }
}
