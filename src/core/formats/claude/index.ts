// The Claude Code transcript reader (claude-code-format.md): read a transcript by lines and keep
// its records' facts (read.ts, records.ts), build its tree and leaves (tree.ts), walk the
// conversation at a leaf with the CLI's repairs and cut (path.ts), normalise it into the messages
// the model receives (apiMessages.ts), read bodies back by byte range (bodies.ts), find and link
// its subagents (subagents.ts). Detection is by content (detect.ts). Read-only throughout.
import { ClaudePaths } from './path';
import { readClaudeTranscript, type ClaudeTranscript, type ReadOptions, type SummaryRecord } from './read';
import { ClaudeTree } from './tree';

export { apiConversation, MISSING_RESULT_TEXT, NO_CONTENT, NO_CONTENT_LAST, type ApiConversation, type ApiMessage, type DroppedRecord, type UserPart } from './apiMessages';
export { nthImage, RecordBodies, TranscriptChangedError, type BodyRef } from './bodies';
export { CLAUDE_READ_ONLY_REASON, isClaudeRecord, isClaudeTranscript } from './detect';
export { ClaudePaths, type LeafPath } from './path';
export * from './records';
export { findSubagents, type SubagentLayout, type SubagentLink } from './subagents';
export { ClaudeTree, type InlineSidechain, type LeafRules } from './tree';

export interface ClaudeSession {
  transcript: ClaudeTranscript;
  tree: ClaudeTree;
  paths: ClaudePaths;
}

/** A transcript read, its tree built and its walks ready. */
export async function loadClaudeSession(path: string, opts: ReadOptions = {}): Promise<ClaudeSession> {
  const transcript = await readClaudeTranscript(path, opts);
  const tree = new ClaudeTree(transcript);
  return { transcript, tree, paths: new ClaudePaths(tree) };
}

/** The `summary` records whose leaf is not in this file: titles of other sessions' conversations (A.10). */
export function foreignSummaries(t: ClaudeTranscript): SummaryRecord[] {
  return t.summaries.filter((s) => !t.byUuid.has(s.leafUuid));
}
