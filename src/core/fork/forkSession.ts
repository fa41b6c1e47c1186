// "New Session from Here" (issue 13): a new v3 session file holding the root → entry path of
// another session, like the agents' `/branch` and `/fork`, without their known defects:
// - labels on the path keep a correct parent chain: the path is copied verbatim, label entries
//   included, so every `parentId` names an entry of the new file (upstream filters the label
//   entries out and leaves their children pointing at ids that are not in the file,
//   earendil-works/pi #5669);
// - a legacy (v1/v2) source is migrated in memory first and the fork carries exactly the ids the
//   viewer showed (Part C §10), instead of forking unmigrated or empty history (pi #9950);
// - blob references stay references (the loader never resolves them), so the fork is as small as
//   its source and points at the same store;
// - the path's records are copied byte for byte where the loader did not change them (Part C §1:
//   number spellings, key order and fields the agent calls transient stay as they were); a
//   migrated record, or one spread over several lines, is written as JSON of its migrated value;
// - the source is only read; the new file is written with writeNewSessionText (temp + link,
//   never overwrites).
import { randomBytes } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { loadSessionFile, type LoadedSession } from '../formats/xcsh/load';
import { generateEntryId } from '../formats/xcsh/ids';
import { CURRENT_SESSION_VERSION } from '../formats/xcsh/entryTypes';
import type { SessionEntry, SessionHeader } from '../formats/xcsh/schemas';
import { contentText } from '../formats/xcsh/stats';
import { applyTitle, sanitizeTitle } from '../formats/xcsh/title';
import { applyLabel } from '../tree/treeState';
import { buildTreeIndex } from '../tree/tree';
import { writeNewSessionText } from '../store/rewrite';

/** Why a fork was refused: the source cannot be forked as it is, or the output path is a symbolic link (nothing was written). */
export class ForkRefusedError extends Error {
  constructor(
    readonly reason: 'damaged' | 'unknown-entry' | 'broken-path' | 'empty' | 'output-symlink',
    message: string,
    /** The file the refusal is about when it is not the source (the output path). */
    readonly path?: string,
  ) {
    super(message);
    this.name = 'ForkRefusedError';
  }
}

export interface ForkPlan {
  header: SessionHeader;
  entries: SessionEntry[];
  /** sourceIndex[i] = the position in the source's entries of entries[i]; -1 for a new entry. */
  sourceIndex: number[];
  /** Entries copied from the source path (the rest are label entries carried over, appended). */
  pathLength: number;
  /** Label entries appended for labels the path's entries had from entries off the path. */
  labelsCarried: number;
}

export interface ForkOptions {
  /** The new session id (default: 16 random hex characters, like the agent's). */
  sessionId?: string;
  /** The new header's time (default: now). */
  now?: Date;
}

/** A title is a line: the start of a long first prompt is enough to tell the fork apart. */
const TITLE_SOURCE_CHARS = 80;

function shortLine(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > TITLE_SOURCE_CHARS ? one.slice(0, TITLE_SOURCE_CHARS - 1) + '…' : one;
}

function firstUserText(path: readonly SessionEntry[]): string | null {
  for (const e of path) {
    if (e.type !== 'message') continue;
    const m = (e as { message?: { role?: unknown; content?: unknown } }).message;
    if (m?.role === 'user') {
      const t = contentText(m.content).trim();
      if (t) return t;
    }
  }
  return null;
}

/**
 * The header and entries of the fork of `loaded` at `entryId` (pure: nothing is read or written).
 * Refuses a damaged source (no valid header, a version newer than 3), an unknown entry, and a
 * path that does not reach a root (a missing parent or a cycle: the fork would start with an
 * entry whose parent is not in it).
 */
