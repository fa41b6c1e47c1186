// The Codex rollout reader over every real fixture (test/fixtures/codex/README.md states the facts
// checked here) and over synthetic files for what the fixtures lack: the bare era, damage, the
// zstd-compressed form and live appends (codex-format.md Part A, B.1, Part C).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { appendFileSync, writeFileSync } from 'node:fs';
import {
  factsOfRollout,
  isCodexRollout,
  isRealUserMessage,
  loadCodexRollout,
  normalizeForModel,
  readCodexAppend,
  readCodexRolloutBytes,
  readRolloutFacts,
  replayRollout,
  sniffCodexRollout,
  codexFirstLine,
  CODEX_ZSTD_SNIFF_BYTES,
  type CodexRecord,
  type CodexRollout,
} from '../../src/core/formats/codex/index';
import { recordLimits } from '../../src/core/formats/xcsh/lineParser';
import { fixture } from '../helpers/fixtures';
import { zstdFrame } from '../helpers/dshBuild';
import { assistant, call, item, meta, output, rolloutText, tempDir, turnContext, user, writeRollout } from '../helpers/codexBuild';

const F1 = fixture('codex', 'agentcmd', 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl');
const F2 = fixture('codex', 'agentcmd', 'rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl');
const F3 = fixture('codex', 'agent-history', 'session-01.jsonl');

type Obj = Record<string, unknown>;
const payloadType = (r: CodexRecord): string => String((r.payload as Obj).type);
const count = (records: readonly CodexRecord[], type: string, sub?: string): number => records.filter((r) => r.type === type && (sub === undefined || payloadType(r) === sub)).length;

/** The replayed, normalised history counted by kind: the README's breakdown. */
function breakdown(r: CodexRollout): Record<string, number> {
  const items = normalizeForModel(replayRollout(r.records).history, { imageInput: true });
  const out: Record<string, number> = {};
  for (const h of items) {
    const it = h.item;
    const k = it.type === 'message' ? (it.role === 'user' ? (isRealUserMessage(it) ? 'user' : 'contextual') : String(it.role)) : String(it.type);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

test('fixture …20-12-23 (0.40.0): 112 lines, the session_meta facts, 18 turn_contexts with sandbox_policy.mode (README)', async () => {
  const r = await loadCodexRollout(F1);
  assert.equal(r.records.length, 112);
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.era, 'envelope');
  assert.equal(r.encoding, 'jsonl');
  assert.deepEqual(r.meta, {
    line: 1,
    id: '01997ea4-a70d-7da3-8c20-c736db82a7c5',
    timestamp: '2025-09-25T02:12:23.949Z',
    cwd: '/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2',
    originator: 'codex_vscode',
    cliVersion: '0.40.0',
    source: null,
    modelProvider: null,
    instructions: null,
    baseInstructions: null,
    git: { commitHash: '9d356847d46ece3a0bbd3bd64eef89afc78dae74', branch: 'feat/dashboard-refactor', repositoryUrl: 'git@github.com:spectorasoftware/spectora-labs-monorepo-v2.git' },
    forkedFromId: null,
    parentThreadId: null,
    threadSource: null,
    historyMode: null,
  });
  const tcs = r.records.filter((x) => x.type === 'turn_context');
  assert.equal(tcs.length, 18);
  for (const tc of tcs) assert.deepEqual((tc.payload as Obj).sandbox_policy, { mode: 'danger-full-access' });
  // the VS Code wrapper is in the user_message event, with `kind`
  const ev = r.records.filter((x) => x.type === 'event_msg' && payloadType(x) === 'user_message');
  assert.equal(ev.length, 2);
  assert.equal((ev[0]!.payload as Obj).kind, 'plain');
  assert.ok(String((ev[0]!.payload as Obj).message).startsWith('# Context from my IDE setup:'));
  // the flat 0.40 rate_limits shape
  const tok = r.records.find((x) => x.type === 'event_msg' && payloadType(x) === 'token_count')!;
  assert.equal(((tok.payload as Obj).rate_limits as Obj).primary_used_percent, 35);
});

test('fixture …20-12-23: the replay (B.2) gives 54 API items: 1 contextual + 2 real user messages, 17 reasoning, 16 calls, 16 outputs, 2 assistant messages; B.4 adds nothing', async () => {
  const r = await loadCodexRollout(F1);
  const replayed = replayRollout(r.records).history;
  assert.equal(replayed.length, 54);
  assert.equal(normalizeForModel(replayed, { imageInput: true }).length, 54);
  assert.deepEqual(breakdown(r), { contextual: 1, user: 2, reasoning: 17, function_call: 16, function_call_output: 16, assistant: 2 });
  // every item is a record of the file, in file order
  assert.deepEqual(
    replayed.map((h) => h.id).slice(0, 5),
    ['L2', 'L3', 'L8', 'L9', 'L10'],
  );
  // function_call arguments are a JSON string; the 0.40 output is JSON in a string
  const firstCall = replayed[3]!.item;
  assert.equal(typeof firstCall.arguments, 'string');
  assert.deepEqual((JSON.parse(firstCall.arguments as string) as Obj).command, ['bash', '-lc', "cd /Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2 && sed -n '1,200p' apps/spectora-labs/src/app/(protected)/settings/teams/hooks/useTeamWithStats.ts"]);
  const out = JSON.parse(replayed[4]!.item.output as string) as { metadata: Obj };
  assert.deepEqual(out.metadata, { exit_code: 2, duration_seconds: 0 });
  // reasoning items carry a summary and opaque encrypted_content, no raw content
  const reasonings = replayed.filter((h) => h.item.type === 'reasoning').map((h) => h.item);
  assert.equal(reasonings.length, 17);
  for (const x of reasonings) {
    assert.equal((x.summary as Obj[])[0]!.type, 'summary_text');
    assert.equal(x.content, null);
    assert.ok(typeof x.encrypted_content === 'string' && (x.encrypted_content as string).startsWith('gAAAAA'));
  }
  // no tool output is flagged: the largest one of this 0.40 file is below the 10 KiB mark
  assert.equal(replayed.filter((h) => h.mayBeTruncated).length, 0);
});

test('fixture …15-12-14: 209 lines, one long turn of 34 calls/outputs, 33 reasoning items vs 32 agent_reasoning events — the replay counts response items (README)', async () => {
  const r = await loadCodexRollout(F2);
  assert.equal(r.records.length, 209);
  assert.deepEqual(r.diagnostics, []);
  assert.equal(count(r.records, 'response_item', 'reasoning'), 33);
  assert.equal(count(r.records, 'event_msg', 'agent_reasoning'), 32);
  assert.equal(count(r.records, 'turn_context'), 35);
  assert.equal(r.records.filter((x) => x.type === 'response_item' && isRealUserMessage(x.payload as Obj)).length, 1);
  assert.deepEqual(breakdown(r), { contextual: 1, user: 1, reasoning: 33, function_call: 34, function_call_output: 34, assistant: 1 });
});

test('fixture agent-history/session-01 (0.135.0): base_instructions, thread_source, a developer message, task events and turn_context with turn_id (README)', async () => {
  const r = await loadCodexRollout(F3);
  assert.equal(r.records.length, 11);
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.meta?.baseInstructions, '[REDACTED_BASE_INSTRUCTIONS]');
  assert.equal(r.meta?.threadSource, 'user');
  assert.equal(r.meta?.source, 'exec');
  assert.equal(r.meta?.originator, 'codex_exec');
  assert.equal(r.meta?.modelProvider, 'openai');
  const turnId = '019e9625-806b-7343-9798-a7ca2de29a04';
  const started = r.records.find((x) => x.type === 'event_msg' && payloadType(x) === 'task_started')!;
  const done = r.records.find((x) => x.type === 'event_msg' && payloadType(x) === 'task_complete')!;
  assert.equal((started.payload as Obj).turn_id, turnId);
  assert.equal((done.payload as Obj).turn_id, turnId);
  const tc = r.records.find((x) => x.type === 'turn_context')!.payload as Obj;
  assert.equal(tc.turn_id, turnId);
  assert.equal(tc.personality, 'pragmatic');
  assert.equal((tc.permission_profile as Obj).type, 'managed');
  assert.equal((tc.collaboration_mode as Obj).mode, 'default');
  const replayed = replayRollout(r.records).history;
  assert.deepEqual(
    replayed.map((h) => `${String(h.item.role)}`),
    ['developer', 'user', 'user', 'assistant'],
  );
  assert.equal(replayed[3]!.item.phase, 'final_answer');
  assert.deepEqual(breakdown(r), { developer: 1, contextual: 1, user: 1, assistant: 1 });
  const tok = r.records.find((x) => x.type === 'event_msg' && payloadType(x) === 'token_count')!;
  assert.deepEqual(((tok.payload as Obj).rate_limits as Obj).primary, { used_percent: 15, window_minutes: 300, resets_at: 1780638395 });
});

test('isCodexRollout decides by the first record: every fixture, a bare-era session object; not xcsh, dsh or other JSON', () => {
  for (const f of [F1, F2, F3]) assert.equal(isCodexRollout(JSON.parse(readFileSync(f, 'utf8').split('\n')[0]!)), true, f);
  assert.equal(isCodexRollout({ id: 'a', timestamp: '2025-08-01T00:00:00Z', instructions: null, git: null }), true);
  assert.equal(isCodexRollout({ timestamp: '2025-08-01T00:00:00Z', type: 'turn_context', payload: { model: 'x' } }), true);
  assert.equal(isCodexRollout({ type: 'session', version: 3, id: 'x', timestamp: '2025-01-01T00:00:00Z', cwd: '/' }), false);
  assert.equal(isCodexRollout({ type: 'session', version: 0, id: 'x', createdAt: 1 }), false);
  assert.equal(isCodexRollout({ type: 'session_meta', payload: {} }), false);
  assert.equal(isCodexRollout({ id: 'a', timestamp: 'b' }), false);
  assert.equal(isCodexRollout([1, 2]), false);
  assert.equal(isCodexRollout('text'), false);
});

test('sniffCodexRollout: a head of a plain or zstd rollout, a first line longer than the window; not a dsh zstd log or an xcsh header', () => {
  const plain = readFileSync(F3);
  assert.equal(sniffCodexRollout(plain.subarray(0, 64 * 1024)), true);
  assert.equal(sniffCodexRollout(zstdFrame(plain, { check: false })), true);
  // a torn first frame: its first block is complete within CODEX_ZSTD_SNIFF_BYTES (a block never exceeds 128 KiB)
  const noise = randomBytes(300_000).toString('base64'); // an incompressible screenshot in the first prompt
  const big = zstdFrame(rolloutText([meta(), item({ type: 'message', role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${noise}` }] })]));
  assert.ok(big.length > CODEX_ZSTD_SNIFF_BYTES);
  assert.equal(sniffCodexRollout(big.subarray(0, 64 * 1024)), false);
  assert.equal(sniffCodexRollout(big.subarray(0, CODEX_ZSTD_SNIFF_BYTES)), true);
  // cut inside its first block, nothing decodes: not recognised (hence the larger window for zstd)
  assert.equal(sniffCodexRollout(big.subarray(0, 100)), false);
  // base instructions of 100 KB: the 64 KiB window ends inside line 1
  const longMeta = Buffer.from(rolloutText([meta({ base_instructions: { text: 'x'.repeat(100_000) } }), user('hi')]));
  assert.equal(sniffCodexRollout(longMeta.subarray(0, 64 * 1024)), true);
  assert.equal(sniffCodexRollout(zstdFrame(longMeta).subarray(0, 64 * 1024)), true);
  assert.equal(sniffCodexRollout(Buffer.from('{"type":"session","version":0,"id":"d","createdAt":1}\n')), false);
  assert.equal(sniffCodexRollout(zstdFrame('{"type":"session","version":0,"id":"d","createdAt":1}\n')), false);
  assert.equal(sniffCodexRollout(Buffer.from('{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n')), false);
  assert.equal(sniffCodexRollout(Buffer.from('{"timestamp":"2026-01-01T00:00:00Z","type":"message","id":"e1"')), false);
  assert.equal(codexFirstLine('{"id":"b","timestamp":"t","instructions":null}', true), true);
  assert.equal(sniffCodexRollout(Buffer.alloc(0)), false);
});

test('the bare era (unverified, 3p: no collected file has one): session object first, bare items, record_type:"state" sentinels', async () => {
  const text = [
    { id: 'bare-1', timestamp: '2025-08-20T10:00:00.000Z', instructions: 'be terse', git: { commit_hash: 'abc', branch: 'main' } },
    { record_type: 'state' },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n<cwd>/x</cwd>\n</environment_context>' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] },
    { record_type: 'state' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] },
  ]
    .map((x) => JSON.stringify(x))
    .join('\n');
  const r = await readCodexRolloutBytes(Buffer.from(text + '\n'));
  assert.equal(r.era, 'bare');
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(
    r.records.map((x) => `${x.line}:${x.type}`),
    ['1:session_meta', '2:state', '3:response_item', '4:response_item', '5:state', '6:response_item'],
  );
  assert.equal(r.meta?.id, 'bare-1');
  assert.equal(r.meta?.instructions, 'be terse');
  assert.equal(r.meta?.git?.commitHash, 'abc');
  assert.deepEqual(
    replayRollout(r.records).history.map((h) => h.id),
    ['L3', 'L4', 'L6'],
  );
});

test('damage: every bad line becomes a diagnostic naming its line, the read goes on (A.2: the CLI skips them)', async () => {
  const good = rolloutText([meta(), user('one')]);
  const text =
    good +
    'not json at all\n' + // 3
    '[1,2]\n' + // 4
    '\n\n\n' + // 5-7
    '{"no":"type"}\n' + // 8
    '{"timestamp":"2026-01-01T00:00:00Z","type":"future_thing","payload":{"a":1}}\n' + // 9
    '{"timestamp":"2026-01-01T00:00:00Z","type":"future_thing","payload":{"a":2}}\n' + // 10
    '{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"brand_new","x":1}}\r\n' + // 11 (CRLF)
    'a\u0000b\n' + // 12
    JSON.stringify(assistant('two')) + '\n' + // 13
    '{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"mess'; // 14 torn
  const r = await readCodexRolloutBytes(Buffer.from(text));
  assert.deepEqual(
    r.diagnostics.map((d) => [d.line, d.kind, d.lastLine ?? null]),
    [
      [3, 'invalid-json', null],
      [4, 'not-an-object', null],
      [5, 'blank', 7],
      [8, 'invalid-entry', null],
      [9, 'codex-unknown-type', null],
      [11, 'codex-unknown-type', null],
      [12, 'invalid-json', null],
      [14, 'torn-tail', null],
    ],
  );
  // unknown types are kept (shown raw), the good lines read
  assert.deepEqual(
    r.records.map((x) => `${x.line}:${x.type}`),
    ['1:meta', '2:response_item', '9:future_thing', '10:future_thing', '11:response_item', '13:response_item'].map((s) => s.replace(':meta', ':session_meta')),
  );
  // the unknown response item is not an API item; the replay holds the two messages
  assert.deepEqual(
    replayRollout(r.records).history.map((h) => h.id),
    ['L2', 'L13'],
  );
});

test('newer record types with unverified shapes (world_state, token_usage_record, inter_agent_communication) and `ordinal` are kept without a diagnostic, never replayed', async () => {
  const lines = [
    { timestamp: '2026-09-12T00:00:00.000Z', ordinal: 0, type: 'session_meta', payload: { id: 'new', cwd: '/n', cli_version: '0.154.0' } },
    { timestamp: '2026-09-12T00:00:01.000Z', ordinal: 1, type: 'world_state', payload: { full: { cwd: '/n' } } },
    { timestamp: '2026-09-12T00:00:02.000Z', ordinal: 2, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] } },
    { timestamp: '2026-09-12T00:00:03.000Z', ordinal: 3, type: 'token_usage_record', payload: { input_tokens: 5 } },
    { timestamp: '2026-09-12T00:00:04.000Z', ordinal: 4, type: 'inter_agent_communication', payload: { from: 'a', to: 'b' } },
  ];
  const r = await readCodexRolloutBytes(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'));
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(
    r.records.map((x) => [x.type, x.ordinal]),
    [
      ['session_meta', 0],
      ['world_state', 1],
      ['response_item', 2],
      ['token_usage_record', 3],
      ['inter_agent_communication', 4],
    ],
  );
  assert.deepEqual(
    replayRollout(r.records).history.map((h) => h.id),
    ['L3'],
  );
});

test('damage: no session_meta first, an empty file, a line over the record cap (lowered here), a record nested too deep', async () => {
  const noMeta = await readCodexRolloutBytes(Buffer.from(rolloutText([user('x')])));
  assert.deepEqual(
    noMeta.diagnostics.map((d) => [d.line, d.kind]),
    [[1, 'codex-no-meta']],
  );
  assert.equal(noMeta.meta, null);
  const empty = await readCodexRolloutBytes(Buffer.alloc(0));
  assert.deepEqual(
    empty.diagnostics.map((d) => [d.line, d.kind]),
    [[0, 'codex-empty']],
  );
  assert.equal(empty.era, 'empty');
  const saved = recordLimits.maxRecordBytes;
  recordLimits.maxRecordBytes = 1000;
  try {
    const big = await readCodexRolloutBytes(Buffer.from(rolloutText([meta(), user('x'.repeat(5000)), user('small')])));
    assert.deepEqual(
      big.diagnostics.map((d) => [d.line, d.kind]),
      [[2, 'too-large']],
    );
    assert.deepEqual(
      big.records.map((x) => x.line),
      [1, 3],
    );
  } finally {
    recordLimits.maxRecordBytes = saved;
  }
  const deep = '{"timestamp":"t","type":"event_msg","payload":' + '['.repeat(1200) + ']'.repeat(1200) + '}';
  const d = await readCodexRolloutBytes(Buffer.from(rolloutText([meta()]) + deep + '\n'));
  assert.deepEqual(
    d.diagnostics.map((x) => [x.line, x.kind]),
    [[2, 'too-deep']],
  );
});

test('.jsonl.zst (A.1, C §8): one frame or several, with or without checksums, read like the plain file — decided by the magic, not the name', async () => {
  const plain = readFileSync(F1);
  const want = (await loadCodexRollout(F1)).records;
  const dir = tempDir();
  const one = writeRollout(dir, 'rollout-a.jsonl.zst', zstdFrame(plain, { check: false }));
  const text = plain.toString('utf8');
  const third = Math.floor(text.length / 3);
  // frames split mid-line: a line may straddle frames in a stream
  const several = Buffer.concat([zstdFrame(text.slice(0, third)), zstdFrame(text.slice(third, 2 * third), { check: false }), zstdFrame(text.slice(2 * third))]);
  const many = writeRollout(dir, 'rollout-b.jsonl', several); // a zstd file with a plain name
  for (const p of [one, many]) {
    const r = await loadCodexRollout(p);
    assert.equal(r.encoding, 'zstd', p);
    assert.deepEqual(r.records, want, p);
    assert.deepEqual(r.diagnostics, [], p);
    assert.equal(r.resume, null);
    assert.equal(r.bytes, readFileSync(p).length);
    assert.equal(replayRollout(r.records).history.length, 54);
  }
  const facts = await readRolloutFacts(one);
  assert.equal(facts.encoding, 'zstd');
  assert.equal(facts.id, '01997ea4-a70d-7da3-8c20-c736db82a7c5');
  assert.equal(facts.lastTimestamp, '2025-09-25T02:16:32.870Z');
});

test('.jsonl.zst damage: a torn final frame gives up its complete blocks; a checksum mismatch stops at that frame, with a codex-frame diagnostic', async () => {
  const text = rolloutText([meta(), user('first'), assistant('answer')]);
  const a = zstdFrame(text);
  const b = zstdFrame(rolloutText([user('second'), assistant('again')]));
  const torn = await readCodexRolloutBytes(Buffer.concat([a, b.subarray(0, b.length - 6)]));
  assert.equal(torn.encoding, 'zstd');
  assert.deepEqual(
    torn.records.map((x) => x.line),
    [1, 2, 3],
  );
  assert.deepEqual(
    torn.diagnostics.map((d) => [d.line, d.kind]),
    [[4, 'codex-frame']],
  );
  const bad = Buffer.from(b);
  bad[bad.length - 1] ^= 0xff; // the content checksum
  const mismatch = await readCodexRolloutBytes(Buffer.concat([a, bad]));
  assert.deepEqual(
    mismatch.records.map((x) => x.line),
    [1, 2, 3],
  );
  assert.equal(mismatch.diagnostics.length, 1);
  assert.equal(mismatch.diagnostics[0]!.kind, 'codex-frame');
  assert.match(mismatch.diagnostics[0]!.message, /checksum/);
});

test('a live rollout: readCodexAppend reads only the appended lines, a torn last line is read again once complete', async () => {
  const dir = tempDir();
  const first = [meta(), user('one'), call('c1')];
  const p = writeRollout(dir, 'rollout-live.jsonl', rolloutText(first) + '{"timestamp":"x","type":"response_item","pay');
  const r1 = await loadCodexRollout(p);
  assert.deepEqual(
    r1.diagnostics.map((d) => [d.line, d.kind]),
    [[4, 'torn-tail']],
  );
  assert.equal(r1.resume?.nextLine, 4);
  // the writer finishes the line and appends more
  writeFileSync(p, rolloutText([...first, output('c1', 'ok'), assistant('done')]));
  appendFileSync(p, JSON.stringify(turnContext()) + '\n');
  const r2 = await readCodexAppend(r1);
  assert.ok(r2);
  const whole = await loadCodexRollout(p);
  assert.deepEqual(r2.records, whole.records);
  assert.deepEqual(r2.diagnostics, []);
  assert.equal(r2.resume?.offset, readFileSync(p).length);
  assert.equal(r2.resume?.nextLine, 7);
  // a shorter file cannot have only grown
  writeFileSync(p, rolloutText([meta()]));
  assert.equal(await readCodexAppend(r2), null);
});

test('facts (A.3, A.5, C §5): a bounded head read gives the same as the whole file, the compacted line never parsed', async () => {
  for (const f of [F1, F2, F3]) {
    const whole = factsOfRollout(await loadCodexRollout(f));
    const head = await readRolloutFacts(f);
    assert.deepEqual({ ...head, mtimeMs: 0 }, { ...whole, mtimeMs: 0 }, f);
  }
  const f1 = await readRolloutFacts(F1);
  assert.equal(f1.model, 'gpt-5-codex');
  assert.equal(f1.firstPrompt, 'When I load the dashboard, I see 4 queries. Are all of these necessary? I would expect "leads" and a query to load the dasbhoard data. but it appears that there are 3 dashboard queries getting loaded');
  assert.equal(f1.lastTimestamp, '2025-09-25T02:16:32.870Z');
  const f3 = await readRolloutFacts(F3);
  assert.deepEqual([f3.model, f3.firstPrompt, f3.cliVersion, f3.created], ['gpt-5.5', '[REDACTED_PROMPT]', '0.135.0', '2026-06-05T04:58:20.593Z']);
  // a 300 KiB compacted line in the head: skipped unparsed (a broken one would not even be noticed)
  const dir = tempDir();
  const huge = '{"timestamp":"2026-01-01T00:00:00.000Z","type":"compacted","payload":{"message":"' + 'x'.repeat(300 * 1024) + '"BROKEN\n';
  const p = writeRollout(dir, 'rollout-big.jsonl', rolloutText([meta({ id: 'big' }), turnContext({ model: 'm1' })]) + huge + rolloutText([user('after'), assistant('end')]));
  const facts = await readRolloutFacts(p);
  assert.deepEqual([facts.id, facts.model, facts.firstPrompt], ['big', 'm1', null]);
  assert.equal(facts.lastTimestamp, (await loadCodexRollout(p)).records.at(-1)!.timestamp);
});
