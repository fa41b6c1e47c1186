// Loaded sessions, cached by file and stamped with (size, mtime) so a changed file is re-read.
// The view loads a session when its row is expanded, hovered or revealed, and while a search
// scans the sessions (which releases again what did not match). A changed file
// is brought up to date from its previous load: a live session that grew is read only from
// where the last read ended (src/core/formats/xcsh/tail.ts); anything else is a full reload.
import * as fs from 'node:fs/promises';
import { isRepairableKind, severityOf, type Diagnostic } from '../../core/diagnostics';
import { openSessionDocument, refreshSessionDocument, type SessionDocument } from '../../core/formats/xcsh/document';
import type { LoadedSession } from '../../core/formats/xcsh/load';
import type { SessionStats } from '../../core/formats/xcsh/stats';
import type { TreeIndex } from '../../core/tree/tree';
import { treeSourceFromIndex, type TreeSource } from '../../core/tree/treeView';

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

export function isRepairable(doc: SessionDoc): boolean {
  return doc.loaded.diagnostics.some((d) => isRepairableKind(d.kind));
}

export async function stampOf(file: string): Promise<string> {
  const st = await fs.stat(file);
  return `${st.size}:${st.mtimeMs}`;
}

export class SessionDocuments {
  private readonly docs = new Map<string, Promise<SessionDoc>>();
  private readonly ready = new Map<string, SessionDoc>();
  /** The core document of each loaded file, kept across invalidation so a refresh reads only the tail. */
  private readonly core = new Map<string, SessionDocument>();

  /** The cached document if loaded and not invalidated, without loading. */
  peek(file: string): SessionDoc | undefined {
    return this.ready.get(file);
  }

  get(file: string): Promise<SessionDoc> {
    let p = this.docs.get(file);
    if (!p) {
      p = this.load(file).then(
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

  /** The file changed: the next `get` refreshes it (peek sees nothing until then). */
  invalidate(file: string): void {
    this.docs.delete(file);
    this.ready.delete(file);
  }

  /** Whether the file was loaded (or is loading) in this cache, current or not. */
  isKnown(file: string): boolean {
    return this.docs.has(file) || this.core.has(file);
  }

  /**
   * Forgets a file entirely, its core document too (the next `get` reads it in full). The cache
   * has no bound of its own: a search across every session releases what it loaded only to look.
   */
  release(file: string): void {
    this.docs.delete(file);
    this.ready.delete(file);
    this.core.delete(file);
  }

  clear(): void {
    this.docs.clear();
    this.ready.clear();
    this.core.clear();
  }

  private async load(file: string): Promise<SessionDoc> {
    let doc = this.core.get(file);
    if (doc) {
      try {
        await refreshSessionDocument(doc);
      } catch (err) {
        if (this.core.get(file) === doc) this.core.delete(file);
        throw err;
      }
    } else {
      doc = await openSessionDocument(file);
      this.core.set(file, doc);
    }
    return viewDoc(file, doc);
  }
}

/** The view's record of one state of a document (a refresh makes a new one). */
function viewDoc(file: string, doc: SessionDocument): SessionDoc {
  const { loaded, tree: index } = doc;
  // doc.diagnostics is reader + loader + tree diagnostics, merged by line (stable).
  const problems = doc.diagnostics.filter((d) => severityOf(d.kind) !== 'info');
  return {
    file,
    loaded,
    index,
    source: treeSourceFromIndex(index),
    problems,
    stamp: loaded.stat ? `${loaded.stat.size}:${loaded.stat.mtimeMs}` : '',
    stats: () => doc.stats(),
  };
}
