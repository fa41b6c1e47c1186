// The text the editor's page and the HTML export put inside <script> and <style> elements: it must
// never end the element early, and must mean the same to the JS or CSS parser.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { inlineScript, inlineStyle, jsonScriptText } from '../../src/core/inlineHtml';

test('an inline script cannot close its element or open a comment, and runs the same', () => {
  const js = 'globalThis.__out = ["</script><b>x</b>", "</SCRIPT>", "<!-- c -->"];';
  const inline = inlineScript(js);
  assert.doesNotMatch(inline, /<\/script/i);
  assert.doesNotMatch(inline, /<!--/);
  new Function(inline)();
  assert.deepEqual((globalThis as { __out?: unknown }).__out, ['</script><b>x</b>', '</SCRIPT>', '<!-- c -->']);
});

test('an inline stylesheet cannot close its element', () => {
  const css = '.a::after { content: "</style><script>alert(1)</script>"; }';
  const inline = inlineStyle(css);
  assert.doesNotMatch(inline, /<\/style/i);
  assert.match(inline, /<\\\/style>/);
});

test('a JSON data block has no <, >, & or line separators raw, and parses back unchanged', () => {
  const value = { s: '</script><!-- & \u2028 \u2029' };
  const text = jsonScriptText(value);
  assert.doesNotMatch(text, /[<>&\u2028\u2029]/);
  assert.deepEqual(JSON.parse(text), value);
});
