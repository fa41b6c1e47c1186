// Issue 15 "No byte lost", the write side: every writer (full rewrite, header rewrite, append)
// on real temp files, with real child processes where another process matters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSessionFile, type LoadedSession } from '../../src/core/formats/xcsh/load';
import { appendEntries, assertSessionWritable, rewriteHeaderLine, rewriteSessionFile, RewriteRefusedError } from '../../src/core/store/rewrite';
import { assertNotLive, breadcrumbsNaming } from '../../src/core/store/rewriteGuard';
import { findStaleTempFiles, findTempFiles, STALE_TEMP_AGE_MS } from '../../src/core/store/tempFiles';
import { processesWritingTo } from '../../src/core/store/openWriters';
import type { SessionEntry, SessionHeader } from '../../src/core/formats/xcsh/schemas';
import { DSH_READ_ONLY_REASON } from '../../src/core/formats/detect';
import { fixture } from '../helpers/fixtures';

const { appendFileSync, chmodSync, chownSync, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, statSync, symlinkSync, utimesSync, writeFileSync, writeSync, closeSync } = fs;

function dirs(): { d: string; crumbs: string } {
  const d = mkdtempSync(join(tmpdir(), 'loom-safe-'));
  const crumbs = join(d, 'crumbs');
  mkdirSync(crumbs);
  return { d, crumbs };
}
/** Backdates a file so the "modified in the last seconds" guess does not fire. */
function age(path: string, ms = 60_000): void {
  const t = new Date(Date.now() - ms);
  utimesSync(path, t, t);
}
function put(path: string, text: string | Buffer): void {
  writeFileSync(path, text);
  age(path);
}
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const refused = (reason: string, forceable?: boolean, text?: RegExp) => (e: unknown) =>
  e instanceof RewriteRefusedError && e.reason === reason && (forceable === undefined || e.forceable === forceable) && (!text || text.test(e.message));
const guard = (l: LoadedSession, crumbs: string) => ({ expected: l.stat!, breadcrumbsDir: crumbs });

const H3 = '{"type":"session","version":3,"id":"s"}';
const H1 = '{"type":"session","id":"s"}';
const E = (id: string, parent: string | null, text = id) => JSON.stringify({ type: 'message', id, parentId: parent, message: { role: 'user', content: text } });
const V1 = (text: string) => JSON.stringify({ type: 'message', message: { role: 'user', content: text } });
const v3File = (n: number) => `${H3}\n${Array.from({ length: n }, (_, i) => E(`e${String(i).padStart(7, '0')}`, i ? `e${String(i - 1).padStart(7, '0')}` : null)).join('\n')}\n`;
const v1File = (n: number) => `${H1}\n${Array.from({ length: n }, (_, i) => V1(`m${i}`)).join('\n')}\n`;
const appended = (k: number) => `${V1(`appended-${k}`)}\n`;

// ---------------------------------------------------------------- §1 appended bytes

test('§1 lines appended to the original right before the rename are carried into the migrated file', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v1File(50));
  const l = await loadSessionFile(p);
  let k = 0;
  const r = await rewriteSessionFile(p, l, {
    ...guard(l, crumbs),
    faults: { beforeWrite: (op) => { if (op === 'rename' && k < 3) appendFileSync(p, appended(k++)); } },
  });
  const text = readFileSync(p, 'utf8');
  assert.equal(JSON.parse(text.split('\n')[0]!).version, 3, 'migrated');
  assert.ok(text.endsWith(appended(0)), 'the appended line is at the end, byte for byte');
  assert.equal(r.carriedBytes, appended(0).length);
  assert.deepEqual(readdirSync(d).sort(), ['crumbs', 's.jsonl'], 'no temp left');
});

test('§1 title --force: lines appended during the header rewrite are carried over', async () => {
  const { d } = dirs();
  const p = join(d, 's.jsonl');
  writeFileSync(p, v3File(20)); // fresh mtime: only force gets past the live guess
  const h = JSON.parse(readFileSync(p, 'utf8').split('\n')[0]!) as SessionHeader;
  const r = await rewriteHeaderLine(p, { ...h, title: 'T' }, {
    expected: { size: -1, mtimeMs: -1 },
    force: true,
    faults: { beforeWrite: (op) => { if (op === 'rename') appendFileSync(p, appended(0) + appended(1)); } },
  });
  const text = readFileSync(p, 'utf8');
  assert.equal(JSON.parse(text.split('\n')[0]!).title, 'T');
  assert.ok(text.endsWith(appended(0) + appended(1)));
  assert.equal(r.carriedBytes, appended(0).length * 2);
});

