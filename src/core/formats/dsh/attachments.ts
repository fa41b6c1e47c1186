// dsh image attachments (dsh-format.md §1): an image block points to
// `<dsh home>/attachments/v1/objects/<hex[0:2]>/<hex>` through `attachmentId: 'sha256:<hex>'`.
//
// The same safety rules as the xcsh blob store, through the same reader (store/hashedFile.ts): an
// id becomes a path only when its hash is exactly 64 lowercase hex characters; the object must be
// a regular file (never a link: opened with O_NOFOLLOW, and O_NONBLOCK so a FIFO cannot hang the
// read), no larger than the cap, read for exactly its fstat size, and its SHA-256 must be its
// name. Every failure is a typed answer.
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { dshHome } from './paths';
import { readHashedFile } from '../../store/hashedFile';

/** Providers cap images far below this; a bigger object is no real attachment. */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 50 * 1024 * 1024;
const HASH_RE = /^[0-9a-f]{64}$/;

export type DshAttachmentProblem =
  | { reason: 'invalid-id'; id: string }
  | { reason: 'missing' }
  | { reason: 'symlink' }
  | { reason: 'not-regular' }
  | { reason: 'too-large'; size: number; maxBytes: number }
  | { reason: 'hash-mismatch'; actual: string }
  | { reason: 'unreadable'; code: string };

export type DshAttachmentRead = { ok: true; bytes: Buffer; path: string } | { ok: false; problem: DshAttachmentProblem };

/** The hex hash of `sha256:<64 lowercase hex>`, or null (the only gate to a path). */
export function parseAttachmentId(id: unknown): string | null {
  if (typeof id !== 'string' || !id.startsWith('sha256:')) return null;
  const hex = id.slice('sha256:'.length);
  return HASH_RE.test(hex) ? hex : null;
}

/** `<home>/attachments/v1/objects/<hex[0:2]>/<hex>` for a valid id, else null. */
export function dshAttachmentPath(id: string, home: string = dshHome()): string | null {
  const hex = parseAttachmentId(id);
  return hex === null ? null : join(home, 'attachments', 'v1', 'objects', hex.slice(0, 2), hex);
}

function problemOf(st: Stats, maxBytes: number): DshAttachmentProblem | null {
  if (st.isSymbolicLink()) return { reason: 'symlink' };
  if (!st.isFile()) return { reason: 'not-regular' };
  if (st.size > maxBytes) return { reason: 'too-large', size: st.size, maxBytes };
  return null;
}

/** The bytes of an attachment, checked as the file comment says, or why not. Never throws. */
export async function readDshAttachment(id: string, opts: { home?: string; maxBytes?: number } = {}): Promise<DshAttachmentRead> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES;
  const hex = parseAttachmentId(id);
  const path = dshAttachmentPath(id, opts.home ?? dshHome());
  if (hex === null || path === null) return { ok: false, problem: { reason: 'invalid-id', id: String(id).slice(0, 100) } };
  const r = await readHashedFile(path, hex, (st) => problemOf(st, maxBytes));
  return r.ok ? { ...r, path } : r;
}
