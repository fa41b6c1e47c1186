// The reference (test-only, issue 23): SessionManager (spec Part A), the agent's writer as the
// session format describes it, kept as the executable reference for what a session file holds: the append-only entry tree with a movable leaf, persisted through
// the storage port. The rules that matter:
// - every append creates one entry whose parentId is the current leaf, and moves the leaf to it;
// - nothing is written before the first assistant message; then the whole session is flushed;
//   then each new entry is appended — all through ONE promise chain, so writes never interleave;
// - the first persistence error is latched: logged once, rethrown by every later operation;
// - Part C §1: a session is initialised only for a missing or zero-byte file; a non-empty file
//   without a valid header is an error and is never overwritten.
// - After an atomic rewrite (migration, setSessionName, rewriteEntries) the append writer is
//   reopened: the old descriptor points at the replaced inode (Part B §9).
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join, posix } from 'node:path';
import { resolveImageData, type BlobStore } from '../../src/core/formats/xcsh/blobs';
import { buildSessionContext, type SessionContext } from './context';
import { encodeCwd } from '../../src/core/formats/xcsh/cwd';
import { diagnosticLines, type DiagnosticKind } from '../../src/core/diagnostics';
import { generateEntryId } from '../../src/core/formats/xcsh/ids';
import { loadSessionFromText, type LoadedSession } from '../../src/core/formats/xcsh/load';
import { prepareEntryForPersist } from '../../src/core/formats/xcsh/persist';
import { rewriteSegments } from '../../src/core/store/rewriteSegments';
import { editedEntry, editedHeader } from '../../src/core/store/recordRewrite';
import { CURRENT_SESSION_VERSION } from '../../src/core/formats/xcsh/entryTypes';
import type { SessionEntry, SessionHeader } from '../../src/core/formats/xcsh/schemas';
import type { SessionStorage, SessionStorageWriter } from './storage';
import { FileSessionStorage } from './fileStorage';
import { MemorySessionStorage } from './memoryStorage';
import { applyTitle, type TitleSource } from '../../src/core/formats/xcsh/title';

export class SessionFileError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'SessionFileError';
  }
}

export interface SessionManagerOptions {
  storage?: SessionStorage;
  blobs?: BlobStore;
  /** Where persistence errors are reported (once). Default: stderr. */
  log?: (message: string) => void;
  /** Session root; default `~/.xcsh/agent/sessions`. */
  sessionsRoot?: string;
  /** Session folder; default `<sessionsRoot>/<encoded cwd>`. */
  sessionDir?: string;
  /** Part A: rewrite a migrated file at once (the library contract). Default true. */
  rewriteMigrated?: boolean;
}

export interface ContinueOptions extends SessionManagerOptions {
  terminalId?: string;
  /** Default `~/.xcsh/agent/terminal-sessions`. */
  breadcrumbsDir?: string;
}

const newSessionId = (): string => randomBytes(8).toString('hex');
const fileStamp = (iso: string): string => iso.replace(/[:.]/g, '-');

function defaultRoot(): string {
  return join(homedir(), '.xcsh', 'agent', 'sessions');
}

function sessionDirFor(cwd: string, o: SessionManagerOptions): string {
  return o.sessionDir ?? join(o.sessionsRoot ?? defaultRoot(), encodeCwd(cwd));
}

/** Diagnostics that mean a line's bytes (or some of them) are not in any entry. */
const UNREAD_KINDS: ReadonlySet<DiagnosticKind> = new Set<DiagnosticKind>(['invalid-json', 'not-an-object', 'torn-tail', 'torn-record', 'too-deep', 'invalid-entry']);

/**
 * Rebuilds a migrated file keeping every byte between records (unparsable lines, blank lines,
 * a title line) in place (Part C §7); migrated records get exactly the migration's edits in their
 * own bytes (never a re-serialisation), glued ones are separated. Throws UnsafeRecordEditError.
 */
