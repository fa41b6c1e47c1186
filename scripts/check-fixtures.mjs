// First step of `npm test`: the real-session fixtures the tests load ship in the repository under
// test/fixtures/. If a folder is missing (a partial checkout, a packager who pruned test/), say so in one
// sentence and stop, instead of letting a hundred tests fail with ENOENT.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = process.env.SESSION_LOOM_FIXTURES ?? path.join(root, 'test', 'fixtures');
for (const folder of ['dsh', 'real-v3', 'upstream', 'upstream-full', 'claude-code', 'codex']) {
  const dir = path.join(fixtures, folder);
  if (!existsSync(path.join(dir, 'README.md'))) {
    console.error(
      `The real-session fixtures are missing: ${dir} has no README.md (they ship in the repository under test/fixtures/; restore them with git checkout -- test/fixtures).`,
    );
    process.exit(1);
  }
}
