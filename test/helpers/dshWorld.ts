// The dsh part of the integration tests' fake home (run by test/integration/workspace.mjs with
// tsx): real dsh fixtures laid out as dsh lays them out — `~/.dsh/sessions/--<projectKey(cwd)>--/
// <id>/session.jsonl[.zstd]` — with their template cwd and ids filled in, one log zstd-encoded
// (a frame per few records, as dsh writes them), one interrupted (its turn left open, old mtime),
// and a dsh SQLite store beside them for the `sessionLoom.dshStores` setting.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dshLogPath } from '../reference/dshPaths';
import { dshFixtureText, storeSessionOf, writeDshStore, zstdLogOf } from './dshBuild';

export const DSH_CWD = '/work/dsh-demo';

function filled(name: string, id: string, extra: Record<string, unknown> = {}): string {
  const lines = dshFixtureText(name).split('\n');
  const header = { ...(JSON.parse(lines[0]!) as Record<string, unknown>), id, cwd: DSH_CWD, createdAt: Date.parse('2026-11-20T10:00:00Z'), ...extra };
  return [JSON.stringify(header), ...lines.slice(1)].join('\n').replaceAll('{{cwd}}', DSH_CWD);
}

function put(path: string, bytes: string | Buffer, ageMs: number): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, bytes);
  const t = new Date(Date.now() - ageMs);
  utimesSync(path, t, t);
  return path;
}

export interface DshWorld {
  root: string;
  raw: string;
  zstd: string;
  interrupted: string;
  store: string;
}

export async function buildDshWorld(home: string): Promise<DshWorld> {
  const root = join(home, '.dsh', 'sessions');
  const raw = put(dshLogPath(root, DSH_CWD, 'dsh-packed', 'raw'), filled('dsh-packed-chunks.session.jsonl', 'dsh-packed'), 3_600_000);
  const zstd = put(dshLogPath(root, DSH_CWD, 'dsh-compaction', 'zstd'), zstdLogOf(filled('dsh-compaction-recovery.session.jsonl', 'dsh-compaction'), 4), 7_200_000);
  // the tool-outcome fixture up to its recorded tool/call: a crash left the turn open
  const open = filled('dsh-interrupted-tool-outcome-unknown.session.jsonl', 'dsh-interrupted').split('\n').slice(0, 6).join('\n') + '\n';
  const interrupted = put(dshLogPath(root, DSH_CWD, 'dsh-interrupted', 'raw'), open, 10_800_000);
  const store = join(home, 'dsh-store.db');
  await writeDshStore(store, [storeSessionOf(filled('dsh-cancel-aborted.session.jsonl', 'dsh-stored'), 'dsh-stored')]);
  return { root, raw, zstd, interrupted, store };
}

if (require.main === module) {
  void buildDshWorld(process.argv[2]!).then((w) => process.stdout.write(JSON.stringify(w)));
}
