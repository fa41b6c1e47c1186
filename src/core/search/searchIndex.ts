// The search index as one object for its two users, the CLI and the indexing worker of the
// extension: open (taking the directory's lock), bring up to date, query, close. It is a cache:
// when SQLite reports the file damaged at any point, it is deleted and built again from the
// session files.
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { deleteIndexDb, isCorruption, openIndexDb, type OpenedIndex } from './indexDb';
import { querySessions, sessionEntryHits, sessionMatchIds, topEntryHits, type EntryHit, type SessionResults } from './indexQuery';
import { defaultReadWorkerFile } from './indexReadAhead';
import { dropFileRows, sessionFilesUnder, updateIndex, type UpdateProgress, type UpdateStats } from './indexUpdate';
import { parseSearchQuery, type SearchQuery } from './queryLanguage';
import { loadedXxh64, loadXxh64 } from '../formats/dsh/zstdDecode';

export interface SearchOptions {
  /** Entries (with snippets) returned for each of the first `detailedSessions` sessions. */
  entriesPerSession?: number;
  detailedSessions?: number;
}

export interface SearchOutcome {
  query: SearchQuery;
  results: SessionResults;
  /** Per session file (the first `detailedSessions`), its best entries. */
  entries: Record<string, EntryHit[]>;
  ms: number;
}

export class SessionSearchIndex {
  /** Updates run one at a time: two interleaved at their awaits would nest transactions on one connection. */
  private queue: Promise<unknown> = Promise.resolve();

  /** Full updates asked for and not finished (queued or running). */
  private updating = 0;
  /** Queries asked for during a full update: answered between two of its batches, or at its end. */
  private waiting: Array<() => Promise<void>> = [];

  private constructor(private opened: OpenedIndex) {}

  /**
   * Answers the queries waiting for the update. Between batches it first lets the thread take in
   * the messages that came while the batch was written (a query asked meanwhile joins this turn).
   */
  private async answerWaiting(letMessagesIn: boolean): Promise<void> {
    if (letMessagesIn) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const answer of this.waiting.splice(0)) await answer();
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const run = this.queue.then(f, f);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Whether the index was created empty by this open (the first update is a full build). */
  get fresh(): boolean {
    return this.opened.fresh;
  }

  get path(): string {
    return this.opened.path;
  }

  static async open(path: string): Promise<SessionSearchIndex> {
    return new SessionSearchIndex(await openIndexDb(path));
  }

  /** Drops the damaged database and starts an empty one. */
  private async rebuild(): Promise<void> {
    const path = this.opened.path;
    this.opened.close();
    deleteIndexDb(path);
    this.opened = await openIndexDb(path);
  }

  private async recovering<T>(f: () => Promise<T> | T, retry: boolean): Promise<T> {
    try {
      return await f();
    } catch (e) {
      if (!isCorruption(e) || !retry) throw e;
      await this.rebuild();
      return await f();
    }
  }

  /** The roots of the last full update: what a query that finds the index damaged builds it again from. */
  private roots: readonly string[] | null = null;

  /** Brings the index up to date with every session file under `roots`. */
  async update(roots: readonly string[], opts: { signal?: AbortSignal; onProgress?: (p: UpdateProgress) => void; batchBytes?: number } = {}): Promise<UpdateStats> {
    this.updating++;
    try {
      return await this.serial(async () => {
        this.roots = [...roots];
        const files = sessionFilesUnder(roots);
        return this.recovering(() => updateIndex(this.opened, files, { complete: true, readWorkerFile: defaultReadWorkerFile(), betweenBatches: () => this.answerWaiting(true), ...opts }), true);
      });
    } finally {
      this.updating--;
      await this.answerWaiting(false);
    }
  }

  /** Brings only these files up to date (a watcher saw them change); a file gone is dropped. */
  updateFiles(paths: readonly string[]): Promise<UpdateStats> {
    return this.serial(() => this.updateFilesNow(paths));
  }

