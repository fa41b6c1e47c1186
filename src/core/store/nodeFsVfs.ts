// A small synchronous Node-fs VFS for the official SQLite WASM build, so the search index (a
// database we write, up to half the size of a sessions corpus) lives in a real file instead of
// an in-memory image serialised on every update. The WASM build's own default VFS works on
// Emscripten's in-memory file system only.
//
// Why synchronous fs calls are fine: SQLite's VFS methods are synchronous C callbacks; the index
// runs in a worker thread (src/core/search/worker.ts) or in the CLI, never on the extension
// host's thread. Reads and writes go straight between the file and the WASM heap (no copy).
//
// Locking: none at the VFS level (every lock call succeeds). One process at a time owns an index
// directory through a lock file (src/core/search/indexLock.ts); within that process one
// connection uses it. SQLite's rollback journal still makes each transaction atomic against a
// crash, and a database left damaged anyway is detected and rebuilt (it is a cache).
import { closeSync, constants, existsSync, accessSync, fstatSync, fdatasyncSync, ftruncateSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Sqlite3 } from './sqliteWasm';

export const NODE_FS_VFS = 'session-loom-node-fs';

interface OpenFile {
  fd: number;
  path: string;
  deleteOnClose: boolean;
}

// SQLite result codes and flags used here (sqlite3.h).
const OK = 0;
const IOERR = 10;
const CANTOPEN = 14;
const NOTFOUND = 12;
const IOERR_SHORT_READ = 522;
const IOERR_DELETE_NOENT = 5898;
const OPEN_READWRITE = 0x2;
const OPEN_CREATE = 0x4;
const OPEN_DELETEONCLOSE = 0x8;
const OPEN_EXCLUSIVE = 0x10;
const ACCESS_READWRITE = 1;

const registered = new WeakSet<Sqlite3>();

