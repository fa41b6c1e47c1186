// The session files of a corpus folder, recursively (the search bench's measurements list them the
// same way), and the baseline over them.
import { readdirSync, readFileSync } from 'node:fs';
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

/**
 * The search bench's baseline, a bare read+parse: read each file, split it at newlines and
 * JSON.parse every line (a damaged line — two records glued in some real sessions — skipped, as
 * the reader skips it). The records parsed.
 */
export function bareReadParse(files: Iterable<string>): number {
  let records = 0;
  for (const f of files) {
    const buf = readFileSync(f);
    for (let s = 0; s < buf.length; ) {
      let e = buf.indexOf(10, s);
      if (e === -1) e = buf.length;
      if (e > s) {
        try {
          JSON.parse(buf.toString('utf8', s, e));
          records++;
        } catch {
          // skipped
        }
      }
      s = e + 1;
    }
  }
  return records;
}
