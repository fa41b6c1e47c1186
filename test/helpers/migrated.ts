// A fixture copied and made v3 the way `session-loom migrate` does (a v1 fixture's ids are then on
// disk): what the lazy model and the peek read.
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { rewriteSessionFile } from '../../src/core/store/rewrite';

export async function migratedCopy(src: string, dir: string): Promise<string> {
  const dst = join(dir, src.split('/').pop()!);
  copyFileSync(src, dst);
  chmodSync(dst, 0o644);
  const loaded = await loadSessionFile(dst);
  await rewriteSessionFile(dst, loaded, { expected: loaded.stat!, force: true });
  return dst;
}
