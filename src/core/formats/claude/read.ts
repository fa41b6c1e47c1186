// Reads a Claude Code transcript (claude-code-format.md A.2, B.1): the file is streamed by lines
// through the shared lenient JSONL reader (formats/xcsh/jsonl.ts: byte offsets, a bad or torn
// line becomes a diagnostic naming its line, a line over the record cap is never held), and each
// record is reduced to its facts (records.ts). Chain records go to the tree; side records are
// kept and shown; `summary` records are titles, also when their leaf is in another file (A.10).
// Nothing is ever written.
import { stat } from 'node:fs/promises';
import type { Diagnostic } from '../../diagnostics';
import { readJsonlFile, type ReadFrom } from '../xcsh/jsonl';
import { oneLine } from '../../tree/treeView';
import { sidePreview } from './previews';
import { chainFacts, isObj, RecordFlag, str, type ClaudeRecord, type SideRecord } from './records';

/** Text the CLI or the IDE wraps in tags (`<command-name>`, `<local-command-stdout>`, `<ide_opened_file>`, `<system-reminder>`…): not typed. */
const INJECTED_TEXT = /^\s*<(command-|local-command-|ide_|system-reminder|user-prompt-submit-hook|bash-)/;

/** A slash command's text (`<command-name>/x</command-name>` with its `<command-args>`), one line; null for none. */
export function slashCommand(content: unknown): string | null {
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : '')).join(' ') : '';
  const name = /<command-name>([^<]*)<\/command-name>/.exec(text)?.[1];
  if (!name) return null;
  const args = /<command-args>([^<]*)<\/command-args>/.exec(text)?.[1] ?? '';
  return oneLine(`${name} ${args}`, 160) || null;
}

/** The typed part of a user message's text, one line; null when it has none. */
export function typedPrompt(content: unknown): string | null {
  const texts = typeof content === 'string' ? [content] : Array.isArray(content) ? content.flatMap((b) => (isObj(b) && b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])) : [];
  const typed = texts.filter((x) => !INJECTED_TEXT.test(x)).join(' ');
  const line = oneLine(typed, 160);
  return line === '' ? null : line;
}

export interface SummaryRecord {
  summary: string;
  leafUuid: string;
  line: number;
}

export interface ClaudeTranscript {
  path: string;
  /** size:mtime:ino when read (refresh compares it). */
  stamp: string;
  size: number;
  mtimeMs: number;
  lines: number;
  /** Chain records in file order (duplicates included: `byUuid` says which one counts). */
  records: ClaudeRecord[];
  /** uuid → position in `records`; a later duplicate overwrites an earlier one (A.11 leaf rule step 1). */
  byUuid: Map<string, number>;
  /** Positions whose uuid a later record took over (kept as lines, not in the tree). */
  shadowed: Set<number>;
  side: SideRecord[];
  /** `summary` records (A.10): a title for the conversation ending at `leafUuid`, which may live in another file. */
  summaries: SummaryRecord[];
  /** The last `custom-title` / `ai-title` (last one wins). */
  customTitle: string | null;
  aiTitle: string | null;
  lastPrompt: { text: string; leafUuid: string | null } | null;
  /** The session id the records were written in (the first chain record's; it can differ from the file name, C.6). */
  sessionId: string | null;
  /** The first prompt a person typed (a non-sidechain, non-meta user text; CLI-injected tags left out), one line. */
  firstPrompt: string | null;
  cwd: string | null;
  /** CLI version of the first and the last chain record. */
  firstVersion: string | null;
  lastVersion: string | null;
  diagnostics: Diagnostic[];
}

export interface ReadOptions {
  /** Stops the read between chunks; the promise rejects with `abortError()` (the engine's CancelledError). */
  signal?: AbortSignal;
  abortError?: () => Error;
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /**
   * Read from this line start on, not from the file's start (a tail peek: the latest records; a
   * record whose parent lies before it starts a root, as any record with a missing parent does).
   */
  from?: ReadFrom;
}