test('§1 bytes that reach the old inode after the rename are appended to the new file', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v3File(20));
  const l = await loadSessionFile(p);
  let fd = -1;
  const r = await rewriteHeaderLine(p, { ...l.header!, title: 'After' }, {
    ...guard(l, crumbs),
    faults: {
      beforeWrite: (op) => {
        if (op === 'rename' && fd === -1) fd = openSync(p, 'a'); // a writer that opened the old file (this process: not "another")
        if (op === 'fsync-dir' && fd !== -1) {
          writeSync(fd, appended(1)); // lands in the now-orphaned inode
          closeSync(fd);
          fd = -2;
        }
      },
    },
  });
  assert.equal(fd, -2, 'the fault ran after the rename');
  const text = readFileSync(p, 'utf8');
  assert.equal(JSON.parse(text.split('\n')[0]!).title, 'After');
  assert.ok(text.endsWith(appended(1)));
  assert.equal(r.carriedBytes, appended(1).length);
});

test('§1 a rewrite that adds entries after the end refuses (changed) when the original grew meanwhile; nothing lost', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v3File(3));
  const l = await loadSessionFile(p);
  l.entries.push(JSON.parse(E('ffffffff', l.entries.at(-1)!.id)) as SessionEntry);
  let once = false;
  await assert.rejects(
    rewriteSessionFile(p, l, { ...guard(l, crumbs), faults: { beforeWrite: (op) => { if (op === 'rename' && !once) { once = true; appendFileSync(p, appended(0)); } } } }),
    refused('changed', false, /appended/),
  );
  assert.equal(readFileSync(p, 'utf8'), v3File(3) + appended(0));
  assert.deepEqual(readdirSync(d).sort(), ['crumbs', 's.jsonl'], 'the temp was deleted');
});

test('§1 an original rewritten in place, truncated or replaced during the rewrite is refused (changed), never overwritten', async () => {
  for (const change of ['in-place', 'truncate', 'replace'] as const) {
    const { d, crumbs } = dirs();
    const p = join(d, 's.jsonl');
    put(p, v3File(5));
    const l = await loadSessionFile(p);
    let after = '';
    await assert.rejects(
      rewriteHeaderLine(p, { ...l.header!, title: 'x' }, {
        ...guard(l, crumbs),
        faults: {
          beforeWrite: (op) => {
            if (op !== 'rename' || after) return;
            const now = readFileSync(p, 'utf8');
            after = change === 'truncate' ? now.slice(0, 60) : change === 'in-place' ? now.replace('"version":3', '"version":2') : now + appended(9);
            if (change === 'replace') {
              writeFileSync(`${p}.new`, after);
              fs.renameSync(`${p}.new`, p);
            } else {
              const fd = openSync(p, 'r+');
              writeSync(fd, after, 0);
              fs.ftruncateSync(fd, Buffer.byteLength(after));
              closeSync(fd);
            }
          },
        },
      }),
      refused('changed'),
      change,
    );
    assert.equal(readFileSync(p, 'utf8'), after, `${change}: the other program's bytes stand`);
    assert.deepEqual(readdirSync(d).sort(), ['crumbs', 's.jsonl']);
  }
});

/** A child process holding `file` open (flags 'a' or 'r') until killed. */
async function holder(file: string, flags: 'a' | 'r'): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', `require('fs').openSync(${JSON.stringify(file)}, '${flags}'); console.log('open'); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
  });
  return child;
}

test('§1 a process holding the file open for writing refuses every rewrite, even forced (Linux /proc)', { skip: process.platform !== 'linux' }, async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v1File(5));
  const before = sha(p);
  const child = await holder(p, 'a');
  try {
    const st = statSync(p);
    const writers = await processesWritingTo(fs.realpathSync(p), st.dev, st.ino);
    assert.deepEqual(writers.map((w) => w.pid), [child.pid]);
    const l = await loadSessionFile(p);
    const openForWriting = refused('live', false, new RegExp(`pid ${child.pid}.*open for writing.*--force does not override`));
    await assert.rejects(rewriteSessionFile(p, l, { ...guard(l, crumbs), force: true }), openForWriting);
    await assert.rejects(rewriteHeaderLine(p, { type: 'session', id: 's', title: 't' }, { ...guard(l, crumbs), force: true }), openForWriting);
    assert.equal(sha(p), before);
    // an append never orphans anything: it is allowed
    await appendEntries(p, [JSON.parse(V1('x'))], { readOnlyReason: null });
  } finally {
    child.kill('SIGKILL');
  }
});