function rebuildPreserving(original: Buffer, loaded: LoadedSession): Buffer {
  const parts: Buffer[] = [];
  for (const seg of rewriteSegments(loaded, original.length)) {
    if (seg.kind === 'copy') parts.push(original.subarray(seg.start, seg.end));
    else if (seg.kind === 'newline') parts.push(Buffer.from('\n'));
    else if (seg.kind === 'header') parts.push(editedHeader(original.subarray(seg.start, seg.end), loaded.header!, { path: loaded.path, line: loaded.headerLine }));
    else {
      const bytes = original.subarray(seg.start, seg.end);
      parts.push(loaded.changed?.[seg.index] && loaded.entryEdits?.has(seg.index) ? editedEntry(bytes, loaded, seg.index) : bytes);
    }
  }
  return Buffer.concat(parts);
}

export class SessionManager {
  readonly #storage: SessionStorage;
  readonly #persist: boolean;
  readonly #blobs: BlobStore | undefined;
  readonly #log: (m: string) => void;
  #path: string;
  #header: SessionHeader;
  #entries: SessionEntry[] = [];
  #byId = new Map<string, SessionEntry>();
  /** Ids in use (generateEntryId needs a Set; rebuilding one per append would be O(n)). */
  #ids = new Set<string>();
  #leafId: string | null = null;
  #hasAssistant = false;
  /**
   * Lines of the opened file that could not be read (invalid JSON, non-objects, a torn tail), as
   * "12" or "12–40" for a run of them. A rewrite from memory cannot put them back where they
   * were, so it is refused (Part C §7).
   */
  #unreadLines: string[] = [];
  /** The file holds the whole session (so later entries are appended). */
  #flushed = false;
  #chain: Promise<void> = Promise.resolve();
  #persistError: Error | null = null;
  #writer: SessionStorageWriter | null = null;

  private constructor(path: string, header: SessionHeader, storage: SessionStorage, persist: boolean, o: SessionManagerOptions) {
    this.#path = path;
    this.#header = header;
    this.#storage = storage;
    this.#persist = persist;
    this.#blobs = o.blobs;
    this.#log = o.log ?? ((m) => process.stderr.write(m + '\n'));
  }

  // ---------- construction ----------

  /** A new persistent session for `cwd` (its file appears with the first assistant message). */
  static create(cwd: string, o: SessionManagerOptions & { parentSession?: string } = {}): SessionManager {
    const storage = o.storage ?? new FileSessionStorage();
    const header = SessionManager.#newHeader(cwd, o.parentSession);
    const path = join(sessionDirFor(cwd, o), `${fileStamp(header.timestamp!)}_${header.id}.jsonl`);
    return new SessionManager(path, header, storage, true, o);
  }

