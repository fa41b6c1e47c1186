// `npm run generate -- <dir>` (bench/keep.ts): the bench's sessions kept for users, deterministic, and never
// written over an existing file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { REPO_ROOT } from '../helpers/fixtures';

const generate = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench', 'keep.ts'), ...args], { cwd: REPO_ROOT, encoding: 'utf8' });

test('generate writes a sessions root the reader opens, the same bytes each time, and refuses to overwrite', async () => {
  const a = mkdtempSync(join(tmpdir(), 'loom-generate-'));
  const b = mkdtempSync(join(tmpdir(), 'loom-generate-'));
  try {
    for (const dir of [a, b]) {
      const r = generate(dir, '--entries', '300', '--corpus', '2:1');
      assert.equal(r.status, 0, r.stderr);
    }
    const project = join(a, '--home-dev-generated--');
    const [name] = readdirSync(project);
    assert.ok(name?.endsWith('.jsonl'), `a session file in ${project}`);
    const file = join(project, name!);
    assert.deepEqual(readFileSync(file), readFileSync(join(b, '--home-dev-generated--', name!)), 'deterministic');
    const loaded = await loadSessionFile(file);
    assert.equal(loaded.entries.length, 300);
    assert.equal(loaded.header?.version, 3);
    assert.ok(readdirSync(join(a, 'corpus')).length >= 1, 'the corpus has project folders');

    const before = statSync(file).mtimeMs;
    const again = generate(a, '--entries', '300');
    assert.equal(again.status, 2);
    assert.match(again.stderr, /already exists: choose an empty folder \(nothing is overwritten\)/);
    assert.equal(statSync(file).mtimeMs, before, 'the existing file is untouched');

    const bad = generate(a, '--entries', 'many');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--entries must be a positive whole number, not "many"/);
  } finally {
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  }
});