/** Registers the VFS (once per SQLite module); open databases with `{ vfs: NODE_FS_VFS }`. */
export function registerNodeFsVfs(sqlite3: Sqlite3): void {
  if (registered.has(sqlite3)) return;
  const { capi, wasm } = sqlite3;
  const files = new Map<number, OpenFile>();
  const ptr = (p: unknown): number => Number(p);
  const cstr = (p: unknown): string => wasm.cstrToJs(p as never) ?? '';

  // The struct wrappers' `$`-prefixed members are the C fields; the typings do not declare them.
  type Struct = Record<string, unknown> & { pointer: unknown; dispose(): void };
  const io = new capi.sqlite3_io_methods() as unknown as Struct;
  const vfs = new capi.sqlite3_vfs() as unknown as Struct;
  const defaultVfs = new capi.sqlite3_vfs(capi.sqlite3_vfs_find(null) as never) as unknown as Struct;
  io.$iVersion = 1;
  vfs.$iVersion = 2;
  vfs.$szOsFile = (capi.sqlite3_file as unknown as { structInfo: { sizeof: number } }).structInfo.sizeof;
  vfs.$mxPathname = 1024;
  // Time, randomness and sleep are the default VFS's (they do not touch files).
  vfs.$xRandomness = defaultVfs.$xRandomness;
  vfs.$xSleep = defaultVfs.$xSleep;
  vfs.$xCurrentTime = defaultVfs.$xCurrentTime;
  vfs.$xCurrentTimeInt64 = defaultVfs.$xCurrentTimeInt64;
  vfs.$xGetLastError = defaultVfs.$xGetLastError;
  defaultVfs.dispose();

  /** Every method catches: an exception must never unwind through SQLite's C frames. */
  const guarded = <A extends unknown[]>(fail: number, f: (...args: A) => number) =>
    (...args: A): number => {
      try {
        return f(...args);
      } catch {
        return fail;
      }
    };

  const ioMethods = {
    xClose: guarded(IOERR, (pFile: unknown) => {
      const f = files.get(ptr(pFile));
      if (!f) return OK;
      files.delete(ptr(pFile));
      closeSync(f.fd);
      if (f.deleteOnClose) unlinkSync(f.path);
      return OK;
    }),
    xRead: guarded(IOERR, (pFile: unknown, pDest: unknown, n: number, offset: bigint | number) => {
      const f = files.get(ptr(pFile))!;
      const dest = ptr(pDest);
      const heap = wasm.heap8u();
      const at = Number(offset);
      let got = 0;
      while (got < n) {
        const r = readSync(f.fd, heap, dest + got, n - got, at + got);
        if (r === 0) break;
        got += r;
      }
      if (got < n) {
        heap.fill(0, dest + got, dest + n);
        return IOERR_SHORT_READ;
      }
      return OK;
    }),
    xWrite: guarded(IOERR, (pFile: unknown, pSrc: unknown, n: number, offset: bigint | number) => {
      const f = files.get(ptr(pFile))!;
      const src = ptr(pSrc);
      const heap = wasm.heap8u();
      const at = Number(offset);
      let put = 0;
      while (put < n) put += writeSync(f.fd, heap, src + put, n - put, at + put);
      return OK;
    }),
    xTruncate: guarded(IOERR, (pFile: unknown, size: bigint | number) => {
      ftruncateSync(files.get(ptr(pFile))!.fd, Number(size));
      return OK;
    }),
    xSync: guarded(IOERR, (pFile: unknown) => {
      fdatasyncSync(files.get(ptr(pFile))!.fd);
      return OK;
    }),
    xFileSize: guarded(IOERR, (pFile: unknown, pSize: unknown) => {
      wasm.poke64(pSize as never, BigInt(fstatSync(files.get(ptr(pFile))!.fd).size));
      return OK;
    }),
    xLock: () => OK,
    xUnlock: () => OK,
    xCheckReservedLock: guarded(IOERR, (_pFile: unknown, pOut: unknown) => {
      wasm.poke32(pOut as never, 0);
      return OK;
    }),
    xFileControl: () => NOTFOUND,
    xSectorSize: () => 4096,
    xDeviceCharacteristics: () => 0,
  };

  const vfsMethods = {
    xOpen: guarded(CANTOPEN, (_pVfs: unknown, zName: unknown, pFile: unknown, flags: number, pOutFlags: unknown) => {
      let path: string;
      let deleteOnClose = (flags & OPEN_DELETEONCLOSE) !== 0;
      if (ptr(zName) === 0) {
        // A temporary file SQLite asks for without a name.
        path = join(tmpdir(), `session-loom-sqlite-${randomBytes(8).toString('hex')}`);
        deleteOnClose = true;
      } else {
        path = cstr(zName);
      }
      const writable = (flags & OPEN_READWRITE) !== 0;
      let mode = writable ? constants.O_RDWR : constants.O_RDONLY;
      if (flags & OPEN_CREATE) mode |= constants.O_CREAT;
      if (flags & OPEN_EXCLUSIVE) mode |= constants.O_EXCL;
      const fd = openSync(path, mode, 0o600); // files it creates hold the sessions' words: the user's alone
      files.set(ptr(pFile), { fd, path, deleteOnClose });
      const file = new capi.sqlite3_file(pFile as never) as unknown as Struct;
      file.$pMethods = io.pointer;
      file.dispose();
      if (ptr(pOutFlags) !== 0) wasm.poke32(pOutFlags as never, flags);
      return OK;
    }),
    xDelete: guarded(IOERR, (_pVfs: unknown, zName: unknown) => {
      try {
        unlinkSync(cstr(zName));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return IOERR_DELETE_NOENT;
        throw e;
      }
      return OK;
    }),
    xAccess: guarded(IOERR, (_pVfs: unknown, zName: unknown, flags: number, pOut: unknown) => {
      const path = cstr(zName);
      let yes = existsSync(path);
      if (yes && flags === ACCESS_READWRITE) {
        try {
          accessSync(path, constants.R_OK | constants.W_OK);
        } catch {
          yes = false;
        }
      }
      wasm.poke32(pOut as never, yes ? 1 : 0);
      return OK;
    }),
    xFullPathname: guarded(CANTOPEN, (_pVfs: unknown, zName: unknown, nOut: number, pOut: unknown) => {
      const bytes = Buffer.from(`${resolve(cstr(zName))}\0`, 'utf8');
      if (bytes.length > nOut) return CANTOPEN;
      wasm.heap8u().set(bytes, ptr(pOut));
      return OK;
    }),
  };

  sqlite3.vfs.installVfs({
    io: { struct: io as never, methods: ioMethods as never },
    vfs: { struct: vfs as never, methods: vfsMethods as never, name: NODE_FS_VFS },
  });
  registered.add(sqlite3);
}
