// Where the shared real-session fixtures live, for every test that loads them.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root (this file is test/helpers/fixtures.ts). */
export const REPO_ROOT = resolve(__dirname, '..', '..');
/** `../shared/fixtures` beside the checkout, as laid out for developers and CI. */
export const FIXTURES = process.env.SESSION_LOOM_FIXTURES ?? resolve(REPO_ROOT, '..', 'shared', 'fixtures');

export function fixture(...parts: string[]): string {
  return join(FIXTURES, ...parts);
}

/** Every `.jsonl` file of one fixture folder (`upstream`, `upstream-full`, `real-v3`, `dsh`), sorted. */
export function fixtureFiles(folder: string): string[] {
  return readdirSync(join(FIXTURES, folder))
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => join(FIXTURES, folder, f));
}
