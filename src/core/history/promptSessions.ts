// "Open in Session" for a prompt of the history: the session and the user message where it was
// sent. The history keeps no session id, so the match is by project and time: the sessions of
// the prompt's cwd (its project folders under the roots, every cwd encoding upstream uses) that
// were alive around `created_at`, and in them the user message with the same text closest in time.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { cwdDirNames } from '../formats/xcsh/cwd';
import { BodyReader } from '../engine/xcsh/lazy/bodyReader';
import { cachedOrBuiltIndex, type IndexCache } from '../engine/xcsh/lazy/indexCache';
import { contentText } from '../formats/xcsh/stats';
import { entryTime } from '../search/searchText';
import { ViewFlag, type ViewEntry } from '../tree/treeView';
import type { HistoryEntry } from './promptHistory';

export interface PromptLocation {
  file: string;
  entryId: string;
  /** |message time − created_at| in seconds. */
  offsetSeconds: number;
}

/** How far apart the history row and the session's user message may be. */
const WINDOW_MS = 15 * 60_000;

const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Whether a user message's text is this prompt (the agent trims it; a long one may be cut on one side). */
export function samePrompt(messageText: string, prompt: string): boolean {
  const a = norm(messageText);
  const b = norm(prompt);
  if (a === '' || b === '') return false;
  return a === b || (b.length >= 40 && (a.startsWith(b) || b.startsWith(a)));
}

/** The session files of a cwd's project folders that were written to around `atMs`. */
async function candidateFiles(roots: readonly string[], cwd: string, atMs: number): Promise<string[]> {
  const out: { file: string; distance: number }[] = [];
  for (const root of roots) {
    for (const dirName of new Set(cwdDirNames(cwd))) {
      const dir = join(root, dirName);
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const n of names) {
        if (!n.endsWith('.jsonl')) continue;
        const file = join(dir, n);
        const st = await stat(file).catch(() => null);
        if (!st?.isFile()) continue;
        // Written to after the prompt was sent (the agent appends); a copied file's birth time says nothing.
        if (st.mtimeMs < atMs - WINDOW_MS) continue;
        out.push({ file, distance: Math.abs(st.mtimeMs - atMs) });
      }
    }
  }
  return out.sort((a, b) => a.distance - b.distance).map((c) => c.file);
}

/** User entries whose bodies are read together. */
const READ_BATCH = 512;

/**
 * Finds where a history prompt was sent; null when no session under the roots holds it any more.
 * Each candidate is read through the session engine's index (kept in `cache` for a big session):
 * only its user messages' bodies are read back, never the whole file into memory.
 */
export async function locatePrompt(entry: HistoryEntry, roots: readonly string[], cache?: IndexCache): Promise<PromptLocation | null> {
  // Found by project and time: a row without either cannot be placed.
  if (!entry.cwd || entry.createdAt === null) return null;
  const atMs = entry.createdAt * 1000;
  let best: PromptLocation | null = null;
  for (const file of await candidateFiles(roots, entry.cwd, atMs)) {
    let ix;
    try {
      const got = await cachedOrBuiltIndex(file, cache);
      if (got.built && cache) await cache.save(got.index);
      ix = got.index;
    } catch {
      continue;
    }
    if (ix.header && typeof ix.header.cwd === 'string' && ix.header.cwd !== entry.cwd) continue;
    const users: number[] = [];
    for (let p = 0; p < ix.n; p++) if ((ix.viewFlags[p]! & ViewFlag.User) !== 0) users.push(p);
    const bodies = new BodyReader(ix);
    for (let k = 0; k < users.length; k += READ_BATCH) {
      let read;
      try {
        read = await bodies.read(users.slice(k, k + READ_BATCH));
      } catch {
        break; // the file changed while it was read: another candidate may still hold the prompt
      }
      for (const e of read as unknown as ViewEntry[]) {
        const m = e.message as { role?: unknown; content?: unknown } | undefined;
        if (e.type !== 'message' || !m || m.role !== 'user' || typeof e.id !== 'string') continue;
        const t = entryTime(e);
        if (t === null || Math.abs(t - atMs) > WINDOW_MS) continue;
        if (!samePrompt(contentText(m.content), entry.prompt)) continue;
        const offsetSeconds = Math.abs(t - atMs) / 1000;
        if (!best || offsetSeconds < best.offsetSeconds) best = { file, entryId: e.id, offsetSeconds };
      }
    }
    if (best && best.offsetSeconds < 5) break;
  }
  return best;
}
