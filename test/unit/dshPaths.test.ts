import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { dshHome, dshSessionsRoot } from '../../src/core/formats/dsh/index';
import { dshLogPath, encodeSegment, projectKey } from '../reference/dshPaths';

test('projectKey: the three examples of dsh-format.md §1', () => {
  assert.equal(projectKey('/Users/qyj/work/deepseek-harness'), '--Users-qyj-work-deepseek-harness--');
  assert.equal(projectKey('C:\\work\\agent'), '--C-work-agent--');
  assert.equal(projectKey('/'), '--root--');
});

test('projectKey: a run of separators is one "-", ~ and other units escape as ~XXXX, 251-character cut', () => {
  assert.equal(projectKey('/a//b\\:c'), '--a-b-c--');
  assert.equal(projectKey('/home/~me/é'), '--home-~007Eme-~00E9--');
  const long = projectKey('/' + 'x'.repeat(400));
  assert.equal(long, `--${'x'.repeat(251)}--`);
});

test('projectKey is lossy as the spec says: /a/b-c and /a-b/c share a directory', () => {
  assert.equal(projectKey('/a/b-c'), projectKey('/a-b/c'));
});

test('encodeSegment: UUIDs and sdk-snapshot-bash pass unchanged; . and .. escape whole; ~ / and others escape', () => {
  assert.equal(encodeSegment('ff1c1e99-3bd4-4ef8-a954-80d607d628ba'), 'ff1c1e99-3bd4-4ef8-a954-80d607d628ba');
  assert.equal(encodeSegment('sdk-snapshot-bash'), 'sdk-snapshot-bash');
  assert.equal(encodeSegment('.'), '~002E');
  assert.equal(encodeSegment('..'), '~002E~002E');
  assert.equal(encodeSegment('a/b'), 'a~002Fb');
  assert.equal(encodeSegment('~'), '~007E');
  assert.equal(encodeSegment('{{sessionId}}'), '~007B~007BsessionId~007D~007D');
  assert.throws(() => encodeSegment(''));
});

test('encodeSegment is injective over UTF-16 code units, lone surrogates included', () => {
  const ids = ['a~002Fb', 'a/b', '\ud800', '\udc00', '.', '~002E', '..', '.a'];
  assert.equal(new Set(ids.map(encodeSegment)).size, ids.length);
});

test('the dsh home is $DSH_HOME when non-blank, else ~/.dsh; sessions live under it', () => {
  assert.equal(dshHome({ DSH_HOME: '/opt/dsh' }, '/home/u'), '/opt/dsh');
  assert.equal(dshHome({ DSH_HOME: '  ' }, '/home/u'), join('/home/u', '.dsh'));
  assert.equal(dshHome({}, '/home/u'), join('/home/u', '.dsh'));
  assert.equal(dshSessionsRoot({}, '/home/u'), join('/home/u', '.dsh', 'sessions'));
});

test('dshLogPath: <root>/--projectKey--/<encodeSegment(id)>/session.jsonl[.zstd], _no-cwd without a cwd', () => {
  assert.equal(dshLogPath('/r', '/w/p', 'id1'), join('/r', '--w-p--', 'id1', 'session.jsonl.zstd'));
  assert.equal(dshLogPath('/r', undefined, '..', 'raw'), join('/r', '_no-cwd', '~002E~002E', 'session.jsonl'));
});
