import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cwdDirNames, decodeCwd, encodeCwd, encodeCwdLegacy } from '../../src/core/formats/xcsh/cwd';

const opts = { home: '/home/ann', tmp: '/tmp' };

test('legacy form (Part A): leading slash removed, / \\ : → -, wrapped in --', () => {
  assert.equal(encodeCwdLegacy('/work/pi'), '--work-pi--');
  assert.equal(encodeCwdLegacy('C:\\Users\\ann'), '--C--Users-ann--');
  assert.equal(encodeCwd('/work/pi', { ...opts, legacy: true }), '--work-pi--');
});

test('home-relative form (Part B §11)', () => {
  assert.equal(encodeCwd('/home/ann/projects/foo', opts), '-projects-foo');
  assert.equal(encodeCwd('/home/ann', opts), '-');
});

test('tmp-relative form', () => {
  assert.equal(encodeCwd('/tmp/scratch/x', opts), '-tmp-scratch-x');
  assert.equal(encodeCwd('/tmp', opts), '-tmp');
});

test('outside home and tmp falls back to the legacy form; a sibling of home is not inside it', () => {
  assert.equal(encodeCwd('/work/pi', opts), '--work-pi--');
  assert.equal(encodeCwd('/home/annex/x', opts), '--home-annex-x--');
});

test('decode: best-guess path per form', () => {
  assert.deepEqual(decodeCwd('--work-pi--', opts), { form: 'legacy', path: '/work/pi' });
  assert.deepEqual(decodeCwd('-projects-foo', opts), { form: 'home', path: '/home/ann/projects/foo' });
  assert.deepEqual(decodeCwd('-', opts), { form: 'home', path: '/home/ann' });
  assert.deepEqual(decodeCwd('-tmp-scratch', opts), { form: 'tmp', path: '/tmp/scratch' });
  assert.deepEqual(decodeCwd('-tmp', opts), { form: 'tmp', path: '/tmp' });
  assert.deepEqual(decodeCwd('random', opts), { form: 'unknown', path: null });
});

test('round trip where no folder name holds a dash', () => {
  for (const p of ['/home/ann/a/b', '/tmp/q', '/srv/x/y']) {
    assert.equal(decodeCwd(encodeCwd(p, opts), opts).path, p);
  }
});

test('cwdDirNames lists the new form and the legacy one', () => {
  assert.deepEqual(cwdDirNames('/home/ann/p', opts), ['-p', '--home-ann-p--']);
  assert.deepEqual(cwdDirNames('/srv/p', opts), ['--srv-p--']);
});
