// How a Sessions row opens the session editor (issue 14, point 1): the Explorer's rules, read from
// what a row command sees (see src/extension/sessions/openGesture.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DOUBLE_CLICK_MS, OpenGesture, showOptionsOf } from '../../src/extension/sessions/openGesture';

test('a single click opens a preview that keeps the focus in the view', () => {
  const g = new OpenGesture();
  assert.equal(g.decide('a', 1000), 'preview');
  assert.deepEqual(showOptionsOf('preview'), { preview: true, preserveFocus: true });
});

test('the second run on the same row within the double-click time pins (VS Code runs the command on both clicks)', () => {
  const g = new OpenGesture();
  assert.equal(g.decide('a', 1000), 'preview');
  assert.equal(g.decide('a', 1000 + DOUBLE_CLICK_MS), 'pinned');
  assert.deepEqual(showOptionsOf('pinned'), { preview: false, preserveFocus: false });
  // The double click is over: the next click is a single one again.
  assert.equal(g.decide('a', 1000 + DOUBLE_CLICK_MS + 10), 'preview');
});

test('two slow clicks, or quick clicks on two rows, stay previews', () => {
  const g = new OpenGesture();
  assert.equal(g.decide('a', 0), 'preview');
  assert.equal(g.decide('a', DOUBLE_CLICK_MS + 1), 'preview');
  assert.equal(g.decide('b', DOUBLE_CLICK_MS + 50), 'preview');
});

test('Enter pins the open it triggers, once', () => {
  const g = new OpenGesture();
  g.keyboard(5000);
  assert.equal(g.decide('a', 5100), 'pinned');
  assert.equal(g.decide('b', 5200), 'preview');
  g.keyboard(9000);
  assert.equal(g.decide('a', 11_000), 'preview', 'an Enter on a row without a command does not pin a later click');
});
