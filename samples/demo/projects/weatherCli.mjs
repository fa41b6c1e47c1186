// The demo's main project: a small TypeScript CLI that prints weather forecasts. Its sessions show
// what Session Loom is for — a long session with a compaction, an abandoned branch and its
// summary, labels, a subagent, a terminal screenshot kept in the blob store — plus a short session
// that opens with a slash command and an old v1 session that needs migrating.
import { Raster } from '../png.mjs';
import { hexId, SessionBuilder } from '../sessionBuilder.mjs';

export const CWD = '/home/dev/projects/weather-cli';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A terminal showing `weather --hourly --chart`: twelve bars of hourly temperatures. */
function terminalChart() {
  const r = new Raster(360, 180, '#1e1e2e');
  r.rect(0, 0, 360, 18, '#313244').rect(8, 6, 6, 6, '#f38ba8').rect(18, 6, 6, 6, '#f9e2af').rect(28, 6, 6, 6, '#a6e3a1');
  r.text(12, 28, [14, 40, 22, 30], '#a6e3a1').text(12, 40, [60, 28, 44], '#cdd6f4');
  const temps = [11, 12, 14, 16, 18, 19, 19, 18, 16, 14, 13, 12];
  temps.forEach((t, i) => {
    const h = (t - 8) * 8;
    r.rect(24 + i * 27, 160 - h, 18, h, t >= 18 ? '#fab387' : '#89b4fa');
    r.rect(24 + i * 27, 164, 18, 3, '#6c7086');
  });
  r.rect(18, 160, 330, 1, '#6c7086');
  return r.png();
}