test('§1 a process holding the file open only for reading does not block a rewrite', { skip: process.platform !== 'linux' }, async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v3File(5));
  const child = await holder(p, 'r');
  try {
    const l = await loadSessionFile(p);
    await rewriteHeaderLine(p, { ...l.header!, title: 'read by another' }, guard(l, crumbs));
    assert.equal(JSON.parse(readFileSync(p, 'utf8').split('\n')[0]!).title, 'read by another');
  } finally {
    child.kill('SIGKILL');
  }
});

// ---------------------------------------------------------------- §3 identity

test('§3 a symlinked session stays a symlink; its target gets the new bytes (migrate, title, relabel)', async () => {
  const { d, crumbs } = dirs();
  mkdirSync(join(d, 'real'));
  const target = join(d, 'real', 's.jsonl');
  const link = join(d, 'link.jsonl');
  put(target, v1File(3));
  symlinkSync(target, link);
  let l = await loadSessionFile(link);
  await rewriteSessionFile(link, l, guard(l, crumbs));
  assert.ok(lstatSync(link).isSymbolicLink(), 'migrate: still a symlink');
  assert.equal(JSON.parse(readFileSync(target, 'utf8').split('\n')[0]!).version, 3, 'the target was migrated');
  age(target);
  l = await loadSessionFile(link);
  await rewriteHeaderLine(link, { ...l.header!, title: 'via link' }, guard(l, crumbs));
  assert.ok(lstatSync(link).isSymbolicLink(), 'title: still a symlink');
  assert.equal(JSON.parse(readFileSync(target, 'utf8').split('\n')[0]!).title, 'via link');
  await appendEntries(link, [JSON.parse(E('abcdef01', null))], { readOnlyReason: null });
  assert.ok(lstatSync(link).isSymbolicLink(), 'relabel: still a symlink');
  assert.ok(readFileSync(target, 'utf8').endsWith(`${E('abcdef01', null)}\n`));
  assert.deepEqual(readdirSync(join(d, 'real')), ['s.jsonl'], 'temp files went next to the real file and are gone');
});

test('§3 a hard-linked session is never split by a rewrite: refused with the link count; an append reaches every name', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  const other = join(d, 'other-name.jsonl');
  put(p, v1File(3));
  linkSync(p, other);
  const before = sha(p);
  const l = await loadSessionFile(p);
  const linked = refused('identity', false, /2 hard links/);
  await assert.rejects(rewriteSessionFile(p, l, { ...guard(l, crumbs), force: true }), linked);
  await assert.rejects(rewriteHeaderLine(p, { ...l.header!, title: 'x' }, { ...guard(l, crumbs), force: true }), linked);
  assert.equal(sha(p), before);
  assert.equal(statSync(p).ino, statSync(other).ino);
  writeFileSync(p, v3File(2));
  await appendEntries(p, [JSON.parse(E('abcdef01', null))], { readOnlyReason: null });
  assert.equal(statSync(p).ino, statSync(other).ino);
  assert.ok(readFileSync(other, 'utf8').endsWith(`${E('abcdef01', null)}\n`));
});

test('§3 a rewrite keeps the owner, group and mode of a file that belongs to another user (run as root)', { skip: process.getuid?.() !== 0 }, async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v1File(3));
  chownSync(p, 4321, 8765);
  chmodSync(p, 0o640);
  age(p);
  let l = await loadSessionFile(p);
  await rewriteSessionFile(p, l, { ...guard(l, crumbs), backup: true });
  let st = statSync(p);
  assert.deepEqual([st.uid, st.gid, st.mode & 0o7777], [4321, 8765, 0o640], 'migrate');
  age(p);
  l = await loadSessionFile(p);
  await rewriteHeaderLine(p, { ...l.header!, title: 'kept' }, guard(l, crumbs));
  st = statSync(p);
  assert.deepEqual([st.uid, st.gid, st.mode & 0o7777], [4321, 8765, 0o640], 'title');
  const backup = readdirSync(d).find((f) => f.includes('.bak-'))!;
  const bst = statSync(join(d, backup));
  assert.deepEqual([bst.uid, bst.gid], [4321, 8765], 'the backup is the owner’s too');
});

