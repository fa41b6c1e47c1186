// The search index (src/core/search/): built from real files in a temp root, brought up to date
// incrementally (append, rewrite, delete, rename), rebuilt when damaged, and its results name the
// entries as the real reader loads them.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { DEFAULT_MERGE_POLICY, openIndexDb, setMergePolicy } from '../../src/core/search/indexDb';
import { IndexLockedError } from '../../src/core/search/indexLock';
import { sessionFilesUnder, updateIndex } from '../../src/core/search/indexUpdate';
import { SessionSearchIndex } from '../../src/core/search/searchIndex';
import { fixtureFiles } from '../helpers/fixtures';

const made: string[] = [];
const tmp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-search-'));
  made.push(dir);
  return dir;
};
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const t = (n: number): string => new Date(Date.UTC(2026, 5, 1, 10, n)).toISOString();
function line(o: object): string {
  return JSON.stringify(o) + '\n';
}
function session(id: string, cwd: string, texts: string[], opts: { title?: string; day?: number } = {}): string {
  let out = line({ type: 'session', version: 3, id, timestamp: t(0), cwd, ...(opts.title ? { title: opts.title } : {}) });
  texts.forEach((text, i) => {
    const role = i % 2 === 0 ? 'user' : 'assistant';
    const ts = opts.day !== undefined ? new Date(Date.UTC(2026, 5, opts.day, 10, i)).toISOString() : t(i + 1);
    out += line({ type: 'message', id: `${id.slice(0, 4)}${String(i).padStart(4, '0')}`, parentId: i === 0 ? null : `${id.slice(0, 4)}${String(i - 1).padStart(4, '0')}`, timestamp: ts, message: { role, content: [{ type: 'text', text }] } });
  });
  return out;
}

