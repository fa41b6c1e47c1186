// Runs one dsh reader over a file in a child process with a 256 MB heap and reports its answer and
// its own peak RSS: how the bomb and junk tests (issue 22 §9–§11, §15) check that memory follows the
// records, not what a hostile file claims or holds.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/** The most a bounded reader may peak at (its own code, tsx and the WASM modules included). */
export const RSS_CEILING_MB = 600;

export type DshChildRead = 'log' | 'listing' | 'store-list' | 'store-load';

/** `kind`'s reader over `file` ('store-load' opens the store's session `bomb`); its JSON answer plus its peak RSS (MB). */
export function readInChild(kind: DshChildRead, file: string): { out: Record<string, unknown>; maxRssMb: number } {
  const script = `
    const mod = await import(${JSON.stringify(join(ROOT, 'src/core/formats/dsh/index.ts'))});
    const dsh = mod.loadDshSource ? mod : mod.default;
    const [kind, file] = process.argv.slice(-2);
    let out;
    if (kind === 'log') { const log = await dsh.loadDshSource(file); out = { state: log.state, events: log.events.length, diagnostics: log.diagnostics }; }
    else if (kind === 'listing') out = await dsh.readDshListing(file);
    else if (kind === 'store-list') out = { sessions: await dsh.listDshDatabaseSessions(file) };
    else { const log = await dsh.loadDshDatabaseSession(file, 'bomb'); out = { state: log.state, events: log.events.length, diagnostics: log.diagnostics }; }
    process.stdout.write(JSON.stringify({ out, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
  `;
  // The timeout only keeps a run of an unbounded reader from hanging the suite; nothing is timed.
  const r = spawnSync(process.execPath, ['--max-old-space-size=256', '--import', 'tsx', '--input-type=module', '-e', script, kind, file], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(r.status, 0, `the reader's process failed (${r.signal ?? r.status}): ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout) as { out: Record<string, unknown>; maxRssMb: number };
}
