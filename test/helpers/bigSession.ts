// A big, simple session for the write tests that race a writer or a reader: long enough that a rewrite takes a
// while, each message numbered (`m<i> …`) so order and loss can be checked.
import { utimesSync, writeFileSync } from 'node:fs';

/** Sets a file's times `ms` into the past (a minute by default: not "live"). */
export function age(p: string, ms = 60_000): void {
  const t = new Date(Date.now() - ms);
  utimesSync(p, t, t);
}

/** The filler of every message bigSession writes. */
export const PAD = 'x'.repeat(900);

/** A v1 (migrate) or v3 (title) session of about `mb` megabytes, aged; message i says `m<i> …`. Returns the message count. */
export function bigSession(path: string, version: 1 | 3, mb: number): number {
  const n = Math.ceil((mb << 20) / 1000);
  const parts = [version === 3 ? '{"type":"session","version":3,"id":"big"}' : '{"type":"session","id":"big"}'];
  for (let i = 0; i < n; i++) {
    const id = i.toString(16).padStart(8, '0');
    const msg = { role: 'user', content: `m${i} ${PAD}` };
    parts.push(JSON.stringify(version === 3 ? { type: 'message', id, parentId: i ? (i - 1).toString(16).padStart(8, '0') : null, message: msg } : { type: 'message', message: msg }));
  }
  writeFileSync(path, parts.join('\n') + '\n');
  age(path);
  return n;
}