test('§3 a rewrite that cannot keep the owner refuses instead of taking the file over', { skip: process.getuid?.() !== 0 || process.platform !== 'linux' }, () => {
  const { d } = dirs();
  chmodSync(d, 0o777);
  const p = join(d, 's.jsonl');
  put(p, v3File(3));
  chownSync(p, 4321, 4321);
  chmodSync(p, 0o666);
  age(p);
  const before = sha(p);
  // the title command's core call, as an unprivileged user (nobody) who may write the file and its folder
  const script = `
    process.setgid(65534); process.setuid(65534);
    const { rewriteHeaderLine } = require(${JSON.stringify(join(__dirname, '../../src/core/store/rewrite.ts'))});
    rewriteHeaderLine(${JSON.stringify(p)}, { type: 'session', version: 3, id: 's', title: 'mine' }, { expected: { size: 0, mtimeMs: 0 }, force: true })
      .then(() => console.log('written'), (e) => console.log(e.reason + ': ' + e.message));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', cwd: join(__dirname, '../..') });
  assert.match(r.stdout, /^identity: .*belongs to uid 4321/, r.stdout + r.stderr);
  assert.equal(sha(p), before);
  assert.equal(statSync(p).uid, 4321);
  assert.deepEqual(readdirSync(d).sort(), ['crumbs', 's.jsonl'], 'no temp left');
});

test('§3 a file without its owner-write bit (0444) is refused as read-only by every writer, also for root and forced', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v1File(3));
  chmodSync(p, 0o444);
  const before = sha(p);
  const l = await loadSessionFile(p);
  const ro = refused('read-only', false, /0444.*owner write bit/);
  await assert.rejects(rewriteSessionFile(p, l, { ...guard(l, crumbs), force: true, backup: true }), ro);
  await assert.rejects(rewriteHeaderLine(p, { ...l.header!, title: 'x' }, { ...guard(l, crumbs), force: true }), ro);
  await assert.rejects(appendEntries(p, [JSON.parse(V1('x'))], { readOnlyReason: null }), ro);
  assert.equal(sha(p), before);
  assert.equal(statSync(p).mode & 0o7777, 0o444);
  assert.deepEqual(readdirSync(d).sort(), ['crumbs', 's.jsonl'], 'no backup, no temp');
});

test('§3/§4 a FIFO in place of the session file is refused, not opened (no hang)', { skip: process.platform === 'win32', timeout: 10_000 }, async () => {
  const { d } = dirs();
  const p = join(d, 's.jsonl');
  spawnSync('mkfifo', [p]);
  await assert.rejects(appendEntries(p, [JSON.parse(V1('x'))], { readOnlyReason: null }), refused('identity', false, /not a regular file/));
  await assert.rejects(rewriteHeaderLine(p, { type: 'session', id: 's' }, { expected: { size: 0, mtimeMs: 0 }, force: true }), refused('identity'));
});

// ---------------------------------------------------------------- §4 the live guard

test('§4 a FIFO (or any non-regular file) in the breadcrumb folder does not hang the live guard', { skip: process.platform === 'win32', timeout: 10_000 }, async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v3File(3));
  assert.equal(spawnSync('mkfifo', [join(crumbs, 'a-fifo')]).status, 0);
  mkdirSync(join(crumbs, 'a-folder'));
  writeFileSync(join(crumbs, 'term-1'), `/work\n${p}\n`);
  assert.deepEqual(await breadcrumbsNaming(p, crumbs), [join(crumbs, 'term-1')]);
  const l = await loadSessionFile(p);
  await assert.rejects(rewriteHeaderLine(p, { ...l.header!, title: 'x' }, guard(l, crumbs)), refused('live', true, /breadcrumb/));
});

test('§4 a breadcrumb protects the session also when it is reached through a symlinked folder (and the other way round)', async () => {
  const { d, crumbs } = dirs();
  mkdirSync(join(d, 'real'));
  symlinkSync(join(d, 'real'), join(d, 'via'));
  const real = join(d, 'real', 's.jsonl');
  const via = join(d, 'via', 's.jsonl');
  put(real, v3File(3));
  writeFileSync(join(crumbs, 'term-1'), `/work\n${real}\n`);
  await assert.rejects(assertNotLive(via, Date.now() - 60_000, { breadcrumbsDir: crumbs }), refused('live', true));
  const l = await loadSessionFile(via);
  await assert.rejects(rewriteHeaderLine(via, { ...l.header!, title: 'x' }, guard(l, crumbs)), refused('live', true, /breadcrumb/));
  writeFileSync(join(crumbs, 'term-1'), `/work\n${via}\n`);
  await assert.rejects(assertNotLive(real, Date.now() - 60_000, { breadcrumbsDir: crumbs }), refused('live', true));
  // a breadcrumb naming another file still does not count
  writeFileSync(join(crumbs, 'term-1'), `/work\n${join(d, 'real', 'other.jsonl')}\n`);
  await assertNotLive(via, Date.now() - 60_000, { breadcrumbsDir: crumbs });
});

// ---------------------------------------------------------------- §5 backups and temp files

test('§5 stale temp files of our own naming are removed by the next write; fresh ones and other names are kept', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v3File(3));
  const stale = join(d, '.s.jsonl.0123456789ab.tmp');
  const fresh = join(d, '.s.jsonl.ba9876543210.tmp');
  const otherFile = join(d, '.t.jsonl.0123456789ab.tmp');
  const notOurs = join(d, '.s.jsonl.backup.tmp');
  for (const f of [stale, fresh, otherFile, notOurs]) writeFileSync(f, 'partial');
  for (const f of [stale, otherFile, notOurs]) age(f, STALE_TEMP_AGE_MS + 60_000);
  assert.deepEqual((await findTempFiles(p)).map((t) => [t.path, t.stale]), [[stale, true], [fresh, false]]);
  assert.deepEqual((await findStaleTempFiles(p)).map((t) => t.path), [stale]);
  const l = await loadSessionFile(p);
  await rewriteHeaderLine(p, { ...l.header!, title: 'x' }, guard(l, crumbs));
  assert.equal(existsSync(stale), false, 'the stale temp is gone');
  for (const f of [fresh, otherFile, notOurs]) assert.equal(existsSync(f), true, `${f} kept`);
});

test('§5 a stale-looking temp that a process still holds open for writing is kept', { skip: process.platform !== 'linux' }, async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v3File(3));
  const busy = join(d, '.s.jsonl.0123456789ab.tmp');
  writeFileSync(busy, 'being written');
  const child = await holder(busy, 'a');
  try {
    age(busy, STALE_TEMP_AGE_MS + 60_000);
    const l = await loadSessionFile(p);
    await rewriteHeaderLine(p, { ...l.header!, title: 'x' }, guard(l, crumbs));
    assert.equal(existsSync(busy), true);
  } finally {
    child.kill('SIGKILL');
  }
});

test('§5 backups: complete copies under a free name next to the real file, no temp left', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v1File(3));
  utimesSync(p, new Date(0), new Date(0)); // older than the `now` below
  const original = readFileSync(p);
  const now = () => Date.UTC(2026, 0, 2, 3, 4, 5);
  writeFileSync(`${p}.bak-2026-01-02T03-04-05-000Z`, 'an older backup, never overwritten');
  const l = await loadSessionFile(p);
  const r = await rewriteSessionFile(p, l, { ...guard(l, crumbs), backup: true, now });
  assert.equal(r.backupPath, `${p}.bak-2026-01-02T03-04-05-000Z-1`);
  assert.deepEqual(readFileSync(r.backupPath!), original);
  assert.equal(readFileSync(`${p}.bak-2026-01-02T03-04-05-000Z`, 'utf8'), 'an older backup, never overwritten');
  assert.equal(statSync(r.backupPath!).nlink, 1, 'the temp name was unlinked');
  assert.deepEqual((await findTempFiles(p)).length, 0);
});

// ---------------------------------------------------------------- §6/§7 versions and dsh

const UNWRITABLE: { name: string; header: string; reason: RegExp }[] = [
  { name: 'version 1e400 (Infinity)', header: '{"type":"session","version":1e400,"id":"s"}', reason: /Infinity|not a finite number/ },
  { name: 'version "4"', header: '{"type":"session","version":"4","id":"s"}', reason: /version 4 is newer than 3/ },
  { name: 'version -1', header: '{"type":"session","version":-1,"id":"s"}', reason: /version -1 is not 1, 2 or 3/ },
  { name: 'version false', header: '{"type":"session","version":false,"id":"s"}', reason: /version false is not a number/ },
  { name: 'version 7', header: '{"type":"session","version":7,"id":"s"}', reason: /version 7 is newer than 3/ },
  { name: 'dsh header (version 0 + createdAt)', header: '{"type":"session","version":0,"id":"d","createdAt":1785498791421,"cwd":"/w"}', reason: /deepseek-harness \(dsh\)/ },
];

for (const u of UNWRITABLE) {
  test(`§6/§7 ${u.name}: migrate, title and relabel writers refuse from the stored header, even forced and told it is writable`, async () => {
    const { d, crumbs } = dirs();
    const p = join(d, 's.jsonl');
    put(p, `${u.header}\n${V1('a')}\n${V1('b')}\n`);
    const before = sha(p);
    const l = await loadSessionFile(p);
    // belt and braces: a caller whose LoadedSession says "writable" still cannot write it
    const trusting: LoadedSession = { ...l, readOnlyReason: null, header: l.header ?? { type: 'session', id: 's' }, headerRange: l.headerRange ?? { start: 0, end: u.header.length } };
    const ro = refused('read-only', false, u.reason);
    await assert.rejects(rewriteSessionFile(p, trusting, { ...guard(l, crumbs), force: true, backup: true }), ro);
    await assert.rejects(rewriteHeaderLine(p, { type: 'session', id: 's', title: 't', ...(JSON.parse(u.header) as object) }, { ...guard(l, crumbs), force: true }), ro);
    await assert.rejects(appendEntries(p, [JSON.parse(V1('c'))], { readOnlyReason: null }), ro);
    await assert.rejects(assertSessionWritable(p, 'append'), ro);
    assert.equal(sha(p), before);
    assert.deepEqual(readdirSync(d).sort(), ['crumbs', 's.jsonl'], 'no backup, no temp');
  });
}

test('§7 the real dsh fixture is never written by any writer; the message names the format', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 'dsh.session.jsonl');
  copyFileSync(fixture('dsh', 'dsh-cancel-aborted.session.jsonl'), p);
  chmodSync(p, 0o644);
  age(p);
  const before = sha(p);
  const l = await loadSessionFile(p);
  const dsh = refused('read-only', false, new RegExp(DSH_READ_ONLY_REASON.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  await assert.rejects(rewriteSessionFile(p, { ...l, readOnlyReason: null }, { ...guard(l, crumbs), force: true }), dsh);
  const raw = JSON.parse(readFileSync(p, 'utf8').split('\n')[0]!) as SessionHeader;
  await assert.rejects(rewriteHeaderLine(p, { ...raw, title: 't' }, { ...guard(l, crumbs), force: true }), dsh);
  await assert.rejects(appendEntries(p, [JSON.parse(V1('c'))], { readOnlyReason: null }), dsh);
  assert.equal(sha(p), before);
});

test('§6 a new header that cannot be written back (version Infinity would become null) is refused', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v3File(2));
  const before = sha(p);
  const l = await loadSessionFile(p);
  await assert.rejects(rewriteHeaderLine(p, { ...l.header!, version: Infinity }, guard(l, crumbs)), refused('read-only', false, /not a finite number/));
  assert.equal(sha(p), before);
});

test('only what force would let through is marked forceable: the live guesses, and changed for a header-only rewrite', async () => {
  const { d, crumbs } = dirs();
  const p = join(d, 's.jsonl');
  put(p, v3File(2));
  const l = await loadSessionFile(p);
  put(p, v3File(3));
  await assert.rejects(rewriteHeaderLine(p, { ...l.header!, title: 'x' }, guard(l, crumbs)), refused('changed', true));
  await assert.rejects(rewriteSessionFile(p, l, guard(l, crumbs)), refused('changed', false));
  writeFileSync(p, v3File(3));
  const fresh = await loadSessionFile(p);
  await assert.rejects(rewriteHeaderLine(p, { ...fresh.header!, title: 'x' }, guard(fresh, crumbs)), refused('live', true, /modified/));
  await rewriteHeaderLine(p, { ...l.header!, title: 'forced' }, { ...guard(l, crumbs), force: true });
  assert.equal(JSON.parse(readFileSync(p, 'utf8').split('\n')[0]!).title, 'forced');
});
