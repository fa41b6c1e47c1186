// Claude Code writes a session's `summary` record into whichever transcript is current, often
// another session's file (claude-code-format.md A.10). The listing matches them across the files
// of a project; this test is about one written while the Sessions view is open: the session it
// names gets its title without a refresh (issue 24: it used to take a Refresh).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SessionLoomApi } from '../../../src/extension/extension';
import type { LoomNode, ProjectNode, SessionNode } from '../../../src/extension/sessions/nodes';
import { harnessAvailable, screenshot } from './harness';
import { activate, relistSessions, revealRow, until } from './util';

const CWD = '/tmp/late-summary';
const TITLE = 'A summary written after the listing';

/** The uuid of the last non-sidechain user/assistant record of a transcript (its leaf, A.11). */
function lastMessageUuid(text: string): string {
  let leaf: string | null = null;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { type?: string; isSidechain?: boolean; uuid?: string };
    if ((r.type === 'user' || r.type === 'assistant') && r.isSidechain !== true && typeof r.uuid === 'string') leaf = r.uuid;
  }
  assert.ok(leaf, 'a leaf');
  return leaf;
}

describe('Claude Code: a summary written later into another transcript titles its session (issue 24)', function () {
  this.timeout(120_000);
  let api: SessionLoomApi;
  const dir = path.join(os.homedir(), '.claude', 'projects', '-tmp-late-summary');
  const provider = () => api.sessions.provider;
  const project = async (): Promise<ProjectNode | undefined> => ((await provider().getChildren()) as LoomNode[]).find((x): x is ProjectNode => x.kind === 'project' && x.info.label === CWD);
  const label = async (file: string): Promise<string | undefined> => {
    const p = await project();
    const s = p ? ((await provider().getChildren(p)) as SessionNode[]).find((x) => x.file === file) : undefined;
    const l = s ? provider().getTreeItem(s).label : undefined;
    return typeof l === 'string' ? l : l?.label;
  };

  before(async () => {
    api = await activate();
    await provider().setFilter('default');
    await provider().setSearch('');
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await relistSessions(api);
  });

  it('appending a summary record to one transcript retitles the session whose leaf it names, without a refresh', async function () {
    // Two sessions of one project of their own: the agents' fixtures (short.jsonl, tool_heavy.jsonl) moved to another cwd.
    const claudeRoot = path.join(os.homedir(), '.claude', 'projects', '-home-marco-projects-spotter');
    const moved = (name: string): string => fs.readFileSync(path.join(claudeRoot, name), 'utf8').split('"cwd":"/home/marco/projects/spotter"').join(`"cwd":"${CWD}"`);
    fs.mkdirSync(dir, { recursive: true });
    const titled = path.join(dir, 'short.jsonl');
    const writer = path.join(dir, 'tool_heavy.jsonl');
    const titledText = moved('short.jsonl');
    fs.writeFileSync(titled, titledText);
    fs.writeFileSync(writer, moved('tool_heavy.jsonl'));
    await relistSessions(api);
    const before = await label(titled);
    assert.ok(before !== undefined, 'the session is listed');
    assert.notEqual(before, TITLE);
    const bytes = fs.readFileSync(titled);

    fs.appendFileSync(writer, `${JSON.stringify({ type: 'summary', summary: TITLE, leafUuid: lastMessageUuid(titledText) })}\n`);
    let now: string | undefined;
    await until(async () => (now = await label(titled)) === TITLE, () => `the title of short.jsonl (now ${now})`, 30_000);
    // The writer's own row keeps its title; the titled file was only read.
    assert.notEqual(await label(writer), TITLE);
    assert.deepEqual(fs.readFileSync(titled), bytes);
    if (harnessAvailable()) {
      const p = (await project())!;
      await revealRow(provider().treeView!, p, { expand: 1 });
      await new Promise((r) => setTimeout(r, 1000));
      await screenshot('sessions-claude-late-summary');
    }
  });
});
