// The Sessions view draws a session's tooltip, diagnostic rows and "repairable" flag from the
// model's summary (issue 11: the view no longer parses the file on the extension host). The
// summary must say exactly what the view computed from the parsed document before: the usages'
// own token total, the diagnostics worth a row (all but `info`) and whether a repair fixes lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { severityOf } from '../../src/core/diagnostics';
import { openSessionDocument } from '../reference/document';
import { XcshModel } from '../reference/xcshModel';
import { openSessionModel } from '../../src/core/engine/openModel';
import { fixtureFiles } from '../helpers/fixtures';

/** The view's own rule before (src/extension/sessions/documents.ts isRepairable). */
const REPAIRABLE = new Set(['invalid-json', 'glued-records', 'torn-tail', 'torn-record', 'multi-line-record', 'too-deep', 'not-an-object', 'no-header', 'invalid-header', 'invalid-entry']);

async function check(file: string): Promise<void> {
  const doc = await openSessionDocument(file);
  const stats = doc.stats();
  const problems = doc.diagnostics.filter((d) => severityOf(d.kind) !== 'info');
  // Both the reference and the engine's model.
  for (const eager of [true, false]) {
    const model = eager ? await XcshModel.open(file) : await openSessionModel(file);
    const s = await model.summary();
    model.dispose();
    const what = `${file} (${eager ? 'eager' : 'default'} model)`;
    assert.equal(s.totals.tokensTotal, stats.tokens.total, `token total of ${what}`);
    assert.equal(s.entryCount, stats.entries, what);
    assert.equal(s.problemCount, problems.length, `problem count of ${what}`);
    assert.deepEqual(
      s.problems,
      problems.slice(0, 100).map((d) => ({ line: d.line, kind: d.kind, severity: severityOf(d.kind), message: d.message, ...(d.entryId !== undefined ? { entryId: d.entryId } : {}) })),
      `problems of ${what}`,
    );
    assert.equal(s.repairable, doc.loaded.diagnostics.some((d) => REPAIRABLE.has(d.kind)), `repairable of ${what}`);
  }
}

test('the summary gives the Sessions view its tooltip token total, diagnostic rows and repairable flag as the parsed document did (real fixtures, v1 and v3)', async () => {
  for (const file of [...fixtureFiles('real-v3'), ...fixtureFiles('upstream')]) await check(file);
});

test('the summary of a damaged v3 session (a glued record, an unreadable line, a torn tail) lists its problems and is repairable', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-summary-'));
  const file = join(dir, 'damaged.jsonl');
  const lines = readFileSync(fixtureFiles('real-v3')[0]!, 'utf8').trimEnd().split('\n');
  // Glue lines 2 and 3, add an unreadable line and end on a torn fragment.
  const damaged = [lines[0], lines[1]! + lines[2]!, ...lines.slice(3), '{not json', '{"type":"message","id":"torn'].join('\n');
  writeFileSync(file, damaged);
  await check(file);
  const model = await openSessionModel(file);
  const s = await model.summary();
  model.dispose();
  assert.equal(s.repairable, true);
  assert.ok((s.problemCount ?? 0) >= 2, JSON.stringify(s.problems));
});
