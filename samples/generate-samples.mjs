// Regenerates the hand-written sample sessions the integration tests use (run from the repository
// root: node samples/generate-samples.mjs). The demo's sessions are built by samples/demo/world.mjs.
// The demo session shows a branch, a label, a compaction, tool calls with results (one an error),
// an inline image and a blob reference whose blob is absent; the XSS session carries script
// payloads in every field that reaches the screen (the editor must render them as inert text).
import { mkdirSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { createHash } from 'node:crypto';

// a tiny 24x16 PNG (two-colour stripes), generated, stays inline (< 1024 base64 chars)
function png(w, h) {
  const crcTable = Array.from({ length: 256 }, (_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
  const crc = (buf) => { let c = 0xffffffff; for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
  const chunk = (type, data) => { const len = Buffer.alloc(4); len.writeUInt32BE(data.length); const td = Buffer.concat([Buffer.from(type), data]); const c = Buffer.alloc(4); c.writeUInt32BE(crc(td)); return Buffer.concat([len, td, c]); };
  const ihdr = Buffer.alloc(13); ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 2;
  const rows = [];
  for (let y = 0; y < h; y++) { const r = [0]; for (let x = 0; x < w; x++) { const on = ((x >> 2) + (y >> 2)) % 2 === 0; r.push(on ? 0x3b : 0xf0, on ? 0x82 : 0xa0, on ? 0xf6 : 0x30); } rows.push(Buffer.from(r)); }
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}
const inlinePng = png(24, 16).toString('base64');
const missingHash = createHash('sha256').update('session-loom demo: this blob is deliberately absent').digest('hex');

let t = Date.parse('2026-03-01T09:00:00.000Z');
const ts = (s = 7) => { t += s * 1000; return new Date(t).toISOString(); };
const usage = (i, o, cr = 0, cw = 0) => ({ input: i, output: o, cacheRead: cr, cacheWrite: cw, totalTokens: i + o + cr + cw, cost: { input: i * 3e-6, output: o * 15e-6, cacheRead: cr * 3e-7, cacheWrite: cw * 3.75e-6, total: i * 3e-6 + o * 15e-6 + cr * 3e-7 + cw * 3.75e-6 } });
const asst = (content, stopReason = 'stop', u = usage(1200, 180, 9000, 400)) => ({ role: 'assistant', provider: 'anthropic', model: 'claude-sonnet-4-5', api: 'anthropic-messages', content, usage: u, stopReason, timestamp: t });

function session(header, list) {
  return [header, ...list].map((x) => JSON.stringify(x)).join('\n') + '\n';
}
const E = (id, parentId, type, fields) => ({ type, id, parentId, timestamp: ts(), ...fields });
const msg = (id, parentId, message) => { const e = E(id, parentId, 'message', {}); e.message = { ...message, timestamp: Date.parse(e.timestamp) }; return e; };

// ---------- demo: branch, label, compaction, tool calls with results, images ----------
const demo = [
  E('a1000001', null, 'model_change', { model: 'anthropic/claude-sonnet-4-5' }),
  E('a1000002', 'a1000001', 'thinking_level_change', { thinkingLevel: 'medium' }),
  msg('a1000003', 'a1000002', { role: 'user', content: [{ type: 'text', text: 'Add a `--json` flag to the `report` command so CI can parse its output.' }] }),
  msg('a1000004', 'a1000003', asst([
    { type: 'thinking', thinking: 'The report command lives in src/cli/report.ts. I should read it first, then add the flag and a test.' },
    { type: 'text', text: "I'll look at the command first." },
    { type: 'toolCall', id: 'call_read_1', name: 'read', arguments: { path: 'src/cli/report.ts' } },
  ], 'toolUse')),
  msg('a1000005', 'a1000004', { role: 'toolResult', toolCallId: 'call_read_1', toolName: 'read', content: [{ type: 'text', text: "export function report(args: string[]) {\n  const rows = collect();\n  for (const r of rows) console.log(`${r.name}\\t${r.total}`);\n}\n" }], isError: false }),
  msg('a1000006', 'a1000005', asst([{ type: 'toolCall', id: 'call_bash_1', name: 'bash', arguments: { command: 'npm test -- report' } }], 'toolUse')),
  msg('a1000007', 'a1000006', { role: 'toolResult', toolCallId: 'call_bash_1', toolName: 'bash', content: [{ type: 'text', text: '1 failing\n\n  report prints json\n    AssertionError: expected output to be valid JSON\n      at test/report.test.ts:14:12' }], isError: true }),
  msg('a1000008', 'a1000007', asst([
    { type: 'text', text: 'The new test fails as expected. Adding the flag:' },
    { type: 'toolCall', id: 'call_edit_1', name: 'edit', arguments: { path: 'src/cli/report.ts', oldText: 'for (const r of rows)', newText: "if (args.includes('--json')) return console.log(JSON.stringify(rows));\n  for (const r of rows)" } },
  ], 'toolUse')),
  msg('a1000009', 'a1000008', { role: 'toolResult', toolCallId: 'call_edit_1', toolName: 'edit', content: [{ type: 'text', text: 'Applied 1 edit to src/cli/report.ts' }], isError: false }),
  // a branch from a1000009: the user tried another design first, then came back
  E('b2000001', 'a1000009', 'branch_summary', { fromId: 'a1000009', summary: 'Tried `--format json|tsv` instead of a boolean flag; abandoned because the CI script only needs JSON.' }),
  msg('b2000002', 'b2000001', { role: 'user', content: 'Actually, make it `--format json` instead.' }),
  msg('b2000003', 'b2000002', asst([{ type: 'text', text: 'Sure — `--format` takes `json` or `tsv` (the default).' }])),
  msg('b2000004', 'b2000003', { role: 'bashExecution', command: 'git status --short', output: ' M src/cli/report.ts\n?? test/report.test.ts\n', exitCode: 0, cancelled: false, truncated: false }),
  // back on the main line
  msg('a100000a', 'a1000009', { role: 'user', content: [{ type: 'text', text: 'Run it and show me a screenshot of the terminal.' }] }),
  msg('a100000b', 'a100000a', asst([{ type: 'toolCall', id: 'call_shot_1', name: 'screenshot', arguments: { target: 'terminal' } }], 'toolUse')),
  msg('a100000c', 'a100000b', { role: 'toolResult', toolCallId: 'call_shot_1', toolName: 'screenshot', content: [
    { type: 'text', text: 'Captured the terminal (inline image) and the full window (externalised to the blob store).' },
    { type: 'image', mimeType: 'image/png', data: inlinePng },
    { type: 'image', mimeType: 'image/png', data: `blob:sha256:${missingHash}` },
  ], isError: false }),
  E('a100000d', 'a100000c', 'custom_message', { customType: 'lint-report', display: false, content: 'eslint: 0 problems in 42 files.', details: { files: 42, problems: 0 } }),
  E('a100000e', 'a100000d', 'compaction', {
    summary: '## Goal\nAdd a `--json` flag to `report`.\n\n## Done\n- read `src/cli/report.ts`\n- a failing test, then the flag (`JSON.stringify(rows)`)\n\n## Next\n- show the output, then document the flag',
    shortSummary: 'Added --json to report; test was red, now green.',
    firstKeptEntryId: 'a100000a',
    tokensBefore: 48213,
  }),
  msg('a100000f', 'a100000e', { role: 'user', content: 'Great. Now document the flag in the README.' }),
  E('a1000010', 'a100000f', 'mode_change', { mode: 'plan', data: { planFile: '/demo/project/.plans/docs.md' } }),
  E('a1000011', 'a1000010', 'ttsr_injection', { injectedRules: ['docs-style: use sentence case headings'] }),
  msg('a1000012', 'a1000011', asst([{ type: 'text', text: 'Plan:\n1. Add a **Flags** section to `README.md`.\n2. Show `report --json | jq` as an example.' }], 'stop', usage(800, 120, 21000, 0))),
  E('a1000013', 'a1000012', 'label', { targetId: 'a100000f', label: 'docs' }),
];
writeFileSync('samples/sessions/--demo-project--/2026-03-01T09-00-00-000Z_5d1e0c0ffee00001.jsonl',
  session({ type: 'session', version: 3, id: '5d1e0c0ffee00001', timestamp: '2026-03-01T09:00:00.000Z', cwd: '/demo/project', title: 'Add --json to report' }, demo));

// ---------- a subagent of the demo session (Part B §13): <parent file without .jsonl>/<id>.jsonl ----------
// It starts with session_init (the subagent's system prompt, task and tools). Its header's
// parentSession is an opaque lineage marker (here the parent's id); the folder is what links them.
t = Date.parse('2026-03-01T09:01:10.000Z');
const demoFile = 'samples/sessions/--demo-project--/2026-03-01T09-00-00-000Z_5d1e0c0ffee00001.jsonl';
const subId = '5d1e0c0ffee0a9e1';
const subTask = 'Find every caller of `report()` and say whether any of them parses its output.';
const sub = [
  E('d4000001', null, 'session_init', {
    systemPrompt: 'You are a code-search subagent. Answer the task with file paths and line numbers; never edit files.',
    task: subTask,
    tools: ['read', 'grep', 'find'],
  }),
  msg('d4000002', 'd4000001', { role: 'user', content: [{ type: 'text', text: subTask }] }),
  msg('d4000003', 'd4000002', asst([
    { type: 'text', text: 'Searching for callers.' },
    { type: 'toolCall', id: 'call_grep_1', name: 'grep', arguments: { pattern: 'report\\(', path: 'src' } },
  ], 'toolUse', usage(600, 60, 3000, 0))),
  msg('d4000004', 'd4000003', { role: 'toolResult', toolCallId: 'call_grep_1', toolName: 'grep', content: [{ type: 'text', text: 'src/cli/main.ts:31:    case \'report\': return report(argv);\nscripts/ci.sh:12:node dist/cli.js report > report.tsv' }], isError: false }),
  msg('d4000005', 'd4000004', asst([{ type: 'text', text: 'Two callers: `src/cli/main.ts:31` (dispatch only) and `scripts/ci.sh:12`, which saves the TSV output but never parses it.' }], 'stop', usage(700, 90, 3600, 0))),
];
mkdirSync(demoFile.replace(/\.jsonl$/, ''), { recursive: true });
writeFileSync(`${demoFile.replace(/\.jsonl$/, '')}/${subId}.jsonl`,
  session({ type: 'session', version: 3, id: subId, timestamp: '2026-03-01T09:01:10.000Z', cwd: '/demo/project', parentSession: '5d1e0c0ffee00001' }, sub));

// ---------- XSS: every place session text reaches the screen carries a payload ----------
t = Date.parse('2026-03-02T10:00:00.000Z');
const fire = (tag) => `document.body.setAttribute('data-xss','${tag}')`;
const xss = [
  msg('c3000001', null, { role: 'user', content: [{ type: 'text', text: `Render this: <script>${fire('script')}</script>\n\nand this: <img src=x onerror="${fire('img')}">\n\n[click me](javascript:${encodeURIComponent(fire('link'))})\n\n<a href="javascript:${fire('a')}">raw link</a> <iframe src="javascript:${fire('iframe')}"></iframe>` }] }),
  msg('c3000002', 'c3000001', asst([
    { type: 'thinking', thinking: `<img src=x onerror="${fire('thinking')}">` },
    { type: 'text', text: `Here: <svg onload="${fire('svg')}"></svg> <style>body{display:none}</style>` },
    { type: 'toolCall', id: 'call_x1', name: `<img src=x onerror="${fire('toolname')}">`, arguments: { html: `<script>${fire('args')}</script>` } },
  ], 'toolUse')),
  msg('c3000003', 'c3000002', { role: 'toolResult', toolCallId: 'call_x1', toolName: `<b onmouseover="${fire('toolResultName')}">x</b>`, content: [
    { type: 'text', text: `<img src=x onerror="${fire('toolResult')}">` },
    { type: 'image', mimeType: 'image/svg+xml', data: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" onload="${fire('svgimage')}"/>`).toString('base64') },
  ], isError: true }),
  E('c3000004', 'c3000003', 'custom_message', { customType: `<img src=x onerror="${fire('customType')}">`, display: true, content: `<script>${fire('custom')}</script>` }),
  E('c3000005', 'c3000004', 'label', { targetId: 'c3000001', label: `<img src=x onerror="${fire('label')}">` }),
];
writeFileSync('samples/sessions/--demo-xss--/2026-03-02T10-00-00-000Z_5d1e0c0ffee0dead.jsonl',
  session({ type: 'session', version: 3, id: '5d1e0c0ffee0dead', timestamp: '2026-03-02T10:00:00.000Z', cwd: `/demo/<img src=x onerror="${fire('cwd')}">`, title: `XSS <script>${fire('title')}</script> sample` }, xss));
console.log(inlinePng.length, missingHash);
