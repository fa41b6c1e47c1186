// `session-loom tree` text on a session with many forks (issue 21): as the agents' own `/tree`,
// the trunk (the child on the path to the default leaf, else the last child) stays at its parent's
// level and each side branch hangs one level under its fork point, so the indentation is bounded
// by how deeply side branches nest, not by how many forks the main line passed (it used to grow by
// a level at each fork: 252 MB indented to 3,666 columns on a generated 100k-entry session). The
// engine's printer (lazyTreeCommand.ts) and the whole-file reference (test/reference/cliRead.ts)
// are both run; --json is unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { treeCommand } from '../../src/cli/commands/read';
import { referenceTree } from '../reference/cliRead';
import type { Io } from '../../src/cli/util';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'sl-treelayout-'));

async function tree(path: string, eager: boolean, ...extra: string[]): Promise<string> {
  let out = '';
  const io: Io = { out: (t) => void (out += t), err: () => undefined };
  assert.equal(await (eager ? referenceTree : treeCommand)([path, ...extra], io), 0);
  return out;
}

/** Both printers: the same text, which is returned. */
async function treeText(path: string): Promise<string> {
  const eager = await tree(path, true);
  const lazy = await tree(path, false);
  assert.equal(lazy, eager, 'lazy and eager print the same text');
  return eager;
}

