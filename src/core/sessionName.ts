// What Session Loom calls a session wherever it chooses the name (issue 25): the editor's tab, the
// Compare tab, dialogs, notifications, the default name of an export. The session's title, else its
// first prompt that says what it is about, else its file name — as the Sessions view's rows read.
import { basename } from 'node:path';
import { readSessionInfo } from './discovery/discovery';
import { oneLine } from './tree/treeView';

export interface SessionNameFacts {
  title: string | null;
  firstPrompt: string | null;
  fileName: string;
}

/** The session's name on one line, at most `max` characters. */
export function sessionName(s: SessionNameFacts, max = 60): string {
  const named = s.title ?? s.firstPrompt;
  return named && named.trim() !== '' ? oneLine(named, max) : s.fileName;
}

/** A file name made from the session's name (an export's default): letters, digits and dashes, at most `max` long. */
export function sessionFileStem(s: SessionNameFacts, max = 48): string {
  const stem = sessionName(s, 200)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .normalize('NFC') // (Hangul syllables come back together)
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/, '');
  return stem !== '' ? stem : s.fileName.replace(/\.jsonl(\.zstd?)?$/, '');
}

/** What names the session in `file`, from its first bytes (discovery's listing read). */
export async function readNameFacts(file: string): Promise<SessionNameFacts> {
  const info = await readSessionInfo(file).catch(() => null);
  return { title: info?.title ?? null, firstPrompt: info?.firstPrompt ?? null, fileName: basename(file) };
}

/** The name of the session in `file`; its file name when it has none. */
export async function readSessionName(file: string, max = 60): Promise<string> {
  return sessionName(await readNameFacts(file), max);
}
