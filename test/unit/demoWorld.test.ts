// The demo is a new user's first impression (issue 14, point 4): it must open on realistic
// sessions, not on test data. Builds the demo world into a temp folder and checks what it
// promises: several projects, a long session with a compaction, a branch, labels and a subagent,
// images that resolve from its blob store, a v1 session to migrate, a damaged one to repair — and
// none of the tests' hostile samples.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { severityOf } from '../../src/core/diagnostics';
import { BlobStore, findBlobRefs } from '../../src/core/formats/xcsh/blobs';
import { loadSessionFile, type LoadedSession } from '../../src/core/formats/xcsh/load';
import { buildTreeIndex } from '../../src/core/tree/tree';
import { REPO_ROOT } from '../helpers/fixtures';

interface World {
  home: string;
  sessionsDir: string;
  blobsDir: string;
  workspaceDir: string;
  projects: Record<string, { file: string }[]>;
}
type BuildDemoHome = (dir: string, opts?: { now?: number }) => World;

const NOW = Date.parse('2026-03-10T12:00:00.000Z');
let buildDemoHome: BuildDemoHome;
let world: World;
let files: string[];
const loaded = new Map<string, LoadedSession>();

before(async () => {
  ({ buildDemoHome } = (await import(pathToFileURL(join(REPO_ROOT, 'samples', 'demo', 'world.mjs')).href)) as { buildDemoHome: BuildDemoHome });
  world = buildDemoHome(mkdtempSync(join(tmpdir(), 'sl-demo-')), { now: NOW });
  files = Object.values(world.projects).flat().map((p) => p.file);
  for (const f of files) loaded.set(f, await loadSessionFile(f));
});

const find = (what: string, pick: (l: LoadedSession, file: string) => boolean): [string, LoadedSession] => {
  const hit = [...loaded].find(([f, l]) => pick(l, f));
  assert.ok(hit, `the demo has ${what}`);
  return hit;
};

describe('demo world', () => {
  it('has several projects and none of the tests’ samples (no XSS payload, no test folders)', () => {
    assert.ok(Object.keys(world.projects).length >= 3, Object.keys(world.projects).join(', '));
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      assert.doesNotMatch(text, /onerror=|<script|<img src=x|javascript:|loom-it|demo-xss/i, basename(f));
    }
  });

  it('has a long session with a compaction, a fork with a branch summary, labels and a subagent', () => {
    const [file, long] = find('a long session with a compaction', (l) => l.entries.length >= 60 && l.entries.some((e) => e.type === 'compaction'));
    const index = buildTreeIndex(long.entries);
    assert.ok(long.entries.some((e) => index.children(e.id!).length >= 2), 'a fork');
    assert.ok(long.entries.some((e) => e.type === 'branch_summary'), 'a branch summary');
    assert.ok(index.labels.size >= 3, 'labels');
    const subDir = file.replace(/\.jsonl$/, '');
    const subs = readdirSync(subDir).filter((f) => f.endsWith('.jsonl'));
    assert.equal(subs.length, 1, 'a subagent session beside it');
    const sub = loaded.get(join(subDir, subs[0]!))!;
    assert.equal(sub.entries[0]?.type, 'session_init');
    assert.equal(sub.header?.parentSession, long.header?.id);
    assert.deepEqual(long.diagnostics.filter((d) => severityOf(d.kind) !== 'info'), []);
  });

  it('keeps its images in its own blob store, each named by the SHA-256 of its bytes', async () => {
    const store = new BlobStore(world.blobsDir);
    let refs = 0;
    for (const l of loaded.values()) {
      for (const r of findBlobRefs(l.entries)) {
        refs++;
        assert.ok(r.hash && (await store.has(r.hash)), `blob ${r.ref} resolves`);
        const bytes = readFileSync(join(world.blobsDir, r.hash!));
        assert.equal(createHash('sha256').update(bytes).digest('hex'), r.hash);
        assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
      }
    }
    assert.ok(refs >= 2, `${refs} images`);
  });

  it('has a v1 session to migrate and a damaged one to repair', () => {
    find('a v1 session', (l) => l.originalVersion === 1 && l.header !== null && l.readOnlyReason === null);
    const [, damaged] = find('a damaged session', (l) => l.diagnostics.some((d) => d.kind === 'torn-tail'));
    assert.ok(damaged.diagnostics.some((d) => d.kind === 'glued-records'));
  });

  it('times its sessions back from now, newest project first, and builds the same files every time', () => {
    const mtimes = files.map((f) => loaded.get(f)!.stat!.mtimeMs);
    assert.ok(mtimes.every((t) => t <= NOW && t > NOW - 60 * 86_400_000));
    const again = buildDemoHome(mkdtempSync(join(tmpdir(), 'sl-demo-')), { now: NOW });
    const rel = (w: World) => Object.values(w.projects).flat().map((p) => [p.file.slice(w.sessionsDir.length), readFileSync(p.file, 'utf8')]);
    assert.deepEqual(rel(again), rel(world));
  });

  it('has a README in its workspace that walks through what to try', () => {
    const readme = join(world.workspaceDir, 'README.md');
    assert.ok(existsSync(readme));
    const text = readFileSync(readme, 'utf8');
    for (const topic of ['Sessions view', 'compaction', 'branch', 'subagent', 'blob store', 'Migrate to v3', 'Repair into New File']) assert.ok(text.includes(topic), topic);
    assert.equal(basename(dirname(readme)), 'session-loom-demo');
  });
});
