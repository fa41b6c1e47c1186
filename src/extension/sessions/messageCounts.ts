// How many messages a session has, computed one way everywhere (issue 14): its `message` entries
// as the loader reads them — glued records split, unreadable lines left out. The Sessions row, its
// tooltip and the editor's header all show this number, so it never changes once a session is
// read (a prefix scan used to count lines with `"type":"message"` instead: 144 became 143 for a
// line with a bad escape, 453 became 454 for two records glued on one line).
//
// A row's count before its session is opened comes from a full read in the background, one file
// at a time, in the model worker (off the extension host's thread); sessions larger than
// COUNT_READ_LIMIT get their count when the user opens them (a listing must not read a huge file
// into memory just to label a row). No `vscode` here.
import { countMessages } from '../../core/formats/xcsh/countMessages';
import { countSessionMessages } from '../../core/engine/openModel';
export { countMessages, countSessionMessages };
export { messageCountOf } from '../../core/formats/xcsh/stats';

/** Larger files are not read just to count their messages. */
export const COUNT_READ_LIMIT = 64 * 1024 * 1024;

/**
 * Counts of the files the view lists, by (size, mtime) stamp. `get` answers at once from the cache,
 * else queues a count and calls `ready` once it is known; counts run one at a time.
 */
export class MessageCounts {
  private readonly cache = new Map<string, { stamp: string; count: number | undefined }>();
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly count: (file: string) => Promise<number> = countSessionMessages) {}

  get(file: string, size: number, mtimeMs: number, ready: (count: number) => void): number | undefined {
    const stamp = `${size}:${mtimeMs}`;
    const hit = this.cache.get(file);
    if (hit && hit.stamp === stamp) return hit.count;
    const entry: { stamp: string; count: number | undefined } = { stamp, count: undefined };
    this.cache.set(file, entry);
    if (size > COUNT_READ_LIMIT) return undefined;
    this.queue = this.queue.then(async () => {
      if (this.cache.get(file) !== entry) return; // the file changed or was counted otherwise meanwhile
      let count: number;
      try {
        count = await this.count(file);
      } catch {
        return; // unreadable now: the row shows no count
      }
      if (this.cache.get(file) !== entry) return;
      entry.count = count;
      ready(count);
    });
    return undefined;
  }

  /** A count known otherwise (the session was loaded): no read needed. */
  set(file: string, size: number, mtimeMs: number, count: number): void {
    this.cache.set(file, { stamp: `${size}:${mtimeMs}`, count });
  }

  clear(): void {
    this.cache.clear();
  }

  /** Resolves once every count queued so far has run. */
  idle(): Promise<void> {
    return this.queue;
  }
}
