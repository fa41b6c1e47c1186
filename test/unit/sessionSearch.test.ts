import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { branchTokens, isSearchMatch, matchSummary, scanOrder, searchEmptyText, searchStatusText, sessionShown, titleMatches, type SessionSearchHit } from '../../src/core/discovery/sessionSearch';
import { searchSession } from '../reference/treeView';
import { buildTreeIndex } from '../../src/core/tree/tree';
import type { SessionEntry } from '../../src/core/formats/xcsh/schemas';
import { tokenizeSearch, type ViewEntry } from '../../src/core/tree/treeView';
import { segmentsUnder, treeSourceFromIndex } from '../reference/treeView';

const msg = (id: string, parentId: string | null, role: string, text: string): ViewEntry => ({
  type: 'message',
  id,
  parentId,
  message: { role, content: [{ type: 'text', text }] },
});
const source = (entries: ViewEntry[]) => treeSourceFromIndex(buildTreeIndex(entries as SessionEntry[]));

// a → b → c, fork at c: d (→ e) and f; a label on d.
const entries: ViewEntry[] = [
  msg('a', null, 'user', 'Fix the parser'),
  msg('b', 'a', 'assistant', 'Looking at the Parser now'),
  msg('c', 'b', 'user', 'split glued records'),
  msg('d', 'c', 'assistant', 'Glued records are split'),
  msg('e', 'd', 'user', 'thanks'),
  msg('f', 'c', 'assistant', 'I will report glued records instead'),
  { type: 'label', id: 'l', parentId: 'e', targetId: 'd', label: 'checkpoint' },
];

describe('search across sessions', () => {
  it('counts the entries the branch tree shows for the search, AND-ed and case-insensitive', () => {
    const src = source(entries);
    const { hit, tree } = searchSession(src, { title: 'Parser work' }, 'default', tokenizeSearch('GLUED records'));
    assert.deepEqual(hit, { entryMatches: 3, titleMatch: false });
    assert.deepEqual([...tree.parent.keys()].sort(), ['c', 'd', 'f']);
    // The matches hang in the tree the view shows: c, then its two branches.
    assert.deepEqual(segmentsUnder(tree, null), [{ kind: 'entry', id: 'c' }]);
    assert.deepEqual(segmentsUnder(tree, 'c').map((s) => (s.kind === 'entry' ? s.id : s.ids)), ['d', 'f']);
  });

  it('matches labels and roles like the branch tree, and respects the filter', () => {
    const src = source(entries);
    assert.equal(searchSession(src, {}, 'default', ['checkpoint']).hit.entryMatches, 1);
    assert.equal(searchSession(src, {}, 'default', ['user', 'glued']).hit.entryMatches, 1);
    assert.equal(searchSession(src, {}, 'user-only', ['records']).hit.entryMatches, 1);
    assert.equal(searchSession(src, {}, 'default', ['nothing-like-this']).hit.entryMatches, 0);
  });

  it('matches the title or the first prompt too', () => {
    assert.equal(titleMatches({ title: 'Parser work', firstUserMessage: 'Fix the JSONL reader' }, ['parser', 'jsonl']), true);
    assert.equal(titleMatches({ title: undefined, firstUserMessage: 'Fix the JSONL reader' }, ['reader']), true);
    assert.equal(titleMatches({ title: 'Parser work' }, ['reader']), false);
    assert.equal(titleMatches({ title: 'Parser work' }, []), false, 'an empty search matches nothing');
    const { hit } = searchSession(source(entries), { title: 'Weekly planning' }, 'default', ['planning']);
    assert.deepEqual(hit, { entryMatches: 0, titleMatch: true });
    assert.equal(isSearchMatch(hit), true);
    assert.equal(isSearchMatch({ entryMatches: 0, titleMatch: false }), false);
    assert.equal(isSearchMatch(undefined), false);
  });

  it('shows the whole tree of a session that matched only by its title', () => {
    const tokens = ['planning'];
    assert.deepEqual(branchTokens({ entryMatches: 0, titleMatch: true }, tokens), []);
    assert.deepEqual(branchTokens({ entryMatches: 2, titleMatch: true }, tokens), tokens);
    assert.deepEqual(branchTokens(undefined, tokens), tokens);
  });

  it('describes a hit', () => {
    assert.equal(matchSummary({ entryMatches: 1, titleMatch: false }), '1 match');
    assert.equal(matchSummary({ entryMatches: 12, titleMatch: true }), '12 matches');
    assert.equal(matchSummary({ entryMatches: 0, titleMatch: true }), 'title matches');
    assert.equal(matchSummary(undefined), '');
  });

  it('keeps a parent session visible when only a subagent session matches', () => {
    const sub = { file: 'p/sub.jsonl', subagents: [] };
    const parent = { file: 'p.jsonl', subagents: [sub] };
    const other = { file: 'o.jsonl', subagents: [] };
    const hits = new Map<string, SessionSearchHit>([
      ['p/sub.jsonl', { entryMatches: 2, titleMatch: false }],
      ['o.jsonl', { entryMatches: 0, titleMatch: false }],
    ]);
    assert.equal(sessionShown(parent, hits), true);
    assert.equal(sessionShown(sub, hits), true);
    assert.equal(sessionShown(other, hits), false);
    assert.equal(sessionShown({ file: 'unscanned.jsonl', subagents: [] }, hits), false);
  });

  it('scans parents before their subagent sessions, each once', () => {
    const sub = { file: 's', subagents: [] };
    const list = [
      { file: 'a', subagents: [sub] },
      { file: 'b', subagents: [] },
    ];
    assert.deepEqual(scanOrder(list).map((s) => s.file), ['a', 's', 'b']);
    const loop: { file: string; subagents: unknown[] } = { file: 'x', subagents: [] };
    loop.subagents.push(loop);
    assert.deepEqual(scanOrder([loop as never]).map((s: { file: string }) => s.file), ['x']);
  });

  it('says what is searched and how far it got', () => {
    const base = { query: 'glued records', scanned: 3, total: 10, matched: 1 };
    assert.equal(searchStatusText({ ...base, state: 'running' }), '“glued records” · searching 3/10… 1 found');
    assert.equal(searchStatusText({ ...base, matched: 0, state: 'running' }), '“glued records” · searching 3/10…');
    assert.equal(searchStatusText({ ...base, scanned: 10, matched: 2, state: 'done' }), '“glued records” · 2 matching sessions');
    assert.equal(searchStatusText({ ...base, scanned: 10, matched: 0, state: 'done' }), '“glued records” · no matches');
    assert.equal(searchStatusText({ ...base, state: 'stopped' }), '“glued records” · stopped after 3 of 10 sessions: 1 found');
    assert.equal(searchEmptyText({ ...base, matched: 0, state: 'running' }), 'Searching 3 of 10 sessions…');
    assert.equal(searchEmptyText({ ...base, matched: 0, state: 'done' }), 'No session matches “glued records”');
    assert.equal(searchEmptyText({ ...base, matched: 0, state: 'stopped' }), 'Search stopped after 3 of 10 sessions: no match so far');
  });
});