  /** Opens (or, for a missing/zero-byte file, initialises) a persistent session. */
  static async open(path: string, o: SessionManagerOptions & { cwd?: string } = {}): Promise<SessionManager> {
    const storage = o.storage ?? new FileSessionStorage();
    const m = new SessionManager(path, SessionManager.#newHeader(o.cwd ?? process.cwd()), storage, true, o);
    await m.setSessionFile(path, o.rewriteMigrated ?? true);
    return m;
  }

  /** The terminal's breadcrumb session first, then the newest file of the cwd's folder, else a new one. */
  static async continueRecent(cwd: string, o: ContinueOptions = {}): Promise<SessionManager> {
    const storage = o.storage ?? new FileSessionStorage();
    const opts = { ...o, storage, cwd };
    if (o.terminalId) {
      const crumb = join(o.breadcrumbsDir ?? join(homedir(), '.xcsh', 'agent', 'terminal-sessions'), o.terminalId);
      if (storage.existsSync(crumb)) {
        const [crumbCwd, file] = (await storage.readText(crumb)).split('\n').map((s) => s.trim());
        if (crumbCwd === cwd && file && storage.statSync(file)?.isFile) return SessionManager.open(file, opts);
      }
    }
    const dir = sessionDirFor(cwd, o);
    let best: { path: string; mtimeMs: number } | null = null;
    for (const name of storage.listFilesSync(dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const p = join(dir, name);
      const st = storage.statSync(p);
      if (st && (!best || st.mtimeMs > best.mtimeMs)) best = { path: p, mtimeMs: st.mtimeMs };
    }
    return best ? SessionManager.open(best.path, opts) : SessionManager.create(cwd, opts);
  }

  /** A new session holding a copy of another session's entries; `parentSession` names the source. */
  static async forkFrom(sourcePath: string, cwd: string, o: SessionManagerOptions = {}): Promise<SessionManager> {
    const storage = o.storage ?? new FileSessionStorage();
    const loaded = loadSessionFromText(await storage.readText(sourcePath), sourcePath);
    if (!loaded.header) throw new SessionFileError(sourcePath, 'cannot fork: no valid session header');
    const m = SessionManager.create(cwd, { ...o, storage, parentSession: sourcePath });
    for (const e of loaded.entries) m.#add(e);
    m.#leafId = loaded.entries.length ? loaded.entries[loaded.entries.length - 1]!.id : null;
    m.#schedulePersist(null);
    return m;
  }

  /** Non-persistent: MemorySessionStorage, nothing ever written to disk. */
  static inMemory(cwd: string = process.cwd(), o: Omit<SessionManagerOptions, 'storage'> = {}): SessionManager {
    const header = SessionManager.#newHeader(cwd);
    return new SessionManager(`/memory/${header.id}.jsonl`, header, new MemorySessionStorage(), false, o);
  }

  static #newHeader(cwd: string, parentSession?: string): SessionHeader {
    const h: SessionHeader = { type: 'session', version: CURRENT_SESSION_VERSION, id: newSessionId(), timestamp: new Date().toISOString(), cwd };
    if (parentSession !== undefined) h.parentSession = parentSession;
    return h;
  }

  /**
   * Part A `setSessionFile` with Part C §1: missing or zero-byte → a new session at this path;
   * a non-empty file without a valid header (or newer than v3) → SessionFileError, untouched.
   */
  async setSessionFile(path: string, rewriteMigrated = true): Promise<void> {
    await this.#drain();
    await this.#closeWriter();
    this.#path = path;
    this.#entries = [];
    this.#byId = new Map();
    this.#ids = new Set();
    this.#leafId = null;
    this.#hasAssistant = false;
    this.#unreadLines = [];
    const st = this.#storage.statSync(path);
    if (!st || st.size === 0) {
      this.#header = SessionManager.#newHeader(this.#header.cwd ?? process.cwd());
      this.#flushed = false;
      return;
    }
    // bytes, not text: a migration rewrite keeps bytes that are not UTF-8 (issue 15)
    const bytes = await this.#storage.readBytes(path);
    const original = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const loaded = loadSessionFromText(original, path);
    if (!loaded.header) throw new SessionFileError(path, 'not a session file (no valid header on line 1); it is left untouched');
    if (loaded.readOnlyReason) throw new SessionFileError(path, `cannot open for writing: ${loaded.readOnlyReason}`);
    this.#header = loaded.header;
    this.#unreadLines = loaded.diagnostics.filter((d) => UNREAD_KINDS.has(d.kind)).map(diagnosticLines);
    for (const e of loaded.entries) this.#add(e);
    this.#leafId = loaded.entries.length ? loaded.entries[loaded.entries.length - 1]!.id : null;
    this.#flushed = true;
    if (rewriteMigrated && (loaded.originalVersion < CURRENT_SESSION_VERSION || loaded.changed)) {
      // Part A: in-memory entries are migrated first (done by the loader), then the file is rewritten.
      await this.#storage.writeTextAtomic(path, rebuildPreserving(original, loaded));
    }
    if (this.#blobs) await this.#resolveBlobs();
  }

  async #resolveBlobs(): Promise<void> {
    for (let i = 0; i < this.#entries.length; i++) {
      const e = this.#entries[i]!;
      const holder = e.type === 'message' ? ((e as { message?: { content?: unknown } }).message ?? null) : e.type === 'custom_message' ? (e as { content?: unknown }) : null;
      if (!holder || !Array.isArray(holder.content)) continue;
      let copy: unknown[] | null = null;
      for (let k = 0; k < holder.content.length; k++) {
        const b = holder.content[k] as { type?: unknown; data?: unknown };
        if (b?.type !== 'image' || typeof b.data !== 'string') continue;
        const r = await resolveImageData(b.data, this.#blobs!);
        if (r.kind === 'blob') (copy ??= holder.content.slice())[k] = { ...b, data: r.base64 };
        // a missing or unusable blob (a link, a FIFO, too large, wrong content) leaves the
        // reference in place (Part B §8) and costs that image only: the read never throws
      }
      if (copy) {
        const resolved = e.type === 'message' ? { ...e, message: { ...holder, content: copy } } : { ...e, content: copy };
        this.#entries[i] = resolved as SessionEntry;
        this.#byId.set(e.id, resolved as SessionEntry);
      }
    }
  }

  // ---------- reading ----------

  getSessionFile(): string {
    return this.#path;
  }
  getHeader(): SessionHeader {
    return this.#header;
  }
  getSessionId(): string {
    return this.#header.id;
  }
  isPersisted(): boolean {
    return this.#persist;
  }
  /** All non-header entries in insertion order. */
  getEntries(): readonly SessionEntry[] {
    return this.#entries;
  }
  getEntry(id: string): SessionEntry | undefined {
    return this.#byId.get(id);
  }
  getLeafId(): string | null {
    return this.#leafId;
  }
  buildSessionContext(): SessionContext {
    return buildSessionContext(this.#entries, this.#leafId, this.#byId);
  }

  // ---------- appends (each: one entry, parent = leaf, becomes the leaf) ----------

  #append(fields: Record<string, unknown>): string {
    if (this.#persistError) throw this.#persistError;
    const id = generateEntryId(this.#ids);
    // key order as upstream writes it: type, id, parentId, timestamp, then the type's fields
    const ordered = { type: fields.type, id, parentId: this.#leafId, timestamp: new Date().toISOString(), ...fields } as SessionEntry;
    this.#add(ordered);
    this.#leafId = ordered.id;
    this.#schedulePersist(ordered);
    return ordered.id;
  }

  #add(e: SessionEntry): void {
    this.#entries.push(e);
    this.#byId.set(e.id, e);
    this.#ids.add(e.id);
    if (e.type === 'message' && (e as { message?: { role?: unknown } }).message?.role === 'assistant') this.#hasAssistant = true;
  }

  appendMessage(message: Record<string, unknown> & { role: string }): string {
    return this.#append({ type: 'message', message });
  }
  appendModelChange(model: string, role?: string): string {
    return this.#append(role === undefined ? { type: 'model_change', model } : { type: 'model_change', model, role });
  }
  appendThinkingLevelChange(thinkingLevel: string): string {
    return this.#append({ type: 'thinking_level_change', thinkingLevel });
  }
  appendCompaction(summary: string, firstKeptEntryId: string, tokensBefore: number, extra: { shortSummary?: string; details?: unknown; preserveData?: unknown; fromExtension?: boolean } = {}): string {
    return this.#append({ type: 'compaction', summary, firstKeptEntryId, tokensBefore, ...extra });
  }
  appendCustomEntry(customType: string, data?: unknown): string {
    return this.#append({ type: 'custom', customType, data });
  }
  appendCustomMessageEntry(customType: string, content: unknown, display: boolean, details?: unknown): string {
    return this.#append({ type: 'custom_message', customType, content, display, details });
  }
  /** `label: undefined` clears the label of `targetId`. */
  appendLabelChange(targetId: string, label: string | undefined): string {
    if (!this.#byId.has(targetId)) throw new Error(`no entry with id "${targetId}"`);
    return this.#append(label === undefined ? { type: 'label', targetId } : { type: 'label', targetId, label });
  }
  appendTtsrInjection(injectedRules: string[]): string {
    return this.#append({ type: 'ttsr_injection', injectedRules });
  }
  appendSessionInit(init: { systemPrompt: string; task: string; tools: string[]; outputSchema?: unknown }): string {
    return this.#append({ type: 'session_init', ...init });
  }
  appendModeChange(mode: string, data?: unknown): string {
    return this.#append(data === undefined ? { type: 'mode_change', mode } : { type: 'mode_change', mode, data });
  }

  // ---------- leaf movement ----------

  /** Moves the leaf only; no entry changes. */
  branch(entryId: string): void {
    if (!this.#byId.has(entryId)) throw new Error(`no entry with id "${entryId}"`);
    this.#leafId = entryId;
  }
  /** The next append creates a new root. */
  resetLeaf(): void {
    this.#leafId = null;
  }
  /** Leaf → `branchFromId` (null: before the first entry), then a branch_summary (`fromId: "root"` for null). */
  branchWithSummary(branchFromId: string | null, summary: string, details?: unknown, fromExtension?: boolean): string {
    if (branchFromId === null) this.resetLeaf();
    else this.branch(branchFromId);
    const fields: Record<string, unknown> = { type: 'branch_summary', fromId: branchFromId ?? 'root', summary };
    if (details !== undefined) fields.details = details;
    if (fromExtension !== undefined) fields.fromExtension = fromExtension;
    return this.#append(fields);
  }

  // ---------- persistence ----------

  #enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.#chain.then(async () => {
      if (this.#persistError) throw this.#persistError;
      try {
        await step();
      } catch (e) {
        if (!this.#persistError) {
          this.#persistError = e instanceof Error ? e : new Error(String(e));
          this.#log(`session persistence failed for ${this.#path}: ${this.#persistError.message}`);
        }
        throw this.#persistError;
      }
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  #schedulePersist(entry: SessionEntry | null): void {
    if (!this.#persist) return;
    if (!this.#flushed) {
      // Part A: sessions that never produced an assistant reply are not persisted.
      if (!this.#hasAssistant) return;
      this.#flushed = true;
      const snapshot = this.#entries.slice();
      const header = this.#header;
      void this.#enqueue(async () => {
        this.#storage.ensureDirSync(posix.dirname(this.#path.replace(/\\/g, '/')));
        const w = this.#openWriter();
        await w.writeLine(JSON.stringify(header));
        for (const e of snapshot) await w.writeLine(JSON.stringify(await prepareEntryForPersist(e, this.#blobs)));
      }).catch(() => undefined);
      return;
    }
    if (entry) {
      void this.#enqueue(async () => {
        await this.#openWriter().writeLine(JSON.stringify(await prepareEntryForPersist(entry, this.#blobs)));
      }).catch(() => undefined);
    }
  }

  #openWriter(): SessionStorageWriter {
    this.#writer ??= this.#storage.openWriter(this.#path);
    return this.#writer;
  }

  async #closeWriter(): Promise<void> {
    const w = this.#writer;
    this.#writer = null;
    if (w) await w.close();
  }

  async #drain(): Promise<void> {
    await this.#chain;
    if (this.#persistError) throw this.#persistError;
  }

  /** Waits for every queued write, then flushes and fsyncs (Part A). Rethrows a latched error. */
  async flush(): Promise<void> {
    await this.#enqueue(async () => {
      if (this.#writer) await this.#writer.flush();
    });
  }

  async close(): Promise<void> {
    try {
      await this.flush();
      await this.#enqueue(() => this.#closeWriter());
    } finally {
      // Part A: closing is best-effort and the latched error still propagates, but the file
      // descriptor must not outlive it (left to the garbage collector, node warns: DEP0137).
      await this.#closeWriter().catch(() => undefined);
    }
  }

  /** A rewrite from memory would drop the lines that could not be read: refuse it, naming them. */
  #refuseLossyRewrite(): void {
    if (!this.#persist || !this.#flushed || this.#unreadLines.length === 0) return;
    const lines = this.#unreadLines.slice(0, 5).join(', ') + (this.#unreadLines.length > 5 ? ', …' : '');
    throw new SessionFileError(
      this.#path,
      `refusing to rewrite the session: line${this.#unreadLines.length > 1 || this.#unreadLines[0]!.includes('–') ? 's' : ''} ${lines} could not be read and would be lost; the file is left untouched (repair it into a new file first)`,
    );
  }

  /** Atomic rewrite of the whole file from memory, serialised with the appends. */
  async #rewriteFile(): Promise<void> {
    if (!this.#persist || !this.#flushed) return;
    this.#refuseLossyRewrite();
    await this.#enqueue(async () => {
      await this.#closeWriter(); // the old descriptor would keep appending to the replaced inode
      let text = JSON.stringify(this.#header) + '\n';
      for (const e of this.#entries) text += JSON.stringify(await prepareEntryForPersist(e, this.#blobs)) + '\n';
      await this.#storage.writeTextAtomic(this.#path, text);
    });
  }

  /**
   * Sets the title (sanitised, Part B §12). A persisted file gets an atomic rewrite of its header
   * line only: every other byte is kept (Part C §7). Returns false when an automatic title lost
   * to a user title.
   */
  async setSessionName(name: string, source: TitleSource = 'user'): Promise<boolean> {
    if (this.#persistError) throw this.#persistError;
    const next = applyTitle(this.#header, name, source);
    if (!next) return false;
    this.#header = next;
    if (!this.#persist || !this.#flushed) return true;
    await this.#enqueue(async () => {
      await this.#closeWriter();
      const raw = await this.#storage.readBytes(this.#path);
      const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      // the header is line 1, or line 2 after an oh-my-pi title line (Part B §6)
      let start = 0;
      for (let k = 0; k < 2; k++) {
        const nl = bytes.indexOf(0x0a, start);
        const end = nl === -1 ? bytes.length : nl;
        let v: { type?: unknown } | null = null;
        try {
          v = JSON.parse(bytes.toString('utf8', start, end)) as { type?: unknown };
        } catch {
          v = null;
        }
        if (v?.type === 'session') {
          // Only the title fields change; every other byte of the file stays (Part C §7).
          const header = editedHeader(bytes.subarray(start, end), next, { path: this.#path, line: k + 1 });
          await this.#storage.writeTextAtomic(this.#path, Buffer.concat([bytes.subarray(0, start), header, bytes.subarray(end)]));
          return;
        }
        if (nl === -1) break;
        start = nl + 1;
      }
      throw new SessionFileError(this.#path, 'no session header found to rewrite');
    });
    return true;
  }

  /** Replaces the in-memory entries (targeted rewrite helpers) and rewrites the file atomically. */
  async rewriteEntries(entries: readonly SessionEntry[]): Promise<void> {
    if (this.#persistError) throw this.#persistError;
    this.#refuseLossyRewrite();
    const leafStillThere = this.#leafId !== null && entries.some((e) => e.id === this.#leafId);
    this.#entries = [];
    this.#byId = new Map();
    this.#ids = new Set();
    this.#hasAssistant = false;
    for (const e of entries) this.#add(e);
    if (!leafStillThere) this.#leafId = entries.length ? entries[entries.length - 1]!.id : null;
    await this.#rewriteFile();
  }
}