/** The long session: hourly forecast, then a response cache (with an abandoned SQLite attempt). */
function hourlyForecast(ctx) {
  const id = hexId('demo:weather:hourly', 16);
  const s = new SessionBuilder({ id, cwd: CWD, startMs: ctx.now - 2.5 * HOUR, title: 'Hourly forecast and a response cache' });
  s.modelChange('anthropic/claude-sonnet-4-5');
  s.thinkingLevel('medium');
  const ask = s.user(
    'Add an `--hourly` flag to `weather` that prints the next 12 hours for a city. Keep the default output (today + 3 days) as it is.',
  );
  s.label(ask, 'hourly-flag');
  s.tool('read', { path: 'src/cli.ts' }, "import { parseArgs } from 'node:util';\nimport { fetchForecast } from './api.js';\nimport { printDaily } from './print.js';\n\nconst { values, positionals } = parseArgs({ options: { units: { type: 'string', default: 'metric' } }, allowPositionals: true });\nconst city = positionals[0] ?? 'Berlin';\nconst forecast = await fetchForecast(city, values.units);\nprintDaily(forecast);\n", {
    thinking: 'The flag belongs in parseArgs; the API call probably already returns hourly data. Read cli.ts and api.ts first.',
    text: "I'll look at how the CLI parses its arguments and what the API returns.",
  });
  s.tool('read', { path: 'src/api.ts' }, "export interface Forecast { daily: Day[]; hourly: Hour[] }\n\nexport async function fetchForecast(city: string, units: string): Promise<Forecast> {\n  const url = `https://api.open-meteo.com/v1/forecast?${query(city, units)}&hourly=temperature_2m,precipitation`;\n  const res = await fetch(url);\n  if (!res.ok) throw new Error(`forecast: HTTP ${res.status}`);\n  return toForecast(await res.json());\n}\n");
  s.say('The API already returns hourly data (`forecast.hourly`); it is fetched and then ignored. So the flag only needs a printer and a branch in `cli.ts`. I will write the test first.');
  s.tool('write', { path: 'test/printHourly.test.ts', content: "import { test } from 'vitest';\n…" }, 'Wrote test/printHourly.test.ts (24 lines).');
  s.tool('bash', { command: 'npx vitest run test/printHourly.test.ts' }, " FAIL  test/printHourly.test.ts > prints 12 rows\n   Error: Cannot find module '../src/printHourly.js'\n\n Test Files  1 failed (1)\n      Tests  1 failed (1)", { isError: true });
  s.tool('write', { path: 'src/printHourly.ts', content: 'export function printHourly(hours: Hour[], now = new Date()) { … }' }, 'Wrote src/printHourly.ts (31 lines).', { text: 'Red, as expected. Now the printer: one row per hour, the temperature as a bar.' });
  s.tool('edit', { path: 'src/cli.ts', oldText: "options: { units: { type: 'string', default: 'metric' } }", newText: "options: { units: { type: 'string', default: 'metric' }, hourly: { type: 'boolean' } }" }, 'Applied 1 edit to src/cli.ts');
  s.tool('edit', { path: 'src/cli.ts', oldText: 'printDaily(forecast);', newText: 'if (values.hourly) printHourly(forecast.hourly);\nelse printDaily(forecast);' }, 'Applied 1 edit to src/cli.ts');
  const green = s.tool('bash', { command: 'npx vitest run' }, ' ✓ test/printDaily.test.ts (4 tests) 12ms\n ✓ test/printHourly.test.ts (3 tests) 9ms\n ✓ test/units.test.ts (6 tests) 5ms\n\n Test Files  3 passed (3)\n      Tests  13 passed (13)')[1];
  s.say('Done: `weather --hourly Berlin` prints the next 12 hours. The default output is unchanged and all 13 tests pass.');
  s.label(green, 'tests-green');
  s.user('Nice. Show the chance of rain in each hourly row too, and make `--units imperial` work for the hourly view.');
  s.tool('read', { path: 'src/units.ts' }, "export function temperature(c: number, units: string): string {\n  return units === 'imperial' ? `${Math.round(c * 9 / 5 + 32)}°F` : `${Math.round(c)}°C`;\n}\n");
  s.tool('edit', { path: 'src/printHourly.ts', oldText: 'export function printHourly(hours: Hour[], now = new Date()) {', newText: "export function printHourly(hours: Hour[], units = 'metric', now = new Date()) {" }, 'Applied 1 edit to src/printHourly.ts', {
    text: '`units.ts` already converts temperatures; the hourly printer just never received the units.',
  });
  s.tool('edit', { path: 'src/printHourly.ts', oldText: 'row.push(bar(h.temperature));', newText: 'row.push(bar(h.temperature), temperature(h.temperature, units), rain(h.precipitationProbability));' }, 'Applied 1 edit to src/printHourly.ts');
  s.tool('edit', { path: 'src/cli.ts', oldText: 'if (values.hourly) printHourly(forecast.hourly);', newText: 'if (values.hourly) printHourly(forecast.hourly, values.units);' }, 'Applied 1 edit to src/cli.ts');
  s.tool('bash', { command: 'npx vitest run' }, ' ✓ test/printDaily.test.ts (4 tests) 12ms\n ❯ test/printHourly.test.ts (4 tests | 1 failed) 14ms\n   × shows the chance of rain\n     AssertionError: expected \'12 │ ██████ 18°C\' to contain \'40%\'\n\n Test Files  1 failed | 2 passed (3)', { isError: true });
  s.tool('read', { path: 'src/api.ts', offset: 20, limit: 12 }, "function toForecast(json: ApiResponse): Forecast {\n  const hourly = json.hourly.time.map((time, i) => ({ time, temperature: json.hourly.temperature_2m[i] }));\n  …", {
    thinking: 'The test expects 40%, so the printer is fine — the probability never reaches it. The API query asks for precipitation, not precipitation_probability, and toForecast drops it anyway.',
    text: 'The printer is fine; the data never arrives. The query asks for `precipitation` (millimetres), and `toForecast` drops it.',
  });
  s.tool('edit', { path: 'src/api.ts', oldText: '&hourly=temperature_2m,precipitation', newText: '&hourly=temperature_2m,precipitation_probability' }, 'Applied 1 edit to src/api.ts');
  s.tool('edit', { path: 'src/api.ts', oldText: 'temperature: json.hourly.temperature_2m[i] }', newText: 'temperature: json.hourly.temperature_2m[i], precipitationProbability: json.hourly.precipitation_probability[i] }' }, 'Applied 1 edit to src/api.ts');
  s.tool('bash', { command: 'npx vitest run' }, ' ✓ test/printDaily.test.ts (4 tests) 12ms\n ✓ test/printHourly.test.ts (4 tests) 10ms\n ✓ test/units.test.ts (7 tests) 5ms\n\n Test Files  3 passed (3)\n      Tests  15 passed (15)');
  s.tool('bash', { command: 'node dist/cli.js --hourly --units imperial Boston | head -4' }, '14:00 │ █████████  57°F  10%\n15:00 │ ██████████ 59°F  10%\n16:00 │ ██████████ 59°F  40%\n17:00 │ ████████   55°F  70%');
  s.say('Each hourly row now shows the chance of rain, and `--units imperial` applies to the hourly view. 15 tests pass.');
  s.user('Update the README usage section.');
  s.tool('edit', { path: 'README.md', oldText: '## Usage\n\n    weather [city]', newText: '## Usage\n\n    weather [city]              today and the next three days\n    weather --hourly [city]     the next 12 hours, with the chance of rain\n    weather --units imperial    °F instead of °C' }, 'Applied 1 edit to README.md');
  s.say('README updated.');
  const slow = s.user('Every call hits the API, and the free tier allows 600 requests a day. My status bar calls `weather` every minute. Can we cache?');
  s.tool('grep', { pattern: 'fetchForecast\\(', path: 'src' }, 'src/cli.ts:7:const forecast = await fetchForecast(city, values.units);\nsrc/statusline.ts:12:  const f = await fetchForecast(city, "metric");');
  s.say('Two callers. Before I design a cache I would like to know where else forecasts are fetched and how fresh each caller needs them — let me ask a subagent to look through the whole repository.');
  const [task] = s.tool(
    'task',
    { agent: 'explore', task: 'Find every place that fetches a forecast (directly or through a helper) and say how fresh each one needs the data.' },
    'Three places fetch forecasts:\n1. `src/cli.ts:7` — interactive; data up to ~10 minutes old is fine.\n2. `src/statusline.ts:12` — runs every minute; 10 minutes old is fine.\n3. `scripts/update-readme.ts:30` — CI only; should always fetch fresh data.\nNo other network calls.',
  );
  // The conversation has grown: the agent compacts it, keeping the last request verbatim.
  s.compaction(
    '## Goal\nA small weather CLI (`weather`) in TypeScript.\n\n## Done\n- `--hourly` prints the next 12 hours (`src/printHourly.ts`) with the chance of rain; `--units imperial` applies to it; README usage updated; 15 tests pass.\n- Forecasts are fetched in `src/cli.ts`, `src/statusline.ts` (every minute) and `scripts/update-readme.ts` (CI, must stay fresh).\n\n## Next\n- Cache API responses for 10 minutes so the status bar stops hitting the rate limit.',
    'Added --hourly (tested); next: a 10-minute response cache.',
    slow,
    96_412,
  );
  const options = s.say(
    'Two ways to cache:\n\n1. **SQLite** through `node:sqlite` — one table keyed by city and units, expiry in a column.\n2. **A JSON file per city** in `~/.cache/weather-cli/`, with the fetch time inside.\n\nSQLite handles concurrent writers better; the JSON files need no dependency and are easy to inspect. Which do you prefer?',
    { output: 320 },
  );
  s.label(options, 'cache-design');

  // The abandoned attempt: SQLite needs a newer Node than the project supports.
  s.user('Try SQLite.');
  s.tool('write', { path: 'src/cache.ts', content: "import { DatabaseSync } from 'node:sqlite';\n…" }, 'Wrote src/cache.ts (42 lines).');
  const sqliteFail = s.tool('bash', { command: 'npx vitest run' }, " FAIL  test/cache.test.ts\n   Error: No such built-in module: node:sqlite\n    ❯ src/cache.ts:1:1\n\n Test Files  1 failed | 3 passed (4)", { isError: true })[1];
  s.say('`node:sqlite` is only built into Node 22.5 and later, and `package.json` says `"engines": { "node": ">=20" }`. We would need a native dependency (better-sqlite3) or to drop Node 20.');

  // Back at the choice, with a summary of what the attempt taught.
  s.branchAt(options);
  s.branchSummary(sqliteFail, 'Tried SQLite through `node:sqlite`: it needs Node ≥ 22.5, but the project supports Node 20. Abandoned; the JSON file cache needs no dependency.');
  s.user('Go with the JSON file cache — we support Node 20. Fresh data for the CI script, please.');
  s.tool('write', { path: 'src/cache.ts', content: 'export async function cached<T>(key: string, maxAgeMs: number, load: () => Promise<T>): Promise<T> { … }' }, 'Wrote src/cache.ts (38 lines).', {
    thinking: 'Key by city + units, store { fetchedAt, data }. Write to a temp file and rename, so two status-bar runs never read half a file. The CI script passes maxAgeMs 0.',
    text: 'A `cached(key, maxAge, load)` helper: it writes to a temporary file and renames it, so a reader never sees half a file.',
  });
  s.tool('edit', { path: 'src/api.ts', oldText: 'export async function fetchForecast(city: string, units: string): Promise<Forecast> {', newText: 'export async function fetchForecast(city: string, units: string, maxAgeMs = 10 * 60_000): Promise<Forecast> {\n  return cached(`${city}:${units}`, maxAgeMs, () => load(city, units));\n}\n\nasync function load(city: string, units: string): Promise<Forecast> {' }, 'Applied 1 edit to src/api.ts');
  s.tool('edit', { path: 'scripts/update-readme.ts', oldText: 'await fetchForecast(city, "metric")', newText: 'await fetchForecast(city, "metric", 0)' }, 'Applied 1 edit to scripts/update-readme.ts');
  s.customMessage('lint-report', 'eslint: 0 problems in 14 files.', { details: { files: 14, problems: 0 } });
  const cacheGreen = s.tool('bash', { command: 'npx vitest run' }, ' ✓ test/cache.test.ts (5 tests) 31ms\n ✓ test/printDaily.test.ts (4 tests) 12ms\n ✓ test/printHourly.test.ts (3 tests) 9ms\n ✓ test/units.test.ts (6 tests) 5ms\n\n Test Files  4 passed (4)\n      Tests  18 passed (18)')[1];
  s.label(cacheGreen, 'cache-works');
  s.user('Show me what `weather --hourly --chart` looks like in the terminal.');
  s.modelChange('anthropic/claude-opus-4-5');
  const chart = ctx.blob(terminalChart());
  s.tool('screenshot', { command: 'weather --hourly --chart Berlin', target: 'terminal' }, 'Ran `weather --hourly --chart Berlin` and captured the terminal.', { images: [{ type: 'image', mimeType: 'image/png', data: chart }] });
  s.say('The chart shows the next 12 hours: bars above 18 °C in orange. A second call within 10 minutes answers from `~/.cache/weather-cli/berlin:metric.json` without a request.');
  ctx.session(s, { mtimeMs: s.time });

  // The subagent's own session: <parent file without .jsonl>/<id>.jsonl, opening with session_init.
  const sub = new SessionBuilder({ id: hexId('demo:weather:hourly:explore', 16), cwd: CWD, startMs: Date.parse(s.entries.find((e) => e.id === task).timestamp) + 1000, parentSession: id });
  const taskText = 'Find every place that fetches a forecast (directly or through a helper) and say how fresh each one needs the data.';
  sub.add('session_init', { systemPrompt: 'You are an exploring subagent. Read and search only; never edit. Answer with file paths and line numbers.', task: taskText, tools: ['read', 'grep', 'find'] }, { parent: null, gap: 0 });
  sub.user(taskText, { gap: 1 });
  sub.tool('grep', { pattern: 'fetchForecast|fetch\\(', path: '.' }, 'src/api.ts:4:  const res = await fetch(url);\nsrc/cli.ts:7:const forecast = await fetchForecast(city, values.units);\nsrc/statusline.ts:12:  const f = await fetchForecast(city, "metric");\nscripts/update-readme.ts:30:const f = await fetchForecast(city, "metric");');
  sub.tool('read', { path: 'scripts/update-readme.ts' }, '// Runs in CI once a day: writes the current forecast table into README.md.\n…\nconst f = await fetchForecast(city, "metric");');
  sub.say('Three places fetch forecasts: the CLI (interactive, ~10 min is fine), the status line (every minute, ~10 min is fine) and the CI script `scripts/update-readme.ts` (must be fresh). No other network calls.');
  ctx.subagent(s, sub, { mtimeMs: sub.time });
}

