// Figures of dsh sessions for their rows and tooltips (message count, state, tokens, models),
// read once per (size, mtime) and one file at a time. No `vscode` here.
import { stat } from 'node:fs/promises';
import { dshSessionStats, loadDshSource, type DshSessionStats } from '../../core/formats/dsh/index';

/** The messages a dsh session row counts: the same number as the editor header's. */
export function dshMessageCount(s: DshSessionStats): number {
  return s.messages.user + s.messages.injected + s.messages.assistant + s.messages.toolResults;
}

export interface DshRowStats extends DshSessionStats {
  diagnostics: number;
}

export class DshStatsCache {
  private readonly cache = new Map<string, { stamp: string; stats: Promise<DshRowStats>; done?: DshRowStats }>();
  private queue: Promise<unknown> = Promise.resolve();

  /** The figures if known for this stamp, without reading. */
  peek(file: string, size: number, mtimeMs: number, session?: string): DshRowStats | undefined {
    const hit = this.cache.get(session === undefined ? file : `${file}#session=${session}`);
    return hit && hit.stamp === `${size}:${mtimeMs}` ? hit.done : undefined;
  }

  /** `file` is the log (or the store); `session` picks a session of a store. */
  get(file: string, session?: string): Promise<DshRowStats> {
    const key = session === undefined ? file : `${file}#session=${session}`;
    const run = async (): Promise<DshRowStats> => {
      const st = await stat(file);
      const stamp = `${st.size}:${st.mtimeMs}`;
      const hit = this.cache.get(key);
      if (hit && hit.stamp === stamp) return hit.stats;
      const entry: { stamp: string; stats: Promise<DshRowStats>; done?: DshRowStats } = {
        stamp,
        stats: loadDshSource(file, session === undefined ? {} : { session }).then((log) => ({ ...dshSessionStats(log), diagnostics: log.diagnostics.length })),
      };
      this.cache.set(key, entry);
      entry.done = await entry.stats;
      return entry.done;
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  clear(): void {
    this.cache.clear();
  }
}
