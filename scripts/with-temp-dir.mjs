// Runs a command with TMPDIR set to a fresh folder and removes the folder afterwards. The unit and
// CLI tests make a temp folder per case (thousands per run, sessions, indexes, stores), and many
// of them leave theirs behind: run through this, a test run leaves nothing in the system's /tmp.
//   node scripts/with-temp-dir.mjs <command> [args…]
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node scripts/with-temp-dir.mjs <command> [args…]');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'session-loom-tests-'));
// Open to every user, sticky, as /tmp is: a test runs a child as another uid (writeSafety.test.ts).
chmodSync(dir, 0o1777);
// The search server (src/cli/searchServer.ts) off, unless a test turns it on
// (test/cli/searchServer.test.ts): each CLI test runs the search in its own process, and a run of
// the suites does not leave a server per test home behind.
const env = { ...process.env, TMPDIR: dir, TEMP: dir, TMP: dir, SESSION_LOOM_SEARCH_SERVER: process.env.SESSION_LOOM_SEARCH_SERVER ?? '0' };
const run = spawnSync(command, args, { stdio: 'inherit', env });
rmSync(dir, { recursive: true, force: true });
if (run.error) {
  console.error(`with-temp-dir: ${command}: ${run.error.message}`);
  process.exit(1);
}
process.exit(run.status ?? 1);