async function withIndex<T>(f: (idx: SessionSearchIndex, root: string, dir: string) => Promise<T>): Promise<T> {
  const dir = tmp();
  const root = join(dir, 'sessions');
  mkdirSync(join(root, '--work-a--'), { recursive: true });
  mkdirSync(join(root, '--work-b--'), { recursive: true });
  const idx = await SessionSearchIndex.open(join(dir, 'cache', 'index.db'));
  try {
    return await f(idx, root, dir);
  } finally {
    idx.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const files = async (idx: SessionSearchIndex, q: string): Promise<string[]> => (await idx.search(q)).results.sessions.map((s) => s.file).sort();

test('a first build finds words of every session; matches open the entry the reader loads', async () => {
  await withIndex(async (idx, root) => {
    const a = join(root, '--work-a--', 'a.jsonl');
    const b = join(root, '--work-b--', 'b.jsonl');
    writeFileSync(a, session('aaaa0000', '/work/a', ['Plan the quarterly cobalt migration', 'Here is a plan.']));
    writeFileSync(b, session('bbbb0000', '/work/b', ['Tidy the changelog', 'It mentions zanzibarite twice.'], { title: 'Changelog chores' }));
    const st = await idx.update([root]);
    assert.equal(st.added, 2);
    assert.deepEqual(await files(idx, 'zanzibarite'), [b]);
    assert.deepEqual(await files(idx, 'the'), [a, b]);
    assert.deepEqual(await files(idx, 'quarterly cobalt'), [a]);
    assert.deepEqual(await files(idx, 'quarterly zanzibarite'), [], 'words are AND-ed');
    const out = await idx.search('zanzibarite', { entriesPerSession: 5 });
    assert.equal(out.results.sessions[0]!.matches, 1);
    assert.equal(out.entries[b]![0]!.entryId, 'bbbb0001');
    const loaded = await loadSessionFile(b);
    assert.ok(loaded.entries.some((e) => e.id === 'bbbb0001'));
    // The title matches as the session's, not as an entry.
    const byTitle = (await idx.search('chores')).results.sessions;
    assert.equal(byTitle.length, 1);
    assert.equal(byTitle[0]!.titleMatch, true);
    assert.equal(byTitle[0]!.matches, 0);
  });
});

test('filters: role:, project:, after:; a phrase is checked in order on the real text', async () => {
  await withIndex(async (idx, root) => {
    const a = join(root, '--work-a--', 'a.jsonl');
    const b = join(root, '--work-b--', 'b.jsonl');
    writeFileSync(a, session('aaaa0000', '/work/alpha', ['fix the torn tail', 'the tail is torn now'], { day: 1 }));
    writeFileSync(b, session('bbbb0000', '/work/beta', ['tail torn', 'fix the torn tail too'], { day: 20 }));
    await idx.update([root]);
    assert.deepEqual(await files(idx, 'role:user torn'), [a, b]);
    assert.deepEqual(await files(idx, 'role:assistant fix'), [b]);
    assert.deepEqual(await files(idx, 'project:alpha torn'), [a]);
    assert.deepEqual(await files(idx, 'after:2026-06-10 torn'), [b]);
    assert.deepEqual(await files(idx, 'before:2026-06-10 torn'), [a]);
    const phrase = await idx.search('"torn tail"', { entriesPerSession: 5 });
    assert.deepEqual(phrase.results.sessions.map((s) => [s.file, s.matches]).sort(), [[a, 1], [b, 1]]);
    assert.deepEqual(phrase.entries[b]!.map((e) => e.entryId), ['bbbb0001']);
    assert.deepEqual(await files(idx, 'torn -fix'), [a, b]);
    assert.deepEqual(idx.matchIds('torn -fix', a), ['aaaa0001']);
  });
});

test('a session that grew by appending is picked up by reading only its tail', async () => {
  await withIndex(async (idx, root) => {
    const a = join(root, '--work-a--', 'a.jsonl');
    writeFileSync(a, session('aaaa0000', '/work/a', ['first words', 'reply']));
    await idx.update([root]);
    appendFileSync(a, line({ type: 'message', id: 'aaaa0009', parentId: 'aaaa0001', timestamp: t(9), message: { role: 'user', content: [{ type: 'text', text: 'appended ytterbium' }] } }));
    const st = await idx.updateFiles([a]);
    assert.equal(st.appended, 1);
    assert.equal(st.reindexed, 0);
    assert.equal(st.rows, 1, 'only the new entry was written');
    assert.deepEqual(idx.matchIds('ytterbium', a), ['aaaa0009']);
    assert.deepEqual(idx.matchIds('first', a), ['aaaa0000'], 'what was indexed before stays');
  });
});

test('a rewritten session (same size or not) is read again: old words go, new ones come', async () => {
  await withIndex(async (idx, root) => {
    const a = join(root, '--work-a--', 'a.jsonl');
    writeFileSync(a, session('aaaa0000', '/work/a', ['molybdenum here', 'reply']));
    await idx.update([root]);
    writeFileSync(a, session('aaaa0000', '/work/a', ['technetium here', 'reply']));
    const st = await idx.update([root]);
    assert.equal(st.reindexed, 1);
    assert.deepEqual(await files(idx, 'molybdenum'), []);
    assert.deepEqual(await files(idx, 'technetium'), [a]);
  });
});

test('a deleted session leaves the results; a renamed one is followed without reading it', async () => {
  await withIndex(async (idx, root) => {
    const a = join(root, '--work-a--', 'a.jsonl');
    const b = join(root, '--work-a--', 'b.jsonl');
    writeFileSync(a, session('aaaa0000', '/work/a', ['praseodymium', 'reply']));
    writeFileSync(b, session('bbbb0000', '/work/a', ['neodymium', 'reply']));
    await idx.update([root]);
    rmSync(a);
    const moved = join(root, '--work-b--', 'b-renamed.jsonl');
    renameSync(b, moved);
    const st = await idx.update([root]);
    assert.equal(st.removed, 1);
    assert.equal(st.renamed, 1);
    assert.equal(st.rows, 0, 'the rename read nothing');
    assert.deepEqual(await files(idx, 'praseodymium'), []);
    assert.deepEqual(await files(idx, 'neodymium'), [moved]);
    // a watcher-reported deletion
    rmSync(moved);
    await idx.updateFiles([moved]);
    assert.deepEqual(await files(idx, 'neodymium'), []);
  });
});

test('unchanged files are not read again', async () => {
  await withIndex(async (idx, root) => {
    writeFileSync(join(root, '--work-a--', 'a.jsonl'), session('aaaa0000', '/work/a', ['x', 'y']));
    await idx.update([root]);
    const st = await idx.update([root]);
    assert.equal(st.unchanged, 1);
    assert.equal(st.rows, 0);
  });
});

test('v1/v2 fixtures are indexed under the ids the reader gives them (stable made-up ids)', async () => {
  await withIndex(async (idx, root) => {
    const dir = join(root, '--work-a--');
    for (const f of fixtureFiles('upstream')) copyFileSync(f, join(dir, f.split('/').pop()!));
    const st = await idx.update([root]);
    assert.equal(st.added, readdirSync(dir).length);
    for (const f of readdirSync(dir).map((n) => join(dir, n))) {
      const loaded = await loadSessionFile(f);
      const user = loaded.entries.find((e) => e.type === 'message' && (e as { message?: { role?: string } }).message?.role === 'user');
      const text = (user as { message?: { content?: unknown } } | undefined)?.message?.content;
      const word = (typeof text === 'string' ? text : Array.isArray(text) ? String((text[0] as { text?: string })?.text ?? '') : '').match(/[A-Za-z]{6,}/)?.[0];
      if (!user || !word) continue;
      assert.ok(idx.matchIds(word, f).includes(user.id), `${f}: ${word} → ${user.id}`);
    }
  });
});

test('a damaged index file of ours is rebuilt, not fatal; a deleted one too (it is a cache)', async () => {
  const dir = tmp();
  const root = join(dir, 'sessions', '--p--');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'a.jsonl'), session('aaaa0000', '/p', ['gadolinium', 'y']));
  const db = join(dir, 'cache', 'index.db');
  let idx = await SessionSearchIndex.open(db);
  await idx.update([join(dir, 'sessions')]);
  idx.close();
  // Damage past the header (which still says the file is ours): every page after the first.
  const bytes = readFileSync(db);
  bytes.fill(0x5a, 8192);
  writeFileSync(db, bytes);
  idx = await SessionSearchIndex.open(db);
  try {
    assert.equal(idx.fresh, true, 'our damaged index is replaced by an empty one');
    await idx.update([join(dir, 'sessions')]);
    assert.equal((await idx.search('gadolinium')).results.sessions.length, 1);
  } finally {
    idx.close();
  }
  rmSync(join(dir, 'cache'), { recursive: true });
  idx = await SessionSearchIndex.open(db);
  try {
    await idx.update([join(dir, 'sessions')]);
    assert.equal((await idx.search('gadolinium')).results.sessions.length, 1);
  } finally {
    idx.close();
  }
});

