// Where the real-session fixtures live, for every test that loads them: `test/fixtures/` in this repository
// (copied byte-exact, each folder with the README that says where every file comes from and under which licence).
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root (this file is test/helpers/fixtures.ts). */
export const REPO_ROOT = resolve(__dirname, '..', '..');
/** The fixture folders the tests load; `fixturesMissing` checks each of them. */
export const FIXTURE_FOLDERS = ['dsh', 'real-v3', 'upstream', 'upstream-full', 'claude-code', 'codex'] as const;
/** The folders of the formats the CLI's golden outputs were captured on (xcsh and dsh). */
export const GOLDEN_FIXTURE_FOLDERS = ['dsh', 'real-v3', 'upstream', 'upstream-full'] as const;
/** `test/fixtures` in the repository (SESSION_LOOM_FIXTURES points elsewhere, e.g. at a newer set). */
export const FIXTURES = process.env.SESSION_LOOM_FIXTURES ?? resolve(REPO_ROOT, 'test', 'fixtures');

/** One sentence naming the first fixture folder that is not there, or undefined when all are. */
export function fixturesMissing(root: string = FIXTURES): string | undefined {
  for (const folder of FIXTURE_FOLDERS) {
    const dir = join(root, folder);
    if (!existsSync(dir)) {
      return `The real-session fixtures are missing: ${dir} does not exist (they ship in the repository under test/fixtures/; restore them with git checkout -- test/fixtures).`;
    }
  }
  return undefined;
}

// Checked once, when the first test file loads this helper: one clear sentence instead of a hundred ENOENTs.
const missing = fixturesMissing();
if (missing) {
  process.stderr.write(`${missing}\n`);
  throw new Error(missing);
}

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
