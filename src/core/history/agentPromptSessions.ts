// "Open in Session" for a prompt of Claude Code's or Codex's history.jsonl: both name the session
// the prompt was sent in, so the session file is found by that id — Claude's transcript
// `<projects>/<project folder>/<sessionId>.jsonl`, Codex's rollout `rollout-<time>-<threadId>.jsonl`
// (or `.jsonl.zst`) under `sessions/YYYY/MM/DD/` — under the sessions roots and the agent's own
// home beside its history (`~/.claude/projects`, `~/.codex/sessions` and `archived_sessions`). In
// it, the typed prompt with the same text closest in time is the entry (its uuid, or its `L<line>`
// row); a prompt whose text the session words differently (pastes are placeholders in Claude's
// history) is the typed prompt closest in time. Read through each format's reader.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RecordBodies } from '../formats/claude/bodies';
import { readClaudeTranscript } from '../formats/claude/read';
import { RecordFlag } from '../formats/claude/records';
import { contentItems, isRealUserMessage, typedPrompt } from '../formats/codex/contextual';
import { loadCodexRollout } from '../formats/codex/load';
import { isObj } from '../formats/codex/types';
import { contentText } from '../tree/treeView';
import type { HistoryEntry } from './promptHistory';
import type { IndexCache } from '../engine/xcsh/lazy/indexCache';
import { locatePrompt, samePrompt, type PromptLocation } from './promptSessions';

/** How far apart the history line and the session's prompt may be when the text differs. */
const WINDOW_MS = 15 * 60_000;

/** Folders searched below a root for a rollout (sessions/YYYY/MM/DD). */
const CODEX_DEPTH = 4;

interface Candidate {
  entryId: string;
  text: string;
  time: number | null;
}

/** The best of a session's typed prompts for a history entry: same text closest in time, else closest in time. */
function bestPrompt(file: string, prompts: readonly Candidate[], entry: HistoryEntry): PromptLocation | null {
  const at = entry.createdAt === null ? null : entry.createdAt * 1000;
  const distance = (c: Candidate): number => (at === null || c.time === null ? Infinity : Math.abs(c.time - at));
  let best: { c: Candidate; same: boolean } | null = null;
  for (const c of prompts) {
    const same = samePrompt(c.text, entry.prompt);
    if (!same && distance(c) > WINDOW_MS) continue;
    if (!best || (same && !best.same) || (same === best.same && distance(c) < distance(best.c))) best = { c, same };
  }
  if (!best) return null;
  const d = distance(best.c);
  return { file, entryId: best.c.entryId, offsetSeconds: Number.isFinite(d) ? d / 1000 : 0 };
}

async function subdirs(dir: string): Promise<string[]> {
  const ents = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return ents.filter((d) => d.isDirectory()).map((d) => join(dir, d.name));
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (st) => st.isFile(),
    () => false,
  );
}

/** Claude transcripts named `<sessionId>.jsonl` in a root or one project folder below it. */
async function claudeFiles(dirs: readonly string[], sessionId: string): Promise<string[]> {
  const out: string[] = [];
  for (const dir of dirs) {
    for (const d of [dir, ...(await subdirs(dir))]) {
      const p = join(d, `${sessionId}.jsonl`);
      if (!out.includes(p) && (await isFile(p))) out.push(p);
    }
  }
  return out;
}

async function locateClaude(entry: HistoryEntry, roots: readonly string[], sessionId: string): Promise<PromptLocation | null> {
  const dirs = [...roots, ...(entry.home ? [join(entry.home, 'projects')] : [])];
  for (const file of await claudeFiles(dirs, sessionId)) {
    let t;
    try {
      t = await readClaudeTranscript(file);
    } catch {
      continue;
    }
    const typed = t.records.filter((r, i) => !t.shadowed.has(i) && r.type === 'user' && r.toolResults === null && (r.flags & (RecordFlag.Meta | RecordFlag.Sidechain | RecordFlag.CompactSummary)) === 0);
    let bodies;
    try {
      bodies = await new RecordBodies(file).read(typed.map((r) => ({ line: r.line, start: r.start, end: r.end, uuid: r.uuid })));
    } catch {
      continue; // rewritten while read
    }
    const prompts = typed.map((r, k): Candidate => {
      const m = bodies[k]!.message;
      return { entryId: r.uuid, text: contentText(isObj(m) ? m.content : undefined), time: Number.isFinite(r.time) ? r.time : null };
    });
    const found = bestPrompt(file, prompts, entry);
    if (found) return found;
  }
  return null;
}

/** Codex rollouts whose name ends with the thread id, under these folders (sessions/YYYY/MM/DD). */
async function codexFiles(dirs: readonly string[], threadId: string): Promise<string[]> {
  const out: string[] = [];
  const names = [`${threadId}.jsonl`, `${threadId}.jsonl.zst`];
  const walk = async (dir: string, depth: number): Promise<void> => {
    const ents = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const d of ents) {
      const p = join(dir, d.name);
      if (d.isFile() && names.some((n) => d.name.endsWith(`-${n}`) || d.name === n) && !out.includes(p)) out.push(p);
      else if (d.isDirectory() && depth < CODEX_DEPTH) await walk(p, depth + 1);
    }
  };
  for (const dir of dirs) await walk(dir, 0);
  return out;
}

async function locateCodex(entry: HistoryEntry, roots: readonly string[], threadId: string): Promise<PromptLocation | null> {
  const dirs = [...roots, ...(entry.home ? [join(entry.home, 'sessions'), join(entry.home, 'archived_sessions')] : [])];
  for (const file of await codexFiles(dirs, threadId)) {
    let rollout;
    try {
      rollout = await loadCodexRollout(file);
    } catch {
      continue;
    }
    const prompts: Candidate[] = [];
    for (const r of rollout.records) {
      const p = r.payload;
      if (r.type !== 'response_item' || !isObj(p) || !isRealUserMessage(p)) continue;
      const text = contentItems(p)
        .map((c) => (typeof c.text === 'string' ? c.text : ''))
        .join('\n');
      const ms = r.timestamp !== null ? Date.parse(r.timestamp) : NaN;
      prompts.push({ entryId: `L${r.line}`, text: typedPrompt(text), time: Number.isFinite(ms) ? ms : null });
    }
    const found = bestPrompt(file, prompts, entry);
    if (found) return found;
  }
  return null;
}

/**
 * Where a prompt of any history was sent: a Claude Code or Codex one by its session id, an xcsh
 * one by project and time (promptSessions.ts). Null when no session under the roots holds it.
 */
export async function locateAnyPrompt(entry: HistoryEntry, roots: readonly string[], cache?: IndexCache): Promise<PromptLocation | null> {
  if (entry.agent === undefined) return locatePrompt(entry, roots, cache);
  const id = entry.sessionId;
  // (an id is a file name's part: never a path)
  if (!id || /[/\\]/.test(id)) return null;
  return entry.agent === 'claude' ? locateClaude(entry, roots, id) : locateCodex(entry, roots, id);
}
