// The reference (test-only, issue 23): the storage port of Part A ("Storage abstractions"): every
// file-system operation the session manager (manager.ts) needs, so the same code runs on disk
// (FileSessionStorage) and in memory (MemorySessionStorage). Both implementations pass one
// contract suite (test/contract/). The product writes a session file only through an atomic
// rewrite (src/core/store/rewrite.ts over src/core/store/atomicWrite.ts), whose fault seam
// (StorageFaults) the storages share.

export type { StorageFaults, StorageOp } from '../../src/core/store/atomicWrite';

export interface StorageStat {
  size: number;
  mtimeMs: number;
  isFile: boolean;
  isDirectory: boolean;
}

/**
 * Append-only line writer (the agent's `NdjsonFileWriter`). Writes are serialised in call order.
 * Errors latch (Part A "Persistence guarantees"): after the first failure every later operation
 * rejects with that same error, so a caller cannot silently keep writing past a lost line.
 */
export interface SessionStorageWriter {
  /** Appends `line` + `\n`. Resolves when the bytes were handed to the OS. */
  writeLine(line: string): Promise<void>;
  /** Waits for pending writes, then fsyncs (Part A: "flush() flushes the writer and calls fsync()"). */
  flush(): Promise<void>;
  fsync(): Promise<void>;
  /** Flushes and releases the file. Later writes reject. */
  close(): Promise<void>;
  /** The latched error, if any. */
  getError(): Error | null;
}

export interface OpenWriterOptions {
  /** Fail if the file exists (O_EXCL) — for "repair into a new file". */
  exclusive?: boolean;
}

export interface SessionStorage {
  ensureDirSync(dir: string): void;
  existsSync(path: string): boolean;
  writeTextSync(path: string, text: string): void;
  /** null when the path does not exist. */
  statSync(path: string): StorageStat | null;
  /** Names (not paths) of the regular files directly in `dir`, sorted; [] when `dir` is missing. */
  listFilesSync(dir: string): string[];

  exists(path: string): Promise<boolean>;
  readText(path: string): Promise<string>;
  /** The file's bytes as they are (a rewrite must keep bytes that are not UTF-8; readText cannot). */
  readBytes(path: string): Promise<Uint8Array>;
  /** The first `maxBytes` bytes decoded as UTF-8 (listings read only a header's worth). */
  readTextPrefix(path: string, maxBytes: number): Promise<string>;
  writeText(path: string, text: string): Promise<void>;
  /** Temp file in the same directory + fsync + rename (+ directory fsync on disk). All or nothing. */
  writeTextAtomic(path: string, text: string | Uint8Array): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  openWriter(path: string, opts?: OpenWriterOptions): SessionStorageWriter;
}

export class StorageError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'StorageError';
    this.code = code;
  }
}

/**
 * Shared writer core: a promise chain that serialises operations and latches the first error.
 * `doWrite` / `doSync` / `doClose` are the backend's primitive steps.
 */
export abstract class LatchingWriter implements SessionStorageWriter {
  private chain: Promise<void> = Promise.resolve();
  private error: Error | null = null;
  private closed = false;

  protected abstract doWrite(data: string): Promise<void>;
  protected abstract doSync(): Promise<void>;
  protected abstract doClose(): Promise<void>;

  private enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.chain.then(async () => {
      if (this.error) throw this.error;
      try {
        await step();
      } catch (e) {
        this.error ??= e instanceof Error ? e : new Error(String(e));
        throw this.error;
      }
    });
    // keep the chain alive after a failure; the latched error is rethrown by the next step
    this.chain = run.catch(() => undefined);
    return run;
  }

  writeLine(line: string): Promise<void> {
    if (this.closed) return Promise.reject(this.error ?? new StorageError('ECLOSED', 'writer is closed'));
    return this.enqueue(() => this.doWrite(line + '\n'));
  }

  flush(): Promise<void> {
    return this.enqueue(() => this.doSync());
  }

  fsync(): Promise<void> {
    return this.enqueue(() => this.doSync());
  }

  async close(): Promise<void> {
    if (this.closed) {
      if (this.error) throw this.error;
      return;
    }
    this.closed = true;
    let syncError: unknown = null;
    try {
      await this.enqueue(() => this.doSync());
    } catch (e) {
      syncError = e;
    }
    // closing is best-effort, but the first meaningful error propagates (Part A)
    await this.doClose().catch((e: unknown) => {
      this.error ??= e instanceof Error ? e : new Error(String(e));
    });
    if (syncError) throw syncError;
    if (this.error) throw this.error;
  }

  getError(): Error | null {
    return this.error;
  }
}