test('one process at a time owns an index directory; a stale lock of a dead process is taken over', async () => {
  const dir = tmp();
  const db = join(dir, 'index.db');
  writeFileSync(join(dir, 'index.lock'), '999999999');
  const idx = await SessionSearchIndex.open(db);
  idx.close();
  // A live process (this test runner's parent) holds it: refused with a clear error.
  writeFileSync(join(dir, 'index.lock'), String(process.ppid));
  await assert.rejects(SessionSearchIndex.open(db), (e: unknown) => e instanceof IndexLockedError && /in use by another process/.test((e as Error).message));
});

test('updates and searches asked for at once run one after the other (one connection, no nested transactions)', async () => {
  await withIndex(async (idx, root) => {
    const files = [0, 1, 2, 3].map((i) => join(root, '--work-a--', `s${i}.jsonl`));
    files.forEach((f, i) => writeFileSync(f, session(`${i}aaa0000`, '/work/a', [`lutetium ${i}`, 'reply'])));
    const [full, ...rest] = await Promise.all([idx.update([root]), idx.updateFiles(files.slice(0, 2)), idx.search('lutetium'), idx.updateFiles(files.slice(2))]);
    assert.equal(full.added, 4);
    assert.equal((rest[1] as { results: { sessions: unknown[] } }).results.sessions.length, 4);
  });
});

