// Debian's sqlite3 CLI as a real writer in a child process: it runs `sql`, prints a marker, and
// is then SIGKILLed (so nothing it has not committed, and no checkpoint at close, reaches the
// files), or kept alive holding its transaction until `release()` kills it.
import { spawn } from 'node:child_process';
import { openSqliteSnapshot } from '../../src/core/store/sqliteSnapshot';

export const SQLITE3 = '/usr/bin/sqlite3';

export interface LiveWriter {
  release(): Promise<void>;
}

export async function sqliteWriter(db: string, sql: string): Promise<LiveWriter> {
  const child = spawn(SQLITE3, [db], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sqlite3 did not answer: ${err}`)), 20_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('__WRITER_READY__')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', () => {
      clearTimeout(timer);
      if (!out.includes('__WRITER_READY__')) reject(new Error(`sqlite3 exited early: ${err}`));
    });
    child.stdin.write(`${sql}\nSELECT '__WRITER_READY__';\n`);
  });
  if (err.trim() !== '') {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`sqlite3: ${err}`);
  }
  return {
    async release() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs `sql` in a writer that is SIGKILLed right after (before it could checkpoint at exit). */
export async function sqliteKilledAfter(db: string, sql: string): Promise<void> {
  await (await sqliteWriter(db, sql)).release();
}

/** Column `a` of table `t`, in order, as the snapshot reader reads the database (the snapshot tests' probe). */
export async function snapshotValues(db: string): Promise<number[]> {
  const h = await openSqliteSnapshot(db);
  try {
    return h.all('SELECT a FROM t ORDER BY a').map((r) => Number(r.a));
  } finally {
    h.close();
  }
}
