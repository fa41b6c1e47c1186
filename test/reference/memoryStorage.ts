// The reference (test-only, issue 23): a Map-based SessionStorage (Part A) for the session
// manager's tests and its non-persistent sessions. Paths are plain
// strings normalised with posix rules; directories exist implicitly once a file is in them or
// ensureDirSync named them.
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { LatchingWriter, StorageError, type OpenWriterOptions, type SessionStorage, type SessionStorageWriter, type StorageFaults, type StorageStat } from './storage';

interface MemFile {
  data: Buffer;
  mtimeMs: number;
}

const norm = (p: string): string => posix.normalize(p.replace(/\\/g, '/'));

class MemoryWriter extends LatchingWriter {
  constructor(
    private readonly storage: MemorySessionStorage,
    private readonly path: string,
    private readonly faults: StorageFaults,
    private readonly exclusive: boolean,
  ) {
    super();
  }

  private opened = false;

  protected async doWrite(data: string): Promise<void> {
    if (!this.opened) {
      // like the file writer: the file is opened (and O_EXCL checked) on the first write
      this.storage.openForAppend(this.path, this.exclusive);
      this.opened = true;
    }
    this.faults.beforeWrite?.('append', this.path);
    this.storage.appendBytes(this.path, Buffer.from(data, 'utf8'));
  }

  protected async doSync(): Promise<void> {
    this.faults.beforeWrite?.('fsync', this.path);
  }

  protected async doClose(): Promise<void> {}
}

export class MemorySessionStorage implements SessionStorage {
  private readonly files = new Map<string, MemFile>();
  private readonly dirs = new Set<string>(['/']);
  private clock = 0;

  constructor(private readonly faults: StorageFaults = {}) {}

  /** Strictly increasing mtimes, so "changed since read" is always visible. */
  private now(): number {
    this.clock = Math.max(this.clock + 1, Date.now());
    return this.clock;
  }

  private enoent(path: string): StorageError {
    return new StorageError('ENOENT', `ENOENT: no such file: ${path}`);
  }

  private put(path: string, data: Buffer): void {
    const p = norm(path);
    this.addDir(posix.dirname(p));
    this.files.set(p, { data, mtimeMs: this.now() });
  }

  private addDir(dir: string): void {
    for (let d = norm(dir); !this.dirs.has(d); d = posix.dirname(d)) this.dirs.add(d);
  }

  /** @internal used by the writer */
  openForAppend(path: string, exclusive: boolean): void {
    const p = norm(path);
    if (exclusive && this.files.has(p)) throw new StorageError('EEXIST', `EEXIST: file already exists: ${path}`);
    if (!this.dirs.has(posix.dirname(p))) throw new StorageError('ENOENT', `ENOENT: no such directory: ${posix.dirname(p)}`);
    if (!this.files.has(p)) this.put(p, Buffer.alloc(0));
  }

  /** @internal used by the writer */
  appendBytes(path: string, bytes: Buffer): void {
    const p = norm(path);
    const f = this.files.get(p);
    this.put(p, f ? Buffer.concat([f.data, bytes]) : bytes);
  }

  ensureDirSync(dir: string): void {
    this.addDir(dir);
  }

  existsSync(path: string): boolean {
    const p = norm(path);
    return this.files.has(p) || this.dirs.has(p);
  }

  writeTextSync(path: string, text: string): void {
    this.faults.beforeWrite?.('write', path);
    this.put(path, Buffer.from(text, 'utf8'));
  }

  statSync(path: string): StorageStat | null {
    const p = norm(path);
    const f = this.files.get(p);
    if (f) return { size: f.data.length, mtimeMs: f.mtimeMs, isFile: true, isDirectory: false };
    if (this.dirs.has(p)) return { size: 0, mtimeMs: 0, isFile: false, isDirectory: true };
    return null;
  }

  listFilesSync(dir: string): string[] {
    const d = norm(dir);
    const out: string[] = [];
    for (const p of this.files.keys()) if (posix.dirname(p) === d) out.push(posix.basename(p));
    return out.sort();
  }

  async exists(path: string): Promise<boolean> {
    return this.existsSync(path);
  }

  async readText(path: string): Promise<string> {
    const f = this.files.get(norm(path));
    if (!f) throw this.enoent(path);
    return f.data.toString('utf8');
  }

  async readBytes(path: string): Promise<Uint8Array> {
    const f = this.files.get(norm(path));
    if (!f) throw this.enoent(path);
    return Buffer.from(f.data);
  }

  async readTextPrefix(path: string, maxBytes: number): Promise<string> {
    const f = this.files.get(norm(path));
    if (!f) throw this.enoent(path);
    return f.data.toString('utf8', 0, Math.min(maxBytes, f.data.length));
  }

  async writeText(path: string, text: string): Promise<void> {
    this.writeTextSync(path, text);
  }

  /** Same steps as on disk — the temp entry is visible while it is written — so a fault mid-way is a real test. */
  async writeTextAtomic(path: string, text: string | Uint8Array): Promise<void> {
    const p = norm(path);
    const tmp = posix.join(posix.dirname(p), `.${posix.basename(p)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      this.put(tmp, Buffer.alloc(0));
      this.faults.beforeWrite?.('atomic-temp', tmp);
      this.put(tmp, typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text));
      this.faults.beforeWrite?.('fsync', tmp);
      this.faults.beforeWrite?.('rename', p);
      await this.rename(tmp, p);
    } catch (e) {
      this.files.delete(tmp);
      throw e;
    }
  }

  async rename(from: string, to: string): Promise<void> {
    const f = this.files.get(norm(from));
    if (!f) throw this.enoent(from);
    this.files.delete(norm(from));
    this.addDir(posix.dirname(norm(to)));
    this.files.set(norm(to), f);
  }

  async unlink(path: string): Promise<void> {
    if (!this.files.delete(norm(path))) throw this.enoent(path);
  }

  openWriter(path: string, opts: OpenWriterOptions = {}): SessionStorageWriter {
    return new MemoryWriter(this, path, this.faults, opts.exclusive === true);
  }
}
