// The reference (test-only, issue 23): the whole-file model's tail read, which appends the bytes
// planTail (src/core/formats/xcsh/tail.ts, whose rules it follows) found safe to read onto the
// LoadedSession in place. The session engine reads the same tail into its index
// (src/core/engine/xcsh/lazy/lazyIndex.ts).
import type { Stats } from 'node:fs';
import { stat as fsStat } from 'node:fs/promises';
import { checkBlobRefs, type BlobStore } from '../../src/core/formats/xcsh/blobs';
import type { Diagnostic } from '../../src/core/diagnostics';
import { readJsonlFile } from '../../src/core/formats/xcsh/jsonl';
import { takeEntries, readFileIdentity, type EntryColumns, type LoadedSession } from '../../src/core/formats/xcsh/load';
import { stripReplayData } from '../../src/core/formats/xcsh/replayData';
import type { TailPlan } from '../../src/core/formats/xcsh/tail';

export interface TailOptions {
  /** As in LoadOptions: check blob references of the new entries. */
  blobs?: BlobStore;
}

export interface PreparedTail {
  /** Entries the tail adds. */
  added: number;
  /** Applies the tail to the LoadedSession in place, synchronously (arrays are pushed to). */
  commit(): void;
}

/**
 * Reads the planned tail. Nothing changes until `commit()`, so the caller can update what it
 * derives from the session (the tree index) in the same synchronous step. Positions, offsets and
 * line numbers of what was loaded before never change. Null when a full reload is needed: the
 * file changed under the read, or the tail would change the ids made for entries without one.
 */
export async function readTail(loaded: LoadedSession, plan: Extract<TailPlan, { kind: 'tail' }>, st: Stats, opts: TailOptions = {}): Promise<PreparedTail | null> {
  const path = loaded.path!;
  const tail = await readJsonlFile(path, plan.at);
  const identity = await readFileIdentity(path, tail.bytes, st).catch(() => null);
  if (!identity) return null;

  const diags: Diagnostic[] = tail.diagnostics.slice();
  const cols: EntryColumns & { missingIds: number[] } = takeEntries(tail.columns, 0, diags);
  // Part C §10: a made id must not collide with any id in the file, so an entry without an id, or
  // a new id equal to one made earlier, changes the made ids: a full load decides them.
  if (cols.missingIds.length > 0) return null;
  const made = loaded.syntheticIds;
  // (and an entry naming a numeric id as its parent is linked to a made id: ids.ts)
  if (made) for (const e of cols.entries) if (made.has(e.id) || typeof (e as { parentId?: unknown }).parentId === 'number' || typeof (e as { firstKeptEntryId?: unknown }).firstKeptEntryId === 'number') return null;
  stripReplayData(cols.entries);
  // Same order as a full load: by line, reader notes before loader notes, blob notes last.
  diags.sort((a, b) => a.line - b.line);
  if (opts.blobs && cols.entries.length > 0) {
    const blobDiags = await checkBlobRefs(cols.entries, cols.entryLines, opts.blobs);
    if (blobDiags.length > 0) {
      diags.push(...blobDiags);
      diags.sort((a, b) => a.line - b.line);
    }
  }

  const commit = (): void => {
    for (let i = 0; i < cols.entries.length; i++) {
      loaded.entries.push(cols.entries[i]!);
      loaded.entryLines.push(cols.entryLines[i]!);
      loaded.entryStarts.push(cols.entryStarts[i]!);
      loaded.entryEnds.push(cols.entryEnds[i]!);
    }
    if (plan.dropFrom > 0) {
      const d = loaded.diagnostics;
      let keep = d.length;
      while (keep > 0 && d[keep - 1]!.line >= plan.dropFrom) keep--;
      d.length = keep;
    }
    for (const d of diags) loaded.diagnostics.push(d);

    const readAny = tail.lines > plan.at.startLine;
    if (readAny) {
      loaded.lines = tail.lines;
      loaded.endsWithNewline = tail.endsWithNewline;
    } else if (plan.at.from > loaded.bytes) {
      loaded.endsWithNewline = true; // only the `\n` that ended the last line was new
    }
    loaded.resume = tail.resume;
    loaded.bytes = Math.max(loaded.bytes, tail.bytes);
    loaded.stat = { size: st.size, mtimeMs: st.mtimeMs };
    loaded.identity = identity;
  };
  return { added: cols.entries.length, commit };
}

/** stat, or null when the file is gone. */
export async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await fsStat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