export function planFork(loaded: LoadedSession, entryId: string, opts: ForkOptions = {}): ForkPlan {
  if (!loaded.header || loaded.readOnlyReason) throw new ForkRefusedError('damaged', `cannot fork: ${loaded.readOnlyReason ?? 'no valid session header'}`);
  const tree = buildTreeIndex(loaded.entries, loaded.entryLines);
  if (!tree.has(entryId)) throw new ForkRefusedError('unknown-entry', `no entry with id "${entryId}"`);
  const pathIdx = tree.pathIndices(entryId);
  const path = Array.from(pathIdx, (i) => loaded.entries[i]!);
  if (path.length === 0) throw new ForkRefusedError('empty', `entry "${entryId}" has no path`);
  const rootParent = (path[0] as { parentId?: unknown }).parentId;
  if (rootParent !== null && rootParent !== undefined) {
    const line = tree.lineOf(path[0]!.id);
    throw new ForkRefusedError(
      'broken-path',
      `cannot fork: the path to "${entryId}" stops at entry "${path[0]!.id}"${line ? ` (line ${line})` : ''}, whose parent ${JSON.stringify(rootParent)} is not in the file (a damaged line or a cycle); the fork would not be a whole conversation`,
    );
  }

  const entries: SessionEntry[] = path.slice();
  const sourceIndex: number[] = Array.from(pathIdx);
  // Labels the path's entries have in the source, resolved over the whole file: some were set by
  // label entries on other branches, which the fork does not copy. Each one that the path alone
  // does not give is appended as a new label entry, chained after the entry forked from, so the
  // fork shows the same labels and every parentId still names an entry of the fork.
  const onPath = new Map<string, string>();
  for (const e of path) applyLabel(onPath, e);
  const taken = new Set<string>(path.map((e) => e.id));
  let parentId = entryId;
  let labelsCarried = 0;
  const stamp = (opts.now ?? new Date()).toISOString();
  for (const e of path) {
    const want = tree.labels.get(e.id);
    if (want === onPath.get(e.id)) continue;
    const id = generateEntryId(taken);
    entries.push({ type: 'label', id, parentId, timestamp: stamp, targetId: e.id, ...(want !== undefined ? { label: want } : {}) } as SessionEntry);
    sourceIndex.push(-1);
    parentId = id;
    labelsCarried++;
  }

  const src = loaded.header;
  const about = (src.title && sanitizeTitle(src.title)) || firstUserText(path) || src.id;
  const base: SessionHeader = {
    type: 'session',
    version: CURRENT_SESSION_VERSION,
    id: opts.sessionId ?? randomBytes(8).toString('hex'),
    timestamp: stamp,
    ...(typeof src.cwd === 'string' ? { cwd: src.cwd } : {}),
    parentSession: src.id,
  } as SessionHeader;
  const header = applyTitle(base, `Fork of ${shortLine(about)}`, 'user')!;
  return { header, entries, sourceIndex, pathLength: path.length, labelsCarried };
}

/** `<time>_<id>.jsonl`, the agents' own file name, in the source's folder (the same project). */
export function forkFileName(header: SessionHeader): string {
  return `${String(header.timestamp).replace(/[:.]/g, '-')}_${header.id}.jsonl`;
}

export interface ForkResult extends ForkPlan {
  path: string;
}

/**
 * Writes the fork of `sourcePath` at `entryId` to `outPath` (default: a new file beside the
 * source). The source is only read; the target must not exist.
 */
export async function forkSessionFile(sourcePath: string, entryId: string, opts: ForkOptions & { outPath?: string } = {}): Promise<ForkResult> {
  for (let attempt = 0; ; attempt++) {
    const loaded = await loadSessionFile(sourcePath);
    if (loaded.stat === null) throw new ForkRefusedError('damaged', `cannot fork: ${basename(sourcePath)} does not exist`);
    const plan = planFork(loaded, entryId, opts);
    const bytes = await readFile(sourcePath);
    // A live session grows while it is read: the ranges are only valid for the bytes loaded.
    if (bytes.length !== loaded.bytes) {
      if (attempt < 2) continue;
      throw new ForkRefusedError('damaged', `cannot fork: ${basename(sourcePath)} keeps changing while it is read`);
    }
    const path = opts.outPath ?? join(dirname(sourcePath), forkFileName(plan.header));
    // A link at the output path, dangling or not, is refused in its own words: the write below
    // would only say the name is taken (its target missing or not), as if a file were there.
    const st = await lstat(path).catch(() => null);
    if (st?.isSymbolicLink()) throw new ForkRefusedError('output-symlink', 'the output path is a symbolic link; a fork never writes through or over a symbolic link', path);
    await writeNewSessionText(path, forkText(loaded, plan, bytes), plan.entries.length);
    return { ...plan, path };
  }
}

const NL = 0x0a;
const CR = 0x0d;

/** The fork's JSONL: a new header, then each record's own bytes when it can be copied as it is. */
export function forkText(loaded: LoadedSession, plan: ForkPlan, bytes: Uint8Array): Buffer {
  const parts: Buffer[] = [Buffer.from(JSON.stringify(plan.header) + '\n')];
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let k = 0; k < plan.entries.length; k++) {
    const i = plan.sourceIndex[k]!;
    const start = i >= 0 ? loaded.entryStarts[i] : undefined;
    const end = i >= 0 ? loaded.entryEnds[i] : undefined;
    const unchanged = i >= 0 && !loaded.changed?.[i] && !loaded.syntheticIds?.has(plan.entries[k]!.id);
    const raw = unchanged && start !== undefined && end !== undefined && end > start ? buf.subarray(start, end) : null;
    if (raw && !raw.includes(NL) && !raw.includes(CR)) parts.push(raw, Buffer.from('\n'));
    else parts.push(Buffer.from(JSON.stringify(plan.entries[k]) + '\n'));
  }
  return Buffer.concat(parts);
}
