// Property-generated v3 session files with every damage the reader tolerates that keeps a file
// in the lazy scope (glued records, torn tails, CRLF, BOM, unreadable lines, the oh-my-pi title
// line, multi-line records, duplicate ids, orphans, compactions incl. remote ones; issue 22: text
// after a record, a pretty-printed record glued to its neighbours, a BOM starting a later line,
// timestamps of null / true, wrongly typed fields): the lazy
// model's contract tests and the CLI's lazy-vs-eager output tests draw from the same sessions.
import fc from 'fast-check';

const text = fc.constantFrom('', '  ', 'hello world', 'read the file', '/mode plan', 'fix tests\nand more', 'Ünïcödé ✓', 'x'.repeat(300));
const content = fc.oneof(
  text,
  fc.array(
    fc.oneof(
      text.map((t) => ({ type: 'text', text: t })),
      text.map((t) => ({ type: 'thinking', thinking: t, thinkingSignature: 'sig' })),
      fc.constantFrom('c1', 'c2', 'c3').map((id) => ({ type: 'toolCall', id, name: 'read', arguments: { path: `/p/${id}` } })),
      fc.constant({ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }),
    ),
    { maxLength: 3 },
  ),
);
const message = fc.oneof(
  content.map((c) => ({ role: 'user', content: c })),
  fc.record({ content, stop: fc.constantFrom('stop', 'toolUse', 'error', 'aborted'), m: fc.constantFrom('m1', 'm2') }).map(({ content: c, stop, m }) => ({ role: 'assistant', content: c, provider: 'p', model: m, stopReason: stop, usage: { input: 3, output: 5, cost: { total: 0.01 } } })),
  fc.record({ call: fc.constantFrom('c1', 'c2', 'c3'), err: fc.boolean(), c: content }).map(({ call, err, c }) => ({ role: 'toolResult', toolCallId: call, toolName: 'read', isError: err, content: c })),
  fc.constant({ role: 'bashExecution', command: 'ls', output: 'a b', exitCode: 1 }),
  fc.constant({ role: 'assistant', content: [], provider: 'openai', model: 'o', stopReason: 'stop', providerPayload: { type: 'openaiResponsesHistory', items: [] } }),
);
const body = fc.oneof(
  { weight: 6, arbitrary: message.map((m) => ({ type: 'message', message: m })) },
  { weight: 1, arbitrary: fc.record({ target: fc.constant('@ref'), label: fc.option(fc.constantFrom('keep', 'bug', ''), { nil: undefined }) }).map(({ target, label }) => ({ type: 'label', targetId: target, ...(label !== undefined ? { label } : {}) })) },
  { weight: 1, arbitrary: fc.record({ kept: fc.option(fc.constant('@ref'), { nil: undefined }), remote: fc.boolean() }).map(({ kept, remote }) => ({ type: 'compaction', summary: 'so far', tokensBefore: 1234, ...(kept ? { firstKeptEntryId: kept } : {}), ...(remote ? { preserveData: { openaiRemoteCompaction: { provider: 'openai', replacementHistory: [{ a: 1 }] } } } : {}) })) },
  { weight: 1, arbitrary: content.map((c) => ({ type: 'custom_message', customType: 'note', content: c, display: false, details: { d: 1 } })) },
  { weight: 1, arbitrary: fc.constantFrom('', 'went elsewhere').map((s) => ({ type: 'branch_summary', summary: s, fromId: 'b0000000' })) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('high', 'low', true).map((l) => ({ type: 'thinking_level_change', thinkingLevel: l })) },
  { weight: 1, arbitrary: fc.constantFrom('default', 'smol').map((r) => ({ type: 'model_change', model: `p/${r}-model`, role: r })) },
  { weight: 1, arbitrary: fc.constant({ type: 'ttsr_injection', injectedRules: ['r1', 'r2'] }) },
  { weight: 1, arbitrary: fc.constantFrom<Record<string, unknown>>({ type: 'mode_change', mode: 'plan', data: { step: 1 } }, { type: 'mode_change', data: { step: 2 } }) },
  { weight: 1, arbitrary: fc.constant({ type: 'session_info', name: 'named' }) },
);
const entryArb = fc.record({
  /** A fresh id, or (rarely) one used before: a duplicate the tree sets aside. */
  dup: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  /** Which earlier entry a parent, label target or kept id names. */
  ref: fc.nat(),
  /** Mostly the entry before (long paths, so compactions keep and calls pair), else a branch, a root or an orphan. */
  parent: fc.oneof({ weight: 8, arbitrary: fc.constant('prev') }, { weight: 2, arbitrary: fc.constant('@ref') }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constant('gone') }),
  ts: fc.oneof(fc.constant('2026-01-01T00:00:00.000Z'), fc.constant(1767225600000), fc.constantFrom<unknown>(null, true)),
  body,
  /**
   * How the record is written: plainly, glued to the next one, pretty-printed over lines (and the
   * next record glued to its closing `}`), followed by junk, by more text on its line, or with a
   * BOM before it.
   */
  shape: fc.constantFrom('plain', 'plain', 'plain', 'glued', 'pretty', 'pretty-glued', 'junk-after', 'text-after', 'bom-before'),
});
export type GeneratedFile = typeof fileArb extends fc.Arbitrary<infer T> ? T : never;
export const fileArb = fc.record({
  entries: fc.array(entryArb, { minLength: 1, maxLength: 60, size: 'medium' }),
  crlf: fc.boolean(),
  bom: fc.boolean(),
  title: fc.boolean(),
  tornTail: fc.boolean(),
  typeless: fc.boolean(),
});

export function renderFile(f: GeneratedFile): string {
  const eol = f.crlf ? '\r\n' : '\n';
  const lines: string[] = [];
  if (f.title) lines.push(JSON.stringify({ type: 'title', title: 'titled session'.padEnd(40) }));
  lines.push(JSON.stringify({ type: 'session', version: 3, id: 'sess', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w', ...(f.title ? {} : { title: 'header title' }) }));
  let glue = '';
  let prev: string | null = null;
  const ids: string[] = [];
  for (const [k, e] of f.entries.entries()) {
    const ref = ids.length === 0 ? 'nothing-yet' : ids[e.ref % ids.length]!;
    const id = e.dup && ids.length > 0 ? ref : `b${k.toString(16).padStart(7, '0')}`;
    const body = JSON.parse(JSON.stringify(e.body).replaceAll('"@ref"', JSON.stringify(ref))) as Record<string, unknown>;
    const rec = { ...body, id, parentId: e.parent === 'prev' ? prev : e.parent === '@ref' ? ref : e.parent, timestamp: e.ts };
    prev = id;
    ids.push(id);
    if (e.shape === 'glued') {
      glue += JSON.stringify(rec);
      continue;
    }
    if (e.shape === 'pretty-glued') {
      glue += JSON.stringify(rec, null, 1).split('\n').join(eol);
      continue;
    }
    const text = e.shape === 'pretty' ? JSON.stringify(rec, null, 1) : JSON.stringify(rec);
    lines.push((e.shape === 'bom-before' ? '\ufeff' : '') + glue + (e.shape === 'pretty' ? text.split('\n').join(eol) : text) + (e.shape === 'text-after' ? ' 7' : ''));
    glue = '';
    if (e.shape === 'junk-after') lines.push('not json at all', '');
  }
  if (glue) lines.push(glue);
  if (f.typeless) lines.push(JSON.stringify({ id: 'untyped', note: 'no type' }));
  let out = (f.bom ? '\ufeff' : '') + lines.join(eol) + eol;
  if (f.tornTail) out += '{"type":"message","id":"torn","mess';
  return out;
}
