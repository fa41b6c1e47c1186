// OpenAI Codex CLI rollouts, read-only (codex-format.md): the reader, the replay that rebuilds
// the model's history, forks across files, the prompt history and the thread names.
export * from './types';
export { ENVELOPE_TYPES, RESPONSE_ITEM_TYPES, isCodexRollout, recordOf } from './records';
export { loadCodexRollout, readCodexAppend, readCodexRolloutBytes } from './load';
export { contentItems, contextualTagOf, isContextualMessage, isRealUserMessage, isUserTurnBoundary, typedPrompt } from './contextual';
export { dropLastUserTurns, isApiItem, replayRollout, UNPOLICED_OUTPUT_FLAG_BYTES, type CompactionInEffect, type ReplayOptions, type ReplayResult } from './replay';
export { ABORTED_OUTPUT, IMAGE_OMITTED_TEXT, normalizeForModel, type NormalizeOptions } from './normalize';
export { approxTokens, truncateMiddle, truncationPolicyOf, type TruncationPolicy } from './truncation';
export { attributeUsage, isModelOutput, usageBefore, usageOf, type CodexUsage, type UsageIndex } from './usage';
export { factsOfRollout, readRolloutFacts, type CodexRolloutFacts } from './facts';
export { buildForkForest, type ForkFacts, type ForkNode } from './forks';
export { defaultCodexHistoryPath, parseCodexPromptHistory, readCodexPromptHistory, type CodexPromptEntry, type CodexPromptHistory } from './promptHistory';
export { codexHomeDir, codexHomeOf, parseSessionIndex, readSessionIndex, type ThreadNames } from './sessionIndex';
export { CODEX_ZSTD_SNIFF_BYTES, codexFirstLine, sniffCodexRollout } from './sniffCodex';