const line = (o: object): string => JSON.stringify(o) + '\n';
const header = line({ type: 'session', version: 3, id: 'layout', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' });
const msg = (id: string, parentId: string | null, role: string, text: string): string =>
  line({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:01.000Z', message: { role, content: [{ type: 'text', text }] } });

interface Forked {
  path: string;
  entries: number;
  parent: Map<string, string | null>;
  /** Ids of the main line (the trunk at every fork). */
  main: Set<string>;
  /** First entry of each side branch. */
  sideHeads: Set<string>;
  labelled: Map<string, string>;
  leaf: string;
}

/**
 * A main line of ~`n` entries with a three-entry side branch off every 10th entry; every 50th
 * side branch forks once more (a sub-branch off its second entry), so side branches nest two deep.
 * Labels on some main-line entries and on one side entry. The last entry in file order is on the main line.
 */
function forkedSession(path: string, n: number): Forked {
  const parent = new Map<string, string | null>();
  const main = new Set<string>();
  const sideHeads = new Set<string>();
  const labelled = new Map<string, string>();
  let body = header;
  let count = 0;
  const id = (): string => `e${(count++).toString(16).padStart(7, '0')}`;
  const add = (p: string | null, role: string, text: string): string => {
    const x = id();
    parent.set(x, p);
    body += msg(x, p, role, text);
    return x;
  };
  const label = (p: string, target: string, name: string): string => {
    const x = id();
    parent.set(x, p);
    labelled.set(target, name);
    body += line({ type: 'label', id: x, parentId: p, timestamp: '2026-01-01T00:00:02.000Z', targetId: target, label: name });
    return x;
  };
  let prev: string | null = null;
  let forks = 0;
  while (count < n) {
    prev = add(prev, count % 2 ? 'assistant' : 'user', `main line entry ${count} with some words to preview`);
    main.add(prev);
    if (main.size % 10 === 0) {
      forks++;
      const s1 = add(prev, 'user', `try another way ${forks}`);
      sideHeads.add(s1);
      const s2 = add(s1, 'assistant', `another answer ${forks}`);
      if (forks % 5 === 0) {
        // Before the side branch's own continuation, which is therefore its trunk (the last child).
        const t1 = add(s2, 'user', `a branch of a branch ${forks}`);
        sideHeads.add(t1);
        add(t1, 'assistant', `deeper ${forks}`);
      }
      add(s2, 'user', `and on ${forks}`);
    }
    if (main.size % 97 === 0) {
      prev = label(prev, prev, `checkpoint ${main.size}`);
      main.add(prev);
    }
  }
  // A label on a side entry: written on the main line (labels are entries of their own).
  const sideTarget = [...sideHeads][3]!;
  prev = label(prev!, sideTarget, 'side checkpoint');
  main.add(prev);
  prev = add(prev, 'user', 'the last word');
  main.add(prev);
  writeFileSync(path, body);
  return { path, entries: count, parent, main, sideHeads, labelled, leaf: prev };
}

/** The prefix of a row (box-drawing and spaces) and its id. */
function parseRow(row: string): { prefix: string; id: string; rest: string } {
  const m = /^((?:├─ |└─ |│ {2}| {3})*)(\S+) (.*)$/.exec(row);
  assert.ok(m, `a row: ${JSON.stringify(row)}`);
  return { prefix: m[1]!, id: m[2]!, rest: m[3]! };
}

test('tree text on a long main line with a side branch every 10 entries: the trunk stays at one level, each side branch one level under its fork point, indentation bounded by the nesting of side branches', async (t) => {
  const s = forkedSession(join(tmp(), 'forked.jsonl'), 2000);
  assert.ok(s.sideHeads.size >= 150, `${s.sideHeads.size} side branches`);
  const text = await treeText(s.path);
  const rows = text.trimEnd().split('\n');
  assert.equal(rows.length, s.entries, 'one row per entry');
  const bytes = Buffer.byteLength(text);
  const widest = Math.max(...rows.map((r) => r.length));
  t.diagnostic(`${s.entries} entries, ${s.sideHeads.size} side branches: ${bytes} bytes (${(bytes / s.entries).toFixed(1)} per entry), widest row ${widest}`);

  const prefixOf = new Map<string, string>();
  for (const r of rows) {
    const { prefix, id } = parseRow(r);
    prefixOf.set(id, prefix);
  }
  const level = (prefix: string): number => prefix.length / 3;
  /** The prefix before the rest of an entry's own run (its first row's `├─ ` becomes `│  `). */
  const restOf = (prefix: string): string => (prefix.endsWith('├─ ') ? prefix.slice(0, -3) + '│  ' : prefix);

  // The trunk: every main-line row at column 0.
  for (const id of s.main) assert.equal(prefixOf.get(id), '', `main-line row ${id} unindented`);
  // Each side branch: one level under its fork point, `├─ ` before its first row.
  let maxLevel = 0;
  for (const [id, prefix] of prefixOf) {
    maxLevel = Math.max(maxLevel, level(prefix));
    const p = s.parent.get(id) ?? null;
    if (p === null) continue;
    const under = restOf(prefixOf.get(p)!);
    if (s.sideHeads.has(id)) assert.equal(prefix, under + '├─ ', `side branch ${id} one level under its fork point ${p}`);
    else assert.equal(prefix, under, `${id} continues its parent's run at the same level`);
  }
  assert.equal(maxLevel, 2, 'side branches nest two deep, and so does the text');
  // Linear in the entries: a row is an id, a preview of at most 72 characters and a short prefix.
  assert.ok(bytes / s.entries < 100, `${(bytes / s.entries).toFixed(1)} bytes per entry`);
  assert.ok(widest < 120, `no row is indented far to the right (widest: ${widest})`);

  // Side branches come right after their fork point, before the trunk goes on.
  const at = new Map(rows.map((r, i) => [parseRow(r).id, i]));
  for (const h of s.sideHeads) {
    const p = s.parent.get(h)!;
    if (!s.main.has(p)) continue;
    assert.equal(at.get(h), at.get(p)! + 1, `side branch ${h} right under its fork point`);
  }
  // Labels in brackets, the default leaf marked once.
  for (const [target, name] of s.labelled) assert.ok(rows[at.get(target)!]!.endsWith(` [${name}]`), `${target} shows [${name}]`);
  assert.equal(rows.filter((r) => r.endsWith('  ← leaf')).length, 1);
  assert.ok(rows[at.get(s.leaf)!]!.endsWith('user: the last word  ← leaf'));
});

test('tree text: the trunk is the child on the path to the default leaf (even when it is not the last child); the other children hang under the fork point in file order; --json keeps its nesting by branch point', async () => {
  const path = join(tmp(), 'leaf-on-branch.jsonl');
  // a1 → a2 → {a3 → a4, b1 → b2 → {c1, b3}}; the last entry (b3) is the default leaf: at a2 the
  // trunk is b1 (file order puts a3 first), at b2 it is b3 (c1 first).
  writeFileSync(
    path,
    header +
      msg('a1', null, 'user', 'hello') +
      msg('a2', 'a1', 'assistant', 'hi') +
      msg('a3', 'a2', 'user', 'first try') +
      msg('a4', 'a3', 'assistant', 'first answer') +
      msg('b1', 'a2', 'user', 'second try') +
      msg('b2', 'b1', 'assistant', 'second answer') +
      line({ type: 'label', id: 'l1', parentId: 'b2', timestamp: '2026-01-01T00:00:02.000Z', targetId: 'a3', label: 'old way' }) +
      msg('c1', 'b2', 'user', 'a side question') +
      msg('b3', 'l1', 'user', 'go on'),
  );
  const text = await treeText(path);
  assert.equal(
    text,
    [
      'a1 user: hello',
      'a2 assistant: hi',
      '├─ a3 user: first try [old way]',
      '│  a4 assistant: first answer',
      'b1 user: second try',
      'b2 assistant: second answer',
      '├─ c1 user: a side question',
      'l1 label: a3 ← "old way"',
      'b3 user: go on  ← leaf',
      '',
    ].join('\n'),
  );
  // Without the default leaf below a fork, the last child is its trunk.
  const json = JSON.parse(await tree(path, true, '--json')) as { roots: { entries: { id: string }[]; children: { entries: { id: string }[] }[] }[] };
  assert.deepEqual(json.roots[0]!.entries.map((e) => e.id), ['a1', 'a2']);
  assert.deepEqual(json.roots[0]!.children.map((c) => c.entries[0]!.id), ['a3', 'b1'], '--json: children in file order, nested by branch point as before');
  assert.equal(await tree(path, false, '--json'), await tree(path, true, '--json'));
});

test('tree text: a fork off a side branch the default leaf is not on keeps its last child as the trunk', async () => {
  const path = join(tmp(), 'side-fork.jsonl');
  writeFileSync(
    path,
    header +
      msg('a1', null, 'user', 'hello') +
      msg('s1', 'a1', 'user', 'side') +
      msg('x1', 's1', 'assistant', 'x') +
      msg('y1', 's1', 'assistant', 'y') +
      msg('y2', 'y1', 'user', 'y goes on') +
      msg('a2', 'a1', 'assistant', 'main'),
  );
  assert.equal(
    await treeText(path),
    ['a1 user: hello', '├─ s1 user: side', '│  ├─ x1 assistant: x', '│  y1 assistant: y', '│  y2 user: y goes on', 'a2 assistant: main  ← leaf', ''].join('\n'),
  );
});