test('a session\'s matching entries come in file order, however long each one is (detail=none gives FTS5 no term frequencies to rank by)', async () => {
  await withIndex(async (idx, root) => {
    const a = join(root, '--work-a--', 'a.jsonl');
    const long = `osmium ${'filler words here '.repeat(200)}`;
    writeFileSync(a, session('aaaa0000', '/work/a', [long, 'osmium', long, 'short osmium note']));
    await idx.update([root]);
    const out = await idx.search('osmium', { entriesPerSession: 10 });
    assert.deepEqual(out.entries[a]!.map((e) => e.entryId), ['aaaa0000', 'aaaa0001', 'aaaa0002', 'aaaa0003']);
    assert.deepEqual(idx.entryHits('osmium', a, 2).map((e) => e.entryId), ['aaaa0000', 'aaaa0001']);
  });
});

test('a bulk build cut short leaves no bulk merge policy behind: the next open restores FTS5\'s defaults (small updates merge again)', async () => {
  const dir = tmp();
  const path = join(dir, 'cache', 'index.db');
  let opened = await openIndexDb(path);
  assert.equal(opened.db.selectValue('PRAGMA auto_vacuum'), 2, 'a new index gives freed pages back (incremental)');
  // What a killed first build leaves in the config table.
  setMergePolicy(opened.db, { hashBytes: 64 * 1024 * 1024, automerge: 0 });
  opened.close();
  opened = await openIndexDb(path);
  try {
    const config = Object.fromEntries(opened.db.selectArrays("SELECT k, v FROM fts_config WHERE k IN ('automerge', 'hashsize')") as [string, number][]);
    assert.deepEqual(config, { automerge: DEFAULT_MERGE_POLICY.automerge, hashsize: DEFAULT_MERGE_POLICY.hashBytes });
  } finally {
    opened.close();
  }
});

test('the first page\'s entries (from the rows that counted the sessions) are what a per-session lookup gives: words, prefix, phrase, project:, after:, title', async () => {
  await withIndex(async (idx, root) => {
    const a = join(root, '--work-a--', 'a.jsonl');
    const b = join(root, '--work-b--', 'b.jsonl');
    writeFileSync(a, session('aaaa0000', '/work/alpha', ['torn tail one', 'tail torn', 'the torn tail again', 'tornado', 'torn tail four', 'x'], { day: 1, title: 'torn tail title' }));
    writeFileSync(b, session('bbbb0000', '/work/beta', ['nothing', 'a torn tail', 'tornados', 'torn tail'], { day: 20 }));
    await idx.update([root]);
    for (const query of ['torn', 'torn*', '"torn tail"', 'project:alpha torn', 'after:2026-06-10 torn', 'tail -"torn tail"']) {
      for (const per of [1, 3, 20]) {
        const out = await idx.search(query, { entriesPerSession: per, detailedSessions: 5 });
        assert.ok(out.results.sessions.length > 0, query);
        for (const s of out.results.sessions) {
          assert.deepEqual(
            out.entries[s.file]!.map((e) => e.entryId),
            idx.entryHits(query, s.file, per).map((e) => e.entryId),
            `${query} (${per}) in ${s.file}`,
          );
        }
      }
    }
  });
});

test('bm25 is 0 for every row of the index (contentless, detail=none): ranking by it would order nothing, at the cost of a pass over every posting', async () => {
  const dir = tmp();
  const root = join(dir, 'sessions', '--p--');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'a.jsonl'), session('aaaa0000', '/p', ['osmium', `osmium osmium ${'long filler '.repeat(50)}`, 'osmium and iridium', 'iridium']));
  const path = join(dir, 'cache', 'index.db');
  const idx = await SessionSearchIndex.open(path);
  await idx.update([join(dir, 'sessions')]);
  idx.close();
  const opened = await openIndexDb(path);
  try {
    for (const q of ['osmium', 'osmium iridium', 'osmium OR iridium']) {
      const ranks = opened.db.selectValues('SELECT rank FROM fts WHERE fts MATCH ?', [q]) as number[];
      assert.ok(ranks.length > 0, q);
      assert.deepEqual([...new Set(ranks)], [0], q);
    }
  } finally {
    opened.close();
  }
});

