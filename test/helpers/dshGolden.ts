// The outputs the dsh reader's consumers see, computed for every fixture in every form (raw,
// zstd at two batch sizes, SQLite) and for damaged raw variants (interrupted, torn, corrupt):
// the CLI `events` JSON, the CLI `context` JSON and the session stats. dshGolden.test.ts pins
// their SHA-256 so that a change of the reader's internals cannot change a byte of them.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dshContextAt, dshSessionStats, eventsWithClosers, loadDshDatabaseSession, readDshLog, type DshLog } from '../../src/core/formats/dsh/index';
import { decompress } from 'fzstd';
import { generateDshLog } from '../../bench/dshGenerate';
import { DSH_FIXTURES, dshFixtureText, storeSessionOf, writeDshStore, zstdLogOf } from './dshBuild';

/** What `session-loom events` prints for a dsh log (built from the API only). */
export function cliEventsJson(log: DshLog): string {
  return JSON.stringify({ format: 'dsh', header: log.header, state: log.state, events: eventsWithClosers(log), closers: log.closers.length, diagnostics: log.diagnostics });
}

/** What `session-loom context` prints for a dsh log. */
export function cliContextJson(log: DshLog): string {
  const { at, messages, system, tools, model } = dshContextAt(log);
  return JSON.stringify({ format: 'dsh', at, messages, system, tools, model });
}

const sha = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 24);

function damaged(text: string): Array<[string, string]> {
  const lines = text.split('\n').filter((l) => l !== '');
  const n = lines.length;
  const join = (ls: string[]): string => ls.map((l) => l + '\n').join('');
  const last = lines[n - 1]!;
  return [
    ['interrupted', join(lines.slice(0, n - 3))],
    ['torn', join(lines.slice(0, n - 1)) + last.slice(0, last.length >> 1)],
    ['corrupt', join([...lines.slice(0, n >> 1), '{"type":', ...lines.slice(n >> 1)])],
  ];
}

/** `case name → hash of events JSON · hash of context JSON · hash of stats JSON`. */
export async function dshGoldenHashes(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const put = (name: string, log: DshLog): void => {
    out[name] = `${sha(cliEventsJson(log))} ${sha(cliContextJson(log))} ${sha(JSON.stringify(dshSessionStats(log)))}`;
  };
  for (const name of DSH_FIXTURES) {
    const text = dshFixtureText(name);
    put(`${name} raw`, await readDshLog(Buffer.from(text)));
    for (const batch of [4, 1000]) put(`${name} zstd/${batch}`, await readDshLog(zstdLogOf(text, batch)));
    for (const [what, t] of damaged(text)) put(`${name} raw ${what}`, await readDshLog(Buffer.from(t)));
  }
  const db = join(mkdtempSync(join(tmpdir(), 'loom-dsh-golden-')), 'sessions.db');
  await writeDshStore(db, DSH_FIXTURES.map((name, i) => storeSessionOf(dshFixtureText(name), `session-${i}`)));
  for (let i = 0; i < DSH_FIXTURES.length; i++) put(`${DSH_FIXTURES[i]} sqlite`, (await loadDshDatabaseSession(db, `session-${i}`))!);
  // A generated log as the bench makes it (packed rows of the three kinds, compactions), 8k events.
  const gen = join(mkdtempSync(join(tmpdir(), 'loom-dsh-golden-')), 'session.jsonl.zstd');
  generateDshLog(gen, 8000);
  const zstd = readFileSync(gen);
  put('generated 8k zstd', await readDshLog(zstd));
  put('generated 8k raw', await readDshLog(Buffer.from(decompress(zstd))));
  return out;
}
