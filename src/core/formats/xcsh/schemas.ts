// zod schemas for the session header, every entry type, every message role and content block
// (spec Part A taxonomy + Part B §1–§4). Known fields are typed; everything is `loose` so unknown
// fields survive, and unknown entry types are accepted by `UnknownEntrySchema` (Part B §1, Part C §9).
//
// Hot paths (loading a 1M-entry file) do NOT run these schemas per entry: the loader does the
// minimal structural checks it needs and keeps the original objects. The schemas are the typed
// description used by validation (`validateEntry`, doctor), the protocol, and tests.
// A namespace import: esbuild then drops what is never used (zod's locales alone are ~300 KB).
import * as z from 'zod';

import { CURRENT_SESSION_VERSION, EXTRA_ENTRY_TYPES, KNOWN_ENTRY_TYPES } from './entryTypes';
export { CURRENT_SESSION_VERSION, EXTRA_ENTRY_TYPES, KNOWN_ENTRY_TYPES };

// ---------- content blocks (Part B §3) ----------
export const TextBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
export const ThinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  thinkingSignature: z.string().optional(),
});
export const RedactedThinkingBlockSchema = z.looseObject({ type: z.literal('redactedThinking'), data: z.string().optional() });
/** `data` is base64, or `blob:sha256:<64 hex>` once externalised to the blob store. */
export const ImageBlockSchema = z.looseObject({ type: z.literal('image'), data: z.string(), mimeType: z.string() });
export const ToolCallBlockSchema = z.looseObject({
  type: z.literal('toolCall'),
  id: z.string(),
  name: z.string(),
  arguments: z.unknown(),
});
export const KnownContentBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  ThinkingBlockSchema,
  RedactedThinkingBlockSchema,
  ImageBlockSchema,
  ToolCallBlockSchema,
]);
export const UnknownContentBlockSchema = z.looseObject({ type: z.string() });
export const ContentBlockSchema = z.union([KnownContentBlockSchema, UnknownContentBlockSchema]);
/** Message content is a string or an array of blocks. */
export const ContentSchema = z.union([z.string(), z.array(ContentBlockSchema)]);

// ---------- usage ----------
export const UsageSchema = z.looseObject({
  input: z.number().optional(),
  output: z.number().optional(),
  cacheRead: z.number().optional(),
  cacheWrite: z.number().optional(),
  totalTokens: z.number().optional(),
  cost: z
    .looseObject({
      input: z.number().optional(),
      output: z.number().optional(),
      cacheRead: z.number().optional(),
      cacheWrite: z.number().optional(),
      total: z.number().optional(),
    })
    .optional(),
});

// ---------- messages (AgentMessage, Part B §3) ----------
const ts = z.number().optional(); // epoch ms on messages
export const UserMessageSchema = z.looseObject({ role: z.literal('user'), content: ContentSchema, timestamp: ts });
export const DeveloperMessageSchema = z.looseObject({ role: z.literal('developer'), content: ContentSchema, timestamp: ts });
export const AssistantMessageSchema = z.looseObject({
  role: z.literal('assistant'),
  content: z.array(ContentBlockSchema),
  provider: z.string().optional(),
  model: z.string().optional(),
  api: z.string().optional(),
  usage: UsageSchema.optional(),
  stopReason: z.string().optional(),
  errorMessage: z.string().optional(),
  timestamp: ts,
});
export const ToolResultMessageSchema = z.looseObject({
  role: z.literal('toolResult'),
  toolCallId: z.string(),
  toolName: z.string().optional(),
  content: ContentSchema,
  isError: z.boolean().optional(),
  details: z.unknown().optional(),
  timestamp: ts,
});
export const BashExecutionMessageSchema = z.looseObject({
  role: z.literal('bashExecution'),
  command: z.string(),
  output: z.string().optional(),
  exitCode: z.number().nullable().optional(),
  cancelled: z.boolean().optional(),
  truncated: z.boolean().optional(),
  fullOutputPath: z.string().optional(),
  timestamp: ts,
});
export const PythonExecutionMessageSchema = z.looseObject({
  role: z.literal('pythonExecution'),
  code: z.string().optional(),
  output: z.string().optional(),
  exitCode: z.number().nullable().optional(),
  timestamp: ts,
});
export const CustomMessageSchema = z.looseObject({
  role: z.literal('custom'),
  customType: z.string().optional(),
  content: ContentSchema.optional(),
  display: z.boolean().optional(),
  details: z.unknown().optional(),
  timestamp: ts,
});
/** Legacy v2 role, rewritten to `custom` by the v2→v3 migration. */
export const HookMessageSchema = CustomMessageSchema.extend({ role: z.literal('hookMessage') });
export const BranchSummaryMessageSchema = z.looseObject({
  role: z.literal('branchSummary'),
  summary: z.string(),
  fromId: z.string().optional(),
  timestamp: ts,
});
export const CompactionSummaryMessageSchema = z.looseObject({
  role: z.literal('compactionSummary'),
  summary: z.string(),
  shortSummary: z.string().optional(),
  tokensBefore: z.number().optional(),
  timestamp: ts,
});
export const FileMentionMessageSchema = z.looseObject({ role: z.literal('fileMention'), timestamp: ts });

