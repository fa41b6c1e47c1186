// Context at the default leaf of every real fixture, derived by reading the raw JSONL with a
// throwaway script independent of src/core: JSON.parse per line, glued `}{` records split, v1
// files chained in file order with firstKeptEntryIndex k naming the k-th record after the header,
// then the walk from the last record to its root and the Part A compaction rule.
export interface FixtureExpectation {
  file: string;
  entries: number;
  roles: Record<string, number>;
  cut: number;
  thinkingLevel: string;
  models: Record<string, string>;
  compaction?: boolean;
}

export const FIXTURE_EXPECTATIONS: FixtureExpectation[] = [
  { file: 'upstream/pi-before-compaction.v1.bash-execution-tail.jsonl', entries: 9, roles: { user: 3, assistant: 3, bashExecution: 2 }, cut: 0, thinkingLevel: 'off', models: { default: 'anthropic/claude-opus-4-5' } },
  { file: 'upstream/pi-before-compaction.v1.model-change-burst.jsonl', entries: 12, roles: { assistant: 4, user: 2, toolResult: 1 }, cut: 0, thinkingLevel: 'off', models: { default: 'anthropic/claude-opus-4-5' } },
  { file: 'upstream/pi-compact.v1.glued-compaction.jsonl', entries: 6, roles: { compactionSummary: 1 }, cut: 5, thinkingLevel: 'off', models: { default: 'anthropic/claude-opus-4-5' }, compaction: true },
  { file: 'upstream/pi-compact.v1.toolresult-image.jsonl', entries: 2, roles: { assistant: 1, toolResult: 1 }, cut: 0, thinkingLevel: 'off', models: { default: 'anthropic/claude-opus-4-5' } },
  { file: 'upstream/pi-large-session.v1.head25.jsonl', entries: 24, roles: { user: 3, assistant: 8, toolResult: 12 }, cut: 0, thinkingLevel: 'off', models: { default: 'anthropic/claude-sonnet-4-5' } },
  { file: 'upstream/pi-large-session.v1.thinking-burst.jsonl', entries: 80, roles: { assistant: 28, toolResult: 22, user: 5 }, cut: 0, thinkingLevel: 'off', models: { default: 'anthropic/claude-sonnet-4-5' } },
  { file: 'upstream/pi-session.v1.glued-records.jsonl', entries: 17, roles: { toolResult: 4, assistant: 8, user: 5 }, cut: 0, thinkingLevel: 'off', models: { default: 'anthropic/claude-opus-4-5' } },
  { file: 'upstream-full/pi-before-compaction.jsonl', entries: 1002, roles: { compactionSummary: 1, user: 31, assistant: 219, toolResult: 192, bashExecution: 3 }, cut: 550, thinkingLevel: 'off', models: { default: 'anthropic/claude-opus-4-5' }, compaction: true },
  { file: 'upstream-full/pi-compact.jsonl', entries: 1013, roles: { compactionSummary: 1 }, cut: 1012, thinkingLevel: 'off', models: { default: 'anthropic/claude-opus-4-5' }, compaction: true },
  { file: 'upstream-full/pi-large-session.jsonl', entries: 1018, roles: { user: 88, assistant: 453, toolResult: 373 }, cut: 0, thinkingLevel: 'off', models: { default: 'anthropic/claude-sonnet-4-5' } },
  { file: 'upstream-full/pi-session.jsonl', entries: 463, roles: { compactionSummary: 1, assistant: 53, user: 16, toolResult: 39 }, cut: 354, thinkingLevel: 'medium', models: { default: 'anthropic/claude-opus-4-5' }, compaction: true },
  { file: 'real-v3/gjc-01-youtube-transcript-extraction.jsonl', entries: 381, roles: { toolResult: 167, assistant: 134, custom: 7, user: 7 }, cut: 0, thinkingLevel: 'off', models: { default: 'zai/glm-5.2' } },
  { file: 'real-v3/gjc-03-raddit-dashboard-pr.jsonl', entries: 585, roles: { compactionSummary: 1, assistant: 32, toolResult: 31, custom: 2, user: 2 }, cut: 485, thinkingLevel: 'off', models: { default: 'zai/glm-5.2' }, compaction: true },
  { file: 'real-v3/gjc-04-awesome-agent-ide.jsonl', entries: 158, roles: { assistant: 49, toolResult: 55, custom: 4, user: 4 }, cut: 0, thinkingLevel: 'off', models: { default: 'zai/glm-5.2' } },
];

export function countRoles(messages: { role: string }[]): Record<string, number> {
  const got: Record<string, number> = {};
  for (const m of messages) got[m.role] = (got[m.role] ?? 0) + 1;
  return got;
}
