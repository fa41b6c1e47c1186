// The session files of a corpus folder, recursively (the search bench's measurements list them the same way).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function sessionFiles(dir: string): string[] {
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...sessionFiles(p));
    else if (d.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}
