// The Markdown of the context at a leaf (issue 13, "Export Context as Markdown…", omp's /dump):
// what the model sees, roles as headings, tool calls as fenced blocks, images as notes.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { contextMarkdown, fenced } from '../../src/core/export/contextMarkdown';
import { openSessionModel } from '../../src/core/engine/openModel';
import { openSessionDocument } from '../reference/document';
import { fixture } from '../helpers/fixtures';

const T = '2026-01-01T00:00:00.000Z';
const line = (o: unknown): string => JSON.stringify(o);

/** The numbered message headings of the export: "## 3. Assistant · …". */
const headings = (md: string): string[] => md.split('\n').filter((l) => /^## \d+\. /.test(l));

function session(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sl-md-'));
  const file = join(dir, 's.jsonl');
  const ref = 'blob:sha256:' + 'cd'.repeat(32);
  writeFileSync(
    file,
    [
      line({ type: 'session', version: 3, id: 'mdsession', timestamp: T, cwd: '/w', title: 'Fix the `parser`' }),
      line({ type: 'message', id: 'u1', parentId: null, timestamp: T, message: { role: 'user', content: [{ type: 'text', text: 'Why does ```this``` fail?\n# not a heading of ours' }] } }),
      line({
        type: 'message',
        id: 'a1',
        parentId: 'u1',
        timestamp: T,
        message: {
          role: 'assistant',
          provider: 'anthropic',
          model: 'claude',
          usage: { input: 10, output: 5 },
          content: [
            { type: 'thinking', thinking: 'look at it\nclosely' },
            { type: 'toolCall', id: 'call1', name: 'read', arguments: { path: 'a.ts' } },
          ],
        },
      }),
      line({ type: 'message', id: 't1', parentId: 'a1', timestamp: T, message: { role: 'toolResult', toolCallId: 'call1', toolName: 'read', content: [{ type: 'text', text: 'line 1\n````\nline 3' }, { type: 'image', data: ref, mimeType: 'image/png' }] } }),
      line({ type: 'message', id: 'a2', parentId: 't1', timestamp: T, message: { role: 'assistant', provider: 'anthropic', model: 'claude', content: [{ type: 'text', text: 'Fixed.' }] } }),
      line({ type: 'message', id: 'b1', parentId: 'u1', timestamp: T, message: { role: 'assistant', provider: 'anthropic', model: 'claude', content: [{ type: 'text', text: 'other branch' }] } }),
      '',
    ].join('\n'),
  );
  return file;
}

test('the Markdown has one numbered heading per message the model sees, in order, with roles named', async () => {
  const model = await openSessionModel(session());
  const md = await contextMarkdown(model, 'a2');
  assert.deepEqual(
    headings(md).map((h) => h.replace(/ ·.*$/, '')),
    ['## 1. User', '## 2. Assistant', '## 3. Tool result', '## 4. Assistant'],
  );
  assert.match(md, /^# Fix the \\`parser\\`$/m, 'the title is text, its backticks escaped');
  assert.match(md, /\*\*Tool call\*\* `read` \(`call1`\)\n\n```json\n\{\n {2}"path": "a\.ts"\n\}\n```/);
  assert.match(md, /> \*\*Thinking\*\*\n>\n> look at it\n> closely/);
  assert.match(md, /_\[image\/png image not embedded: blob sha256:(cd){32}\]_/);
  assert.doesNotMatch(md, /other branch/, 'only the path to the leaf');
  model.dispose();
});

test('a tool output with a backtick fence inside cannot close its block early', async () => {
  const md = await contextMarkdown(await openSessionModel(session()), 't1');
  assert.ok(md.includes('`````text\nline 1\n````\nline 3\n`````'), md);
  assert.equal(fenced('a ``` b'), '````\na ``` b\n````');
});

test('the default leaf is the last entry in file order, as in the CLI context', async () => {
  const file = session();
  const model = await openSessionModel(file);
  assert.deepEqual(headings(await contextMarkdown(model)).length, 2, 'b1 is last: user + the other branch');
  model.dispose();
});

test('the Markdown of a real session has exactly as many message headings as its context has messages (v1, compaction)', async () => {
  for (const f of [fixture('upstream-full', 'pi-before-compaction.jsonl'), fixture('upstream-full', 'pi-session.jsonl')]) {
    const doc = await openSessionDocument(f);
    const model = await openSessionModel(f);
    const md = await contextMarkdown(model);
    assert.equal(headings(md).length, doc.context().messages.length, f);
    assert.match(md, /Compaction `[0-9a-f]{8}`: \d+ entries not sent, summarised/);
    assert.match(headings(md)[0]!, /^## 1\. Compaction summary/);
    model.dispose();
  }
});

test('a deepseek-harness log exports through the same model (its context, not an error)', async () => {
  const f = fixture('dsh', 'dsh-compaction-recovery.session.jsonl');
  const model = await openSessionModel(f);
  const ctx = await model.context(await model.defaultLeaf());
  const md = await contextMarkdown(model);
  assert.equal(headings(md).length, ctx.messageCount);
  assert.ok(ctx.messageCount > 0);
  model.dispose();
});
