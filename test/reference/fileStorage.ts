// The reference (test-only, issue 23): SessionStorage on the real file system (Part A), the
// storage of the session manager (manager.ts). The writer opens with O_APPEND, as the agent does,
// so lines appended by two processes never overwrite each other; rewrites are atomic
// (writeFileAtomicStream, the product's atomic replacement).
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { readFileHead } from '../../src/core/store/fileHead';
import { writeFileAtomicStream, type StorageFaults } from '../../src/core/store/atomicWrite';
import { LatchingWriter, type OpenWriterOptions, type SessionStorage, type SessionStorageWriter, type StorageStat } from './storage';

class FileWriter extends LatchingWriter {
  private fh: Promise<fsp.FileHandle> | null = null;

  constructor(
    private readonly path: string,
    private readonly opts: OpenWriterOptions,
    private readonly faults: StorageFaults,
  ) {
    super();
  }

  private handle(): Promise<fsp.FileHandle> {
    // 'ax' = O_APPEND|O_CREAT|O_EXCL; 'a' = O_APPEND|O_CREAT
    this.fh ??= fsp.open(this.path, this.opts.exclusive ? 'ax' : 'a');
    return this.fh;
  }

  protected async doWrite(data: string): Promise<void> {
    const fh = await this.handle();
    this.faults.beforeWrite?.('append', this.path);
    const buf = Buffer.from(data, 'utf8');
    let off = 0;
    while (off < buf.length) {
      const { bytesWritten } = await fh.write(buf, off, buf.length - off);
      off += bytesWritten;
    }
  }

  protected async doSync(): Promise<void> {
    if (!this.fh) return;
    const fh = await this.fh;
    this.faults.beforeWrite?.('fsync', this.path);
    await fh.sync();
  }

  protected async doClose(): Promise<void> {
    if (!this.fh) return;
    const fh = await this.fh;
    this.fh = null;
    await fh.close();
  }
}

export async function writeFileAtomic(path: string, data: string | Uint8Array, faults: StorageFaults = {}): Promise<void> {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  await writeFileAtomicStream(path, (write) => write(buf), { faults });
}

export class FileSessionStorage implements SessionStorage {
  constructor(private readonly faults: StorageFaults = {}) {}

  ensureDirSync(dir: string): void {
    fs.mkdirSync(dir, { recursive: true });
  }

  existsSync(path: string): boolean {
    return fs.existsSync(path);
  }

  writeTextSync(path: string, text: string): void {
    this.faults.beforeWrite?.('write', path);
    fs.writeFileSync(path, text);
  }

  statSync(path: string): StorageStat | null {
    const s = fs.statSync(path, { throwIfNoEntry: false });
    return s ? { size: s.size, mtimeMs: s.mtimeMs, isFile: s.isFile(), isDirectory: s.isDirectory() } : null;
  }

  listFilesSync(dir: string): string[] {
    try {
      return fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => d.name)
        .sort();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
      throw e;
    }
  }

  async exists(path: string): Promise<boolean> {
    return fsp.access(path).then(
      () => true,
      () => false,
    );
  }

  readText(path: string): Promise<string> {
    return fsp.readFile(path, 'utf8');
  }

  readBytes(path: string): Promise<Uint8Array> {
    return fsp.readFile(path);
  }

  async readTextPrefix(path: string, maxBytes: number): Promise<string> {
    return (await readFileHead(path, maxBytes)).data.toString('utf8');
  }

  async writeText(path: string, text: string): Promise<void> {
    this.faults.beforeWrite?.('write', path);
    await fsp.writeFile(path, text);
  }

  writeTextAtomic(path: string, text: string | Uint8Array): Promise<void> {
    return writeFileAtomic(path, text, this.faults);
  }

  async rename(from: string, to: string): Promise<void> {
    this.faults.beforeWrite?.('rename', to);
    await fsp.rename(from, to);
  }

  unlink(path: string): Promise<void> {
    return fsp.unlink(path);
  }

  openWriter(path: string, opts: OpenWriterOptions = {}): SessionStorageWriter {
    return new FileWriter(path, opts, this.faults);
  }
}
