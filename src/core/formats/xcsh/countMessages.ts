// How many messages a session file has, counted one way everywhere (issue 14): its `message`
// entries as the loader reads them — glued records split, unreadable lines left out — the same
// number a loaded session's stats give. The extension runs it in its model worker (issue 11).
import { loadSessionFile } from './load';

export async function countMessages(file: string): Promise<number> {
  const loaded = await loadSessionFile(file);
  let n = 0;
  for (const e of loaded.entries) if (e.type === 'message') n++;
  return n;
}