export const KnownAgentMessageSchema = z.discriminatedUnion('role', [
  UserMessageSchema,
  DeveloperMessageSchema,
  AssistantMessageSchema,
  ToolResultMessageSchema,
  BashExecutionMessageSchema,
  PythonExecutionMessageSchema,
  CustomMessageSchema,
  HookMessageSchema,
  BranchSummaryMessageSchema,
  CompactionSummaryMessageSchema,
  FileMentionMessageSchema,
]);
export const AgentMessageSchema = z.union([KnownAgentMessageSchema, z.looseObject({ role: z.string() })]);

// ---------- header (Part A + Part B §2) ----------
export const SessionHeaderSchema = z.looseObject({
  type: z.literal('session'),
  id: z.string(),
  version: z.number().int().optional(),
  timestamp: z.string().optional(),
  cwd: z.string().optional(),
  title: z.string().optional(),
  titleSource: z.enum(['auto', 'user']).optional(),
  parentSession: z.string().optional(),
  // v1 legacy fields
  provider: z.string().optional(),
  modelId: z.string().optional(),
  thinkingLevel: z.string().optional(),
  branchedFrom: z.string().optional(),
});

// ---------- entries (Part A taxonomy) ----------
const base = {
  id: z.string(),
  parentId: z.string().nullable().optional(),
  timestamp: z.string().optional(),
};
export const MessageEntrySchema = z.looseObject({ ...base, type: z.literal('message'), message: AgentMessageSchema });
/** v3 form `{model, role?}`; v1 form `{provider, modelId}` (Part B §4) is kept as is. */
export const ModelChangeEntrySchema = z.looseObject({
  ...base,
  type: z.literal('model_change'),
  model: z.string().optional(),
  role: z.string().optional(),
  provider: z.string().optional(),
  modelId: z.string().optional(),
});
export const ThinkingLevelChangeEntrySchema = z.looseObject({ ...base, type: z.literal('thinking_level_change'), thinkingLevel: z.string() });
export const CompactionEntrySchema = z.looseObject({
  ...base,
  type: z.literal('compaction'),
  summary: z.string(),
  shortSummary: z.string().optional(),
  firstKeptEntryId: z.string().optional(),
  /** v1 only; migrated to firstKeptEntryId. */
  firstKeptEntryIndex: z.number().optional(),
  tokensBefore: z.number().optional(),
  details: z.unknown().optional(),
  preserveData: z.unknown().optional(),
  fromExtension: z.boolean().optional(),
});
export const BranchSummaryEntrySchema = z.looseObject({
  ...base,
  type: z.literal('branch_summary'),
  fromId: z.string(),
  summary: z.string(),
  details: z.unknown().optional(),
  fromExtension: z.boolean().optional(),
});
export const CustomEntrySchema = z.looseObject({ ...base, type: z.literal('custom'), customType: z.string(), data: z.unknown().optional() });
export const CustomMessageEntrySchema = z.looseObject({
  ...base,
  type: z.literal('custom_message'),
  customType: z.string(),
  content: ContentSchema,
  display: z.boolean().optional(),
  details: z.unknown().optional(),
});
/** `label` absent clears the label of `targetId`. */
export const LabelEntrySchema = z.looseObject({ ...base, type: z.literal('label'), targetId: z.string(), label: z.string().optional() });
export const TtsrInjectionEntrySchema = z.looseObject({ ...base, type: z.literal('ttsr_injection'), injectedRules: z.array(z.string()) });
export const SessionInitEntrySchema = z.looseObject({
  ...base,
  type: z.literal('session_init'),
  systemPrompt: z.string().optional(),
  task: z.string().optional(),
  tools: z.array(z.string()).optional(),
  outputSchema: z.unknown().optional(),
});
export const ModeChangeEntrySchema = z.looseObject({ ...base, type: z.literal('mode_change'), mode: z.string(), data: z.unknown().optional() });

/** Any other type: preserved byte-for-byte and shown raw. */
export const UnknownEntrySchema = z.looseObject({ ...base, type: z.string() });

export const KnownEntrySchema = z.discriminatedUnion('type', [
  MessageEntrySchema,
  ModelChangeEntrySchema,
  ThinkingLevelChangeEntrySchema,
  CompactionEntrySchema,
  BranchSummaryEntrySchema,
  CustomEntrySchema,
  CustomMessageEntrySchema,
  LabelEntrySchema,
  TtsrInjectionEntrySchema,
  SessionInitEntrySchema,
  ModeChangeEntrySchema,
]);

// ---------- inferred types ----------
export type SessionHeader = z.infer<typeof SessionHeaderSchema>;
export type CompactionEntry = z.infer<typeof CompactionEntrySchema>;
export type KnownEntry = z.infer<typeof KnownEntrySchema>;
export type UnknownEntry = z.infer<typeof UnknownEntrySchema>;
export type KnownEntryType = (typeof KNOWN_ENTRY_TYPES)[number];

/**
 * What the core passes around after loading: every non-header record that has a string `type`
 * and (after migration) a string `id`. Known types narrow by `type`; unknown types keep their
 * fields. Code that switches on `type` must keep a default branch for unknown types.
 */
export type SessionEntry = KnownEntry | (UnknownEntry & { type: string });

/**
 * Narrows an entry to a known type. (A plain `e.type === 'message'` cannot narrow `SessionEntry`,
 * because unknown entry types keep `type: string`; this guard is the honest way to narrow.)
 */
export function entryIs<T extends KnownEntryType>(e: SessionEntry, type: T): e is Extract<KnownEntry, { type: T }> {
  return e.type === type;
}