  private async updateFilesNow(paths: readonly string[]): Promise<UpdateStats> {
    const files = new Map<string, Stats>();
    const gone: string[] = [];
    for (const p of paths) {
      const st = await stat(p).catch(() => null);
      if (st?.isFile()) files.set(p, st);
      else gone.push(p);
    }
    return this.recovering(async () => {
      const db = this.opened.db;
      if (gone.length > 0) {
        db.exec('BEGIN');
        for (const p of gone) {
          const id = db.selectValue('SELECT id FROM files WHERE path = ?', [p]);
          if (typeof id !== 'number') continue;
          dropFileRows(db, id);
          db.exec({ sql: 'DELETE FROM files WHERE id = ?', bind: [id] });
        }
        db.exec('COMMIT');
      }
      const stats = await updateIndex(this.opened, files, { complete: false });
      stats.removed += gone.length;
      return stats;
    }, true);
  }

  /**
   * Runs a query (the query language of queryLanguage.ts). During a full update (the first build
   * takes minutes on a big corpus) it does not wait for the end: it is answered at the next commit,
   * from the sessions indexed so far.
   */
  search(query: string, opts: SearchOptions = {}): Promise<SearchOutcome> {
    if (this.updating > 0) {
      return new Promise<SearchOutcome>((resolve, reject) => this.waiting.push(() => this.searchNow(query, opts).then(resolve, reject)));
    }
    return this.serial(() => this.searchNow(query, opts));
  }

  private async searchNow(query: string, opts: SearchOptions): Promise<SearchOutcome> {
    const t0 = performance.now();
    // A compressed Codex rollout's rows are read back by decoding it (codexSearch.ts), which checks
    // its frames with XXH64: loaded here, once, when the index holds one (entryHits and matchIds,
    // asked after a search, find it loaded). Once loaded, the files table is not asked again.
    if (loadedXxh64() === null && this.opened.db.selectValue("SELECT 1 FROM files WHERE agent = 'codex' AND path LIKE '%.zst' LIMIT 1") === 1) await loadXxh64();
    const q = parseSearchQuery(query);
    const ask = (): SearchOutcome => {
      const results = querySessions(this.opened.db, q);
      if (q.problems.length > 0) results.problems.push(...q.problems);
      const entries: Record<string, EntryHit[]> = {};
      const per = opts.entriesPerSession ?? 0;
      if (per > 0) Object.assign(entries, topEntryHits(this.opened.db, q, results, results.sessions.slice(0, opts.detailedSessions ?? 20).map((s) => s.file), per));
      return { query: q, results, entries, ms: performance.now() - t0 };
    };
    try {
      return ask();
    } catch (e) {
      // A damaged page or FTS5 segment: the index is a cache, so it is built again from the roots
      // it was last brought up to date with, and the query asked once more (never an empty answer
      // from an empty index).
      if (!isCorruption(e) || this.roots === null) throw e;
      await this.rebuild();
      await updateIndex(this.opened, sessionFilesUnder(this.roots), { complete: true, readWorkerFile: defaultReadWorkerFile() });
      return ask();
    }
  }

  /** A session's best matching entries with snippets. */
  entryHits(query: string, file: string, limit: number): EntryHit[] {
    return sessionEntryHits(this.opened.db, parseSearchQuery(query), file, limit);
  }

  /** Every matching entry id of a session. */
  matchIds(query: string, file: string): string[] {
    return sessionMatchIds(this.opened.db, parseSearchQuery(query), file);
  }

  /** Sessions indexed: the files table's rows (a "nothing found" message says how many were searched). */
  fileCount(): number {
    return Number(this.opened.db.selectValue('SELECT count(*) FROM files'));
  }

  /** Sessions and rows indexed, and the database's size on disk (counting the rows reads the whole entries table). */
  info(): { files: number; rows: number; bytes: number } {
    const db = this.opened.db;
    const pages = Number(db.selectValue('PRAGMA page_count'));
    const size = Number(db.selectValue('PRAGMA page_size'));
    return { files: Number(db.selectValue('SELECT count(*) FROM files')), rows: Number(db.selectValue('SELECT count(*) FROM entries')), bytes: pages * size };
  }

  close(): void {
    this.opened.close();
  }
}