/** A short session that opens with a slash command: its row is named by the prompt after it. */
function flakyTest(ctx) {
  const s = new SessionBuilder({ id: hexId('demo:weather:flaky', 16), cwd: CWD, startMs: ctx.now - 26 * HOUR });
  s.user('/model claude-sonnet-4-5', { gap: 0 });
  s.user('The `formatHour` test fails between 23:00 and 01:00 UTC on CI. Find out why.');
  s.tool('read', { path: 'test/printHourly.test.ts' }, "test('labels the first row with the current hour', () => {\n  const now = new Date();\n  expect(printHourly(hours, now)[0]).toMatch(String(now.getHours()));\n});");
  s.say('The test takes the hour from the local clock while `printHourly` formats in the city\'s time zone (UTC on CI). Around midnight the two disagree. The fix: pass a fixed `now` and a fixed time zone.');
  s.tool('edit', { path: 'test/printHourly.test.ts', oldText: 'const now = new Date();', newText: "const now = new Date('2026-03-01T23:30:00Z');" }, 'Applied 1 edit to test/printHourly.test.ts');
  s.tool('bash', { command: 'TZ=Pacific/Kiritimati npx vitest run test/printHourly.test.ts' }, ' ✓ test/printHourly.test.ts (3 tests) 8ms\n\n Test Files  1 passed (1)');
  s.say('Fixed: the test no longer depends on the machine\'s clock or time zone.');
  ctx.session(s, { mtimeMs: s.time });
}

