// Issue 21 §1–2: the repository stands alone. A fresh clone has no folder beside it, so nothing the tests,
// the demo, the benchmarks, the scripts or CI run may read one; the fixtures they load ship in test/fixtures/
// with the READMEs that say where each file comes from; the README's test command is the one CI runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { FIXTURE_FOLDERS, FIXTURES, fixturesMissing, REPO_ROOT } from '../helpers/fixtures';

const CODE = /\.(ts|mts|mjs|js|json|sh)$|^run$/;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') continue;
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else if (CODE.test(name)) out.push(p);
  }
  return out;
}

test('nothing under test/, bench/, samples/, scripts/ or .ci/ reads the shared folder beside the checkout', () => {
  const name = 'sha' + 'red'; // spelled apart so that this file does not match itself
  const patterns = [new RegExp(`\\.\\./${name}\\b`), new RegExp(`'\\.\\.'\\s*,\\s*'${name}'`)];
  const offenders: string[] = [];
  for (const top of ['test', 'bench', 'samples', 'scripts', '.ci']) {
    for (const file of filesUnder(join(REPO_ROOT, top))) {
      const text = readFileSync(file, 'utf8');
      text.split('\n').forEach((line, i) => {
        if (patterns.some((re) => re.test(line))) offenders.push(`${relative(REPO_ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(offenders, []);
});

test('every fixture folder the tests load is in the repository with the README that says where its files come from', () => {
  assert.equal(FIXTURES, join(REPO_ROOT, 'test', 'fixtures'));
  for (const folder of FIXTURE_FOLDERS) {
    const readme = readFileSync(join(FIXTURES, folder, 'README.md'), 'utf8');
    const files = readdirSync(join(FIXTURES, folder)).filter((f) => f !== 'README.md');
    assert.ok(files.length > 0, `${folder} has files`);
    for (const f of files) assert.ok(readme.includes(f), `${folder}/README.md names ${f}`);
  }
  assert.equal(fixturesMissing(), undefined);
});

test('a missing fixture folder is one sentence naming it, from the helper and from the first step of npm test', () => {
  const empty = mkdtempSync(join(tmpdir(), 'loom-nofixtures-'));
  try {
    const sentence = fixturesMissing(empty);
    assert.match(sentence ?? '', new RegExp(`^The real-session fixtures are missing: ${join(empty, 'dsh').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not exist`));
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'check-fixtures.mjs')], {
      encoding: 'utf8',
      env: { ...process.env, SESSION_LOOM_FIXTURES: empty },
    });
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, `one line: ${r.stderr}`);
    assert.match(r.stderr, /The real-session fixtures are missing: .*dsh has no README\.md/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('the README starts with the demo and the test command, and .ci/run runs that test command and installs the packages the README lists', () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const first = /```sh\n([\s\S]*?)```/.exec(readme)![1]!.trim().split('\n');
  assert.match(first[0]!, /^npm ci && npm run demo\s+#/);
  assert.match(first[1]!, /^npm ci && npm test\s+#/);
  const ci = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8');
  assert.match(ci, /\n\s*npm ci --no-audit --no-fund 2>&1 \| node scripts\/quiet-npm\.mjs\n\s*npm test\n/);
  const apt = /APT_PACKAGES=\(([^)]*)\)/.exec(ci)![1]!.trim().split(/\s+/);
  const intro = readme.slice(0, readme.indexOf('\n---\n'));
  for (const pkg of apt) assert.ok(intro.includes(`\`${pkg}\``), `the README's opening names the Debian package ${pkg}`);
  const setup = readFileSync(join(REPO_ROOT, 'test', 'integration', 'setup.mjs'), 'utf8');
  for (const pkg of apt) assert.ok(setup.includes(pkg), `setup.mjs's hint names ${pkg}`);
});
