// Loaded sessions, cached by file and stamped with (size, mtime) so a changed file is re-read.
// The view loads a session only when its row is expanded, hovered or revealed.
import * as fs from 'node:fs/promises';
import { severityOf, type Diagnostic } from '../../core/diagnostics';
import { loadSessionFile, type LoadedSession } from '../../core/load';
import { computeSessionStats, type SessionStats } from '../../core/stats';
import { buildTreeIndex, type TreeIndex } from '../../core/tree';
import { treeSourceFromIndex, type TreeSource } from '../../core/treeView';

export interface SessionDoc {
  file: string;
  loaded: LoadedSession;
  index: TreeIndex;
  source: TreeSource;
  /** Reader and tree diagnostics worth showing (no `info`), by line. */
  problems: Diagnostic[];
  stamp: string;
  stats(): SessionStats;
}

/** Diagnostics a repair into a new file fixes (lines the reader had to split, drop or cut). */
const REPAIRABLE = new Set(['invalid-json', 'glued-records', 'torn-tail', 'not-an-object', 'no-header', 'invalid-header', 'invalid-entry']);

export function isRepairable(doc: SessionDoc): boolean {
  return doc.loaded.diagnostics.some((d) => REPAIRABLE.has(d.kind));
}

export async function stampOf(file: string): Promise<string> {
  const st = await fs.stat(file);
  return `${st.size}:${st.mtimeMs}`;
}

export class SessionDocuments {
  private readonly docs = new Map<string, Promise<SessionDoc>>();
  private readonly ready = new Map<string, SessionDoc>();

  /** The cached document if loaded and not invalidated, without loading. */
  peek(file: string): SessionDoc | undefined {
    return this.ready.get(file);
  }

  get(file: string): Promise<SessionDoc> {
    let p = this.docs.get(file);
    if (!p) {
      p = load(file).then(
        (doc) => {
          if (this.docs.get(file) === p) this.ready.set(file, doc);
          return doc;
        },
        (err: unknown) => {
          if (this.docs.get(file) === p) this.docs.delete(file);
          throw err;
        },
      );
      this.docs.set(file, p);
    }
    return p;
  }

  invalidate(file: string): void {
    this.docs.delete(file);
    this.ready.delete(file);
  }

  clear(): void {
    this.docs.clear();
    this.ready.clear();
  }
}

async function load(file: string): Promise<SessionDoc> {
  const loaded = await loadSessionFile(file);
  const index = buildTreeIndex(loaded.entries, loaded.entryLines);
  const problems = [...loaded.diagnostics, ...index.diagnostics].filter((d) => severityOf(d.kind) !== 'info').sort((a, b) => a.line - b.line);
  let stats: SessionStats | undefined;
  return {
    file,
    loaded,
    index,
    source: treeSourceFromIndex(index),
    problems,
    stamp: loaded.stat ? `${loaded.stat.size}:${loaded.stat.mtimeMs}` : '',
    stats: () => (stats ??= computeSessionStats(loaded.entries, loaded.header)),
  };
}