/**
 * An old session from before entry ids (format v1, as pi wrote it): no version in the header, no
 * id or parentId on entries, `model_change` as {provider, modelId}. Shown migrated in memory;
 * "Migrate to v3…" rewrites it, with a dry run and a backup.
 */
function v1Setup(ctx) {
  let t = ctx.now - 23 * DAY;
  const at = (gap) => new Date((t += gap * 1000)).toISOString();
  const msg = (gap, message) => ({ type: 'message', timestamp: at(gap), message: { ...message, timestamp: t } });
  const usage = { input: 900, output: 240, cacheRead: 0, cacheWrite: 0, cost: { input: 0.0027, output: 0.0036, cacheRead: 0, cacheWrite: 0, total: 0.0063 } };
  const assistant = (gap, content, stopReason = 'stop') => msg(gap, { role: 'assistant', provider: 'anthropic', model: 'claude-sonnet-4-5', api: 'anthropic-messages', content, usage, stopReason });
  const sid = '3f9a1c52-7d4e-4b8a-9e21-6c0d5b7a8e14';
  const lines = [
    { type: 'session', id: sid, timestamp: new Date(t).toISOString(), cwd: CWD, provider: 'anthropic', modelId: 'claude-sonnet-4-5', thinkingLevel: 'off' },
    { type: 'model_change', timestamp: at(1), provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
    msg(20, { role: 'user', content: [{ type: 'text', text: 'Set up the project: TypeScript, vitest, and a `weather` bin that prints today and the next three days for a city.' }] }),
    assistant(15, [{ type: 'text', text: 'I will create the package, a tsconfig, the CLI entry and a first test.' }, { type: 'toolCall', id: 'toolu_setup_1', name: 'bash', arguments: { command: 'npm init -y && npm i -D typescript vitest @types/node' } }], 'toolUse'),
    msg(30, { role: 'toolResult', toolCallId: 'toolu_setup_1', toolName: 'bash', content: [{ type: 'text', text: 'added 52 packages in 6s' }], isError: false }),
    assistant(12, [{ type: 'toolCall', id: 'toolu_setup_2', name: 'write', arguments: { path: 'src/cli.ts', content: '…' } }], 'toolUse'),
    msg(2, { role: 'toolResult', toolCallId: 'toolu_setup_2', toolName: 'write', content: [{ type: 'text', text: 'Wrote src/cli.ts (18 lines).' }], isError: false }),
    assistant(10, [{ type: 'text', text: 'The project builds, `npx vitest run` passes, and `npm link` puts `weather` on your PATH.' }]),
    msg(60, { role: 'user', content: [{ type: 'text', text: 'Thanks, commit it.' }] }),
    msg(5, { role: 'bashExecution', command: 'git add -A && git commit -m "weather: first version"', output: '[main (root-commit) 4c1e2f0] weather: first version\n 7 files changed, 212 insertions(+)', exitCode: 0, cancelled: false, truncated: false }),
  ];
  const file = `${lines[0].timestamp.replace(/[:.]/g, '-')}_${sid}.jsonl`;
  ctx.file(CWD, file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { mtimeMs: t });
}

export const weatherCli = {
  cwd: CWD,
  write(ctx) {
    hourlyForecast(ctx);
    flakyTest(ctx);
    v1Setup(ctx);
  },
};