export async function readClaudeTranscript(path: string, opts: ReadOptions = {}): Promise<ClaudeTranscript> {
  const st = await stat(path);
  const records: ClaudeRecord[] = [];
  const byUuid = new Map<string, number>();
  const shadowed = new Set<number>();
  const side: SideRecord[] = [];
  const summaries: SummaryRecord[] = [];
  const diagnostics: Diagnostic[] = [];
  let customTitle: string | null = null;
  let aiTitle: string | null = null;
  let lastPrompt: ClaudeTranscript['lastPrompt'] = null;
  let sessionId: string | null = null;
  let firstPrompt: string | null = null;
  let firstCommand: string | null = null;
  let cwd: string | null = null;
  let firstVersion: string | null = null;
  let lastVersion: string | null = null;

  const onRecord = (value: Record<string, unknown>, line: number, start: number, end: number): void => {
    const type = str(value.type);
    if (type === null) {
      diagnostics.push({ line, kind: 'invalid-entry', message: 'a JSON object without a string "type": not a Claude Code record (shown as a side record)' });
      side.push({ type: '(no type)', line, start, end, preview: '(record without a type)' });
      return;
    }
    const facts = chainFacts(value, line, start, end);
    if (facts) {
      const pos = records.length;
      records.push(facts);
      const earlier = byUuid.get(facts.uuid);
      if (earlier !== undefined) {
        shadowed.add(earlier);
        diagnostics.push({ line, kind: 'duplicate-id', entryId: facts.uuid, message: `uuid ${facts.uuid} was already used on line ${records[earlier]!.line}: this later record counts, as the CLI's map keeps the last one` });
      }
      byUuid.set(facts.uuid, pos);
      // Strings most records repeat are kept once (the one the record before holds): 35,000
      // records' copies of the same cwd, session id and version were retained for nothing.
      const prev = pos > 0 ? records[pos - 1]! : null;
      if (prev !== null) {
        if (facts.cwd === prev.cwd) facts.cwd = prev.cwd;
        if (facts.sessionId === prev.sessionId) facts.sessionId = prev.sessionId;
        if (facts.version === prev.version) facts.version = prev.version;
        if (facts.agentId === prev.agentId) facts.agentId = prev.agentId;
        if (facts.model === prev.model) facts.model = prev.model;
        if (facts.permissionMode === prev.permissionMode) facts.permissionMode = prev.permissionMode;
        // Most records' parent is the record before, and a split assistant message's parts share
        // its id: the copies JSON.parse made die young instead of being kept (and copied by every
        // collection until the read ends).
        if (facts.parentUuid === prev.uuid) facts.parentUuid = prev.uuid;
        if (facts.messageId !== null && facts.messageId === prev.messageId) facts.messageId = prev.messageId;
      }
      if (firstPrompt === null && facts.type === 'user' && facts.toolResults === null && (facts.flags & (RecordFlag.Meta | RecordFlag.Sidechain | RecordFlag.CompactSummary)) === 0) {
        const content = isObj(value.message) ? value.message.content : undefined;
        firstPrompt = typedPrompt(content);
        firstCommand ??= slashCommand(content);
      }
      sessionId ??= facts.sessionId;
      cwd ??= facts.cwd;
      if (facts.version !== null) {
        firstVersion ??= facts.version;
        lastVersion = facts.version;
      }
      return;
    }
    if (typeof value.uuid !== 'string' && (type === 'user' || type === 'assistant' || type === 'system' || type === 'attachment' || type === 'progress')) {
      diagnostics.push({ line, kind: 'invalid-entry', message: `a "${type}" record without a string "uuid": it cannot take part in the conversation tree (shown as a side record; the CLI skips it too)` });
    }
    side.push({ type, line, start, end, preview: sidePreview(value) });
    if (type === 'summary' && typeof value.summary === 'string' && typeof value.leafUuid === 'string') summaries.push({ summary: value.summary, leafUuid: value.leafUuid, line });
    else if (type === 'custom-title' && typeof value.customTitle === 'string') customTitle = value.customTitle;
    else if (type === 'ai-title' && typeof value.aiTitle === 'string') aiTitle = value.aiTitle;
    else if (type === 'last-prompt' && typeof value.lastPrompt === 'string') lastPrompt = { text: value.lastPrompt, leafUuid: str(value.leafUuid) };
    if (sessionId === null && isObj(value) && typeof value.sessionId === 'string' && type !== 'summary') sessionId = value.sessionId;
  };

  const result = await readJsonlFile(path, opts.from, {
    onRecord,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.abortError ? { abortError: opts.abortError } : {}),
    ...(opts.onProgress ? { onChunk: (n: number) => opts.onProgress!(n, st.size) } : {}),
  });
  // The reader's own findings (bad, torn, glued, too large lines…): each names its line.
  diagnostics.push(...result.diagnostics);
  diagnostics.sort((a, b) => a.line - b.line);
  return {
    path,
    stamp: `${st.size}:${st.mtimeMs}:${st.ino}`,
    size: st.size,
    mtimeMs: st.mtimeMs,
    lines: result.lines,
    records,
    byUuid,
    shadowed,
    side,
    summaries,
    customTitle,
    aiTitle,
    lastPrompt,
    sessionId,
    // a session of slash commands only is named by its first command
    firstPrompt: firstPrompt ?? firstCommand,
    cwd,
    firstVersion,
    lastVersion,
    diagnostics,
  };
}
