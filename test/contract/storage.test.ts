import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSessionStorage } from '../reference/fileStorage';
import { MemorySessionStorage } from '../reference/memoryStorage';
import { runStorageContract } from './storage.contract';

runStorageContract('FileSessionStorage', (faults) => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-storage-'));
  return { storage: new FileSessionStorage(faults), dir, reopen: () => new FileSessionStorage() };
});

runStorageContract('MemorySessionStorage', (faults) => {
  const storage = new MemorySessionStorage(faults);
  const dir = '/sessions/t';
  storage.ensureDirSync(dir);
  // memory has one backing store per instance: "reopening" is reading it again
  return { storage, dir, reopen: () => storage };
});