/** Eight sessions s0…s7 in `dir`, each with the word "shared", s0 the oldest and s7 the newest (by mtime, a day apart). */
function agedSessions(dir: string): string[] {
  const paths: string[] = [];
  for (let i = 0; i < 8; i++) {
    const p = join(dir, `s${i}.jsonl`);
    writeFileSync(p, session(`${i}`.padStart(4, '0') + 'cafe', '/work/a', [`word${i} shared`, 'reply']));
    utimesSync(p, new Date(Date.UTC(2026, 0, 1 + i)), new Date(Date.UTC(2026, 0, 1 + i)));
    paths.push(p);
  }
  return paths;
}

test('file ids follow the sessions\' age (newer = lower: "newest first" is ascending rowid), a first build goes newest first (so rows go in with ascending rowids, and a stopped one has the newest sessions), and one picked up again keeps the order', async () => {
  for (const stopAfter of [Infinity, 3]) {
    const dir = tmp();
    const root = join(dir, 'sessions', '--work-a--');
    mkdirSync(root, { recursive: true });
    const paths = agedSessions(root);
    const opened = await openIndexDb(join(dir, 'cache', 'index.db'));
    try {
      const ac = new AbortController();
      const first = updateIndex(opened, sessionFilesUnder([join(dir, 'sessions')]), {
        complete: true,
        signal: ac.signal,
        onProgress: (p) => {
          if (p.read >= stopAfter) ac.abort();
        },
      });
      if (stopAfter === Infinity) await first;
      else {
        await assert.rejects(first, (e: Error) => e.name === 'CancelledError');
        const done = opened.db.selectValues('SELECT path FROM files ORDER BY id') as string[];
        assert.deepEqual(done, [paths[7], paths[6], paths[5]], 'a stopped first build has the newest sessions');
        await updateIndex(opened, sessionFilesUnder([join(dir, 'sessions')]), { complete: true });
      }
      const byId = opened.db.selectValues('SELECT path FROM files ORDER BY id') as string[];
      assert.deepEqual(byId, [...paths].reverse(), `ids by age (stopped after ${stopAfter})`);
      const hits = opened.db.selectValues("SELECT rowid FROM fts WHERE fts MATCH 'shared' ORDER BY rowid") as number[];
      assert.equal(hits.length, 8);
    } finally {
      opened.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('a query asked during a long update is answered between two of its batches, from the sessions committed so far (the newest), not at its end; one asked during a short update is answered at its end', async () => {
  for (const batchBytes of [1, undefined]) {
    await withIndex(async (idx, root) => {
      const dir = join(root, '--work-a--');
      const paths = agedSessions(dir);
      const order: string[] = [];
      let asked: Promise<string[]> | undefined;
      const update = idx
        .update([root], {
          ...(batchBytes ? { batchBytes } : {}),
          onProgress: (p) => {
            if (!asked && p.done >= 3) {
              asked = idx.search('shared').then((out) => {
                order.push('search');
                return out.results.sessions.map((s) => s.file);
              });
            }
          },
        })
        .then((st) => {
          order.push('update');
          return st;
        });
      assert.equal((await update).added, 8);
      const found = await asked!;
      if (batchBytes) {
        assert.deepEqual(order, ['search', 'update'], 'answered before the update ended');
        assert.ok(found.length >= 3 && found.length < 8, `found ${found.length} of 8 while the build ran`);
        assert.deepEqual([...found].sort(), paths.slice(8 - found.length).sort(), 'the newest sessions are searchable first');
      } else {
        assert.equal(found.length, 8, 'one batch: answered once all of it is committed');
      }
      assert.equal((await idx.search('shared')).results.sessions.length, 8);
    });
  }
});
