// What happens to an entry right before it is written (Part A "Size control and blob
// externalisation", Part B §8). Pure functions with structural sharing: a value that needs no
// change comes back as the same object, so unchanged entries stay byte-identical on rewrite.
//
// Semantics follow upstream's `prepareForPersistence`:
//  - any string longer than MAX_PERSIST_CHARS is cut so that cut + TRUNCATION_NOTICE is exactly
//    MAX_PERSIST_CHARS code units (one less when the cut would split a surrogate pair, which
//    would leave a lone surrogate in the file);
//  - signature fields over the limit are emptied, never cut (a cut signature is rejected by the
//    provider; an empty one is simply not replayed);
//  - `partialJson` / `jsonlEvents` are dropped at any depth (streaming leftovers);
//  - an object that changed and has string `content` plus `lineCount` gets `lineCount`
//    recomputed as `content.split("\n").length`;
//  - image blocks inside any `content` array whose base64 `data` is ≥ 1024 characters are stored in
//    the blob store and replaced by `blob:sha256:<sha256 of the decoded bytes>`.
import { blobRef, isBlobRef, type BlobStore } from './blobs';

export const MAX_PERSIST_CHARS = 500_000;
export const TRUNCATION_NOTICE = '\n\n[Session persistence truncated large content]';
export const BLOB_EXTERNALIZE_THRESHOLD = 1024;

const SIGNATURE_KEYS = new Set(['thinkingSignature', 'thoughtSignature', 'textSignature']);
const TRANSIENT_KEYS = new Set(['partialJson', 'jsonlEvents']);

function truncateString(s: string, key: string | undefined): string {
  if (s.length <= MAX_PERSIST_CHARS) return s;
  if (key !== undefined && SIGNATURE_KEYS.has(key)) return '';
  let limit = Math.max(0, MAX_PERSIST_CHARS - TRUNCATION_NOTICE.length);
  const last = s.charCodeAt(limit - 1);
  if (limit > 0 && last >= 0xd800 && last <= 0xdbff) limit--;
  return s.slice(0, limit) + TRUNCATION_NOTICE;
}

/** Truncation + transient-field stripping + lineCount, deep. Returns the input when unchanged. */
export function truncateForPersist<T>(value: T): T {
  return walk(value, undefined) as T;
}

/** `items.map(fn)`, but the input array itself when `fn` changed nothing (copy on first change). */
function mapArrayOnWrite(items: unknown[], fn: (item: unknown) => unknown): unknown[] {
  let out: unknown[] | null = null;
  for (let i = 0; i < items.length; i++) {
    const n = fn(items[i]);
    if (n !== items[i]) {
      out ??= items.slice();
      out[i] = n;
    }
  }
  return out ?? items;
}

function walk(v: unknown, key: string | undefined): unknown {
  if (typeof v === 'string') return truncateString(v, key);
  if (v === null || typeof v !== 'object') return v;
  // items inherit the array's key, as upstream does (a signature array stays a signature)
  if (Array.isArray(v)) return mapArrayOnWrite(v, (item) => walk(item, key));
  const obj = v as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const k of Object.keys(obj)) {
    if (TRANSIENT_KEYS.has(k)) {
      out ??= { ...obj };
      delete out[k];
      continue;
    }
    const n = walk(obj[k], k);
    if (n !== obj[k]) {
      out ??= { ...obj };
      out[k] = n;
    }
  }
  if (out && 'lineCount' in out && typeof out.content === 'string') {
    out.lineCount = out.content.split('\n').length;
  }
  return out ?? obj;
}

function isInlineBigImage(b: unknown): b is { type: 'image'; data: string } {
  if (!b || typeof b !== 'object') return false;
  const r = b as Record<string, unknown>;
  const data = r.data;
  return r.type === 'image' && typeof data === 'string' && !isBlobRef(data) && data.length >= BLOB_EXTERNALIZE_THRESHOLD;
}

function collectImages(v: unknown, key: string | undefined, found: Set<string>): void {
  if (v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const item of v) {
      if (key === 'content' && isInlineBigImage(item)) found.add(item.data);
      else collectImages(item, key, found);
    }
    return;
  }
  const obj = v as Record<string, unknown>;
  for (const k of Object.keys(obj)) collectImages(obj[k], k, found);
}

function replaceImages(v: unknown, key: string | undefined, refs: Map<string, string>): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    return mapArrayOnWrite(v, (item) => (key === 'content' && isInlineBigImage(item) ? { ...item, data: refs.get(item.data)! } : replaceImages(item, key, refs)));
  }
  const obj = v as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const k of Object.keys(obj)) {
    const n = replaceImages(obj[k], k, refs);
    if (n !== obj[k]) {
      out ??= { ...obj };
      out[k] = n;
    }
  }
  return out ?? obj;
}

/**
 * Moves large inline images into the blob store. The bytes are written BEFORE the entry that
 * references them, so a crash never leaves a reference to a blob that was not stored.
 */
export async function externalizeImages<T>(entry: T, store: BlobStore): Promise<T> {
  const found = new Set<string>();
  collectImages(entry, undefined, found);
  if (found.size === 0) return entry;
  const refs = new Map<string, string>();
  for (const data of found) refs.set(data, blobRef(await store.put(Buffer.from(data, 'base64'))));
  return replaceImages(entry, undefined, refs) as T;
}

/** Everything applied to an entry before it is written. Without a store images stay inline. */
export async function prepareEntryForPersist<T>(entry: T, store?: BlobStore): Promise<T> {
  const externalised = store ? await externalizeImages(entry, store) : entry;
  return truncateForPersist(externalised);
}
