// Folders nested until their full path is longer than PATH_MAX (4096 bytes on Linux). mkdir and
// chdir take a path of at most PATH_MAX, so each level is made relative to the one before, from
// inside it; the test process's cwd is restored afterwards.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LINUX_PATH_MAX = 4096;

/**
 * Nests folders under `base` until the path exceeds `minBytes`, writes `fileName` with `content`
 * in the deepest one, and returns the deepest folder's (too long to use) absolute path.
 */
export function makeFolderBeyondPathMax(base: string, fileName: string, content: string, minBytes = LINUX_PATH_MAX + 100): string {
  const segment = 'd'.repeat(200);
  const back = process.cwd();
  let path = base;
  mkdirSync(base, { recursive: true });
  try {
    process.chdir(base);
    while (Buffer.byteLength(path) <= minBytes) {
      mkdirSync(segment);
      process.chdir(segment);
      path = join(path, segment);
    }
    writeFileSync(fileName, content);
  } finally {
    process.chdir(back);
  }
  return path;
}

/** Removes a tree that may hold paths beyond PATH_MAX (rm -rf works level by level, fs.rmSync does not). */
export function removeDeepTree(path: string): void {
  spawnSync('rm', ['-rf', path]);
}
