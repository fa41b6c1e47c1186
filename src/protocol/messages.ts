// The typed protocol between the session editor host (src/extension/editor) and its webview
// (webview/). One schema per message, one union per direction; both sides validate what they
// receive. Requests carry an id; the host answers each with exactly one `response` (ok or error),
// so a failed request rejects on the webview side instead of hanging.
//
// The webview never receives a whole large session: it asks for windows of messages, cut
// entries and tree rows. Everything the webview shows arrives here as plain data shaped for
// display (blocks), so the webview does not need to know the session format.
// A namespace import: esbuild then drops what is never used (zod's locales alone are ~300 KB).
import * as z from 'zod/mini';

// ---------- display model ----------

export const DiagnosticViewSchema = z.object({
  line: z.int(),
  kind: z.string(),
  severity: z.enum(['error', 'warning', 'info']),
  message: z.string(),
  entryId: z.optional(z.string()),
});
export type DiagnosticView = z.infer<typeof DiagnosticViewSchema>;

/** Which agent's format a file is in (src/core/formats/detect.ts). */
const SessionFormatSchema = z.enum(['xcsh', 'dsh', 'codex', 'claude']);

export const SessionSummarySchema = z.object({
  /** Which agent's format the file is in (src/core/formats/detect.ts). */
  format: SessionFormatSchema,
  /** How the file stores its records: JSON lines, zstd frames, or rows of an SQLite store (dsh). */
  encoding: z.enum(['jsonl', 'zstd', 'sqlite']),
  /** A dsh log's state (complete · open · interrupted · torn · corrupt) in words; null for xcsh. */
  state: z.nullable(z.object({ kind: z.string(), label: z.string(), description: z.string() })),
  fileName: z.string(),
  filePath: z.string(),
  title: z.nullable(z.string()),
  /** The first user message (one line, shortened): what an untitled session is about. */
  firstPrompt: z.nullable(z.string()),
  cwd: z.nullable(z.string()),
  sessionId: z.nullable(z.string()),
  /** `header.version` as read (absent = 1), null without a header. */
  version: z.nullable(z.number()),
  currentVersion: z.number(),
  needsMigration: z.boolean(),
  readOnlyReason: z.nullable(z.string()),
  created: z.nullable(z.string()),
  modified: z.nullable(z.string()),
  sizeBytes: z.number(),
  entryCount: z.int(),
  leafCount: z.int(),
  defaultLeafId: z.nullable(z.string()),
  totals: z.object({
    messages: z.number(),
    toolCalls: z.number(),
    tokensIn: z.number(),
    tokensOut: z.number(),
    cacheRead: z.number(),
    cacheWrite: z.number(),
    /** The usages' own `total` summed (xcsh; 0 when the agent wrote none). */
    tokensTotal: z.optional(z.number()),
    cost: z.number(),
  }),
  models: z.array(z.string()),
  diagnosticCount: z.int(),
  /** The first diagnostics (capped); `diagnosticCount` is the true total. */
  diagnostics: z.array(DiagnosticViewSchema),
  /** xcsh: how many diagnostics are worth a row in the Sessions view (all but `info`). */
  problemCount: z.optional(z.int()),
  /** xcsh: the first of those (capped); `problemCount` is the true total. */
  problems: z.optional(z.array(DiagnosticViewSchema)),
  /** xcsh: the reader had to split, drop or cut lines, which a repair into a new file fixes. */
  repairable: z.optional(z.boolean()),
  /** Bumped on every reload of the file (live growth). */
  revision: z.int(),
});
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

export const BlockSchema = z.discriminatedUnion('kind', [
  /** User / developer / custom text: rendered through the sanitising markdown renderer. */
  z.object({ kind: z.literal('markdown'), text: z.string(), truncatedFrom: z.optional(z.number()) }),
  /** Text shown verbatim (assistant text, tool output). */
  z.object({ kind: z.literal('text'), text: z.string(), truncatedFrom: z.optional(z.number()) }),
  z.object({ kind: z.literal('thinking'), text: z.string(), redacted: z.boolean() }),
  z.object({
    kind: z.literal('toolCall'),
    callId: z.string(),
    name: z.string(),
    argsJson: z.string(),
    /** Message index of the paired toolResult in the same context, when there is one. */
    resultIndex: z.nullable(z.int()),
    resultIsError: z.boolean(),
    /** The session this call started, in a file of its own (a Claude Code Task call's subagent transcript). */
    session: z.optional(z.object({ path: z.string(), label: z.string() })),
  }),
  z.object({
    kind: z.literal('image'),
    /** Where the host finds the data again: the entry and the path of the block in it. */
    entryId: z.string(),
    blockIndex: z.int(),
    mimeType: z.string(),
    /** The blob hash when the data is a `blob:sha256:` reference. */
    blobHash: z.nullable(z.string()),
  }),
  z.object({
    kind: z.literal('exec'),
    language: z.enum(['bash', 'python']),
    command: z.string(),
    output: z.string(),
    exitCode: z.nullable(z.number()),
    cancelled: z.boolean(),
    truncated: z.boolean(),
    fullOutputPath: z.nullable(z.string()),
  }),
  z.object({
    kind: z.literal('compaction'),
    summary: z.string(),
    shortSummary: z.nullable(z.string()),
    tokensBefore: z.nullable(z.number()),
    timestamp: z.nullable(z.string()),
  }),
  z.object({ kind: z.literal('branchSummary'), summary: z.string(), fromId: z.nullable(z.string()) }),
  /** Anything we have no renderer for: shown as formatted JSON. */
  z.object({ kind: z.literal('json'), label: z.string(), json: z.string() }),
  z.object({ kind: z.literal('error'), text: z.string() }),
]);
export type Block = z.infer<typeof BlockSchema>;

export const MessageViewSchema = z.object({
  /** Position in the context (messages) or in the cut band (cut entries). */
  index: z.int(),
  entryId: z.string(),
  /** Message role, or `entry:<type>` for a cut entry that is not a message. */
  role: z.string(),
  /** A short qualifier shown beside the role: model, customType, tool name. */
  subtitle: z.nullable(z.string()),
  badges: z.array(z.string()),
  timestamp: z.nullable(z.string()),
  tokensEst: z.int(),
  cumulativeTokensEst: z.int(),
  /** Where the message sits relative to the compaction on this path. */
  segment: z.enum(['plain', 'summary', 'kept', 'after', 'cut']),
  /** For toolResult messages: the assistant message that made the call. */
  toolResult: z.nullable(z
    .object({ callId: z.string(), toolName: z.nullable(z.string()), isError: z.boolean(), callIndex: z.nullable(z.int()) })),
  usage: z.nullable(z
    .object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number(), cost: z.number() })),
  hiddenFromUser: z.boolean(),
  blocks: z.array(BlockSchema),
});
export type MessageView = z.infer<typeof MessageViewSchema>;

export const ContextInfoSchema = z.object({
  revision: z.int(),
  leafId: z.nullable(z.string()),
  messageCount: z.int(),
  totalTokensEst: z.int(),
  runtime: z.object({
    thinkingLevel: z.string(),
    models: z.record(z.string(), z.string()),
    mode: z.string(),
    modeDataJson: z.nullable(z.string()),
    injectedTtsrRules: z.array(z.string()),
    /** dsh: the effective system prompt and tool names (from the latest request header). */
    systemPrompt: z.optional(z.nullable(z.string())),
    tools: z.optional(z.nullable(z.array(z.string()))),
    // xcsh, spec Part B §22: each present only when such an entry is on the path (older data has none).
    /** The last service_tier_change's tier as one line (a per-family map as "family tier, …"); null: cleared. */
    serviceTier: z.optional(z.nullable(z.string())),
    /** The last context_change: the active context's name, tenant and namespace (null when it names none). */
    activeContext: z.optional(z.nullable(z.object({ name: z.nullable(z.string()), tenant: z.nullable(z.string()), namespace: z.nullable(z.string()) }))),
    /** The last mcp_tool_selection's tool names (hasPersistedMCPToolSelection: true with them). */
    selectedMCPToolNames: z.optional(z.nullable(z.array(z.string()))),
    hasPersistedMCPToolSelection: z.optional(z.boolean()),
    /** What the agent calls its `mode` (Claude Code: its permission mode; Codex: its collaboration mode); absent: xcsh's mode. */
    modeLabel: z.optional(z.string()),
    /** What the agent calls `modeDataJson` (Codex: the turn's settings); absent: xcsh's mode data. */
    modeDataLabel: z.optional(z.string()),
  }),
  compaction: z.nullable(z
    .object({
      id: z.string(),
      timestamp: z.nullable(z.string()),
      tokensBefore: z.nullable(z.number()),
      firstKeptEntryId: z.nullable(z.string()),
      keptFound: z.boolean(),
      cutCount: z.int(),
      /** Messages [1, keptEnd) are the kept range; keptEnd is the first message after the compaction. */
      keptEnd: z.int(),
      /**
       * Where the summary sits among the messages (xcsh: always 0, the summary comes first; dsh: the
       * replacement takes the place of the span it shadowed). Messages before it are sent as usual.
       */
      summaryIndex: z.optional(z.int()),
    })),
  /** Depth of the leaf (entries on its path). */
  pathLength: z.int(),
  /** The leaf as the branch tree shows its row (kind, [label], text), to name it the same way. */
  leaf: z.nullable(z.object({ kind: z.string(), text: z.string(), label: z.nullable(z.string()) })),
  // Another agent's read-only log (Claude Code, Codex: issue 24) records less than the request held.
  /** What the log does not hold of the request, in one sentence ("messages only — …"); absent when it holds it all. */
  notRecorded: z.optional(z.string()),
  /** What else the preview says about this context: repairs, recoveries, rules of other versions, unverified choices. */
  notes: z.optional(z.array(z.string())),
  /** Messages the model receives, when a row is not one message (Claude Code: a user message's tool results are rows of their own). */
  apiMessageCount: z.optional(z.int()),
});
export type ContextInfo = z.infer<typeof ContextInfoSchema>;

export const TreeFilterSchema = z.enum(['default', 'no-tools', 'user-only', 'labelled-only', 'all']);
export type TreeFilter = z.infer<typeof TreeFilterSchema>;

export const TreeRowSchema = z.object({
  entryId: z.string(),
  depth: z.int(),
  kind: z.string(),
  text: z.string(),
  label: z.nullable(z.string()),
  timestamp: z.nullable(z.string()),
  isLeaf: z.boolean(),
  isDefaultLeaf: z.boolean(),
  /** On the root → selected-leaf path. */
  onPath: z.boolean(),
  /** Starts a branch (its parent has several visible children). */
  forks: z.boolean(),
});
export type TreeRow = z.infer<typeof TreeRowSchema>;

// ---------- the context-size chart (chartData.ts computes it) ----------

export const ChartPointSchema = z.object({
  /** Tokens in the context at this turn. */
  tokens: z.number(),
  /** Index in the context's messages, or null for a turn the compaction cut (not clickable). */
  messageIndex: z.nullable(z.int()),
  entryId: z.string(),
  /** The first point after the compaction in effect. */
  afterCompaction: z.boolean(),
});
export type ChartPoint = z.infer<typeof ChartPointSchema>;

export const ModelTotalsSchema = z.object({ model: z.string(), input: z.number(), output: z.number(), cost: z.number() });
export type ModelTotals = z.infer<typeof ModelTotalsSchema>;

export const ChartDataSchema = z.object({
  leafId: z.nullable(z.string()),
  /** Left out: the context holds more messages than the chart reads for one line (CHART_MAX_MESSAGES). */
  omitted: z.boolean(),
  points: z.array(ChartPointSchema),
  totals: z.array(ModelTotalsSchema),
});
export type ChartData = z.infer<typeof ChartDataSchema>;

// ---------- requests (webview → host, answered by a response) ----------

const leaf = z.nullable(z.string());

/** Messages the preview asks for at a time (its first page is part of the first paint). */
export const MESSAGE_PAGE = 40;
/** Branch-tree rows the editor asks for at a time. */
export const TREE_PAGE = 200;
const windowParams = { leafId: leaf, start: z.int().check(z.minimum(0)), count: z.int().check(z.minimum(0)).check(z.maximum(500)) };

export const Requests = {
  getContext: { params: z.object({ leafId: leaf }), result: ContextInfoSchema },
  getMessages: { params: z.object(windowParams), result: z.object({ revision: z.int(), items: z.array(MessageViewSchema) }) },
  getCutEntries: { params: z.object(windowParams), result: z.object({ revision: z.int(), items: z.array(MessageViewSchema) }) },
  /** The chart of the context at a leaf, computed where the model is (the webview gets no messages for it). */
  getChart: { params: z.object({ leafId: leaf }), result: ChartDataSchema },
  getTree: {
    params: z.object({
      filter: TreeFilterSchema,
      search: z.string().check(z.maxLength(500)),
      leafId: leaf,
      /** An entry to find in the rows (or its nearest visible ancestor): answered as `focusIndex`. */
      focusEntryId: z.nullable(z.string()),
      start: z.int().check(z.minimum(0)),
      count: z.int().check(z.minimum(0)).check(z.maximum(1000)),
    }),
    result: z.object({
      total: z.int(),
      hidden: z.int(),
      /** The row of the selected leaf, or of its nearest ancestor the filter shows. */
      selectedIndex: z.nullable(z.int()),
      /** The selected leaf is hidden by the filter or search (its ancestor's row is selected instead). */
      leafHidden: z.boolean(),
      focusIndex: z.nullable(z.int()),
      rows: z.array(TreeRowSchema),
    }),
  },
  /** Finds an entry on the leaf's path: its message index, or its place in the cut band. */
  locate: {
    params: z.object({ leafId: leaf, entryId: z.string() }),
    result: z.object({ messageIndex: z.nullable(z.int()), cutIndex: z.nullable(z.int()) }),
  },
  getImage: {
    params: z.object({ entryId: z.string(), blockIndex: z.int() }),
    result: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('data'), dataUrl: z.string() }),
      z.object({ kind: z.literal('missing'), hash: z.string() }),
      z.object({ kind: z.literal('error'), message: z.string() }),
    ]),
  },
  openRaw: { params: z.object({ line: z.nullable(z.int()) }), result: z.object({}) },
  revealInSessions: { params: z.object({ entryId: z.string() }), result: z.object({}) },
  /** Opens a session a tool call started (ToolCall block `session`) in the session editor. */
  openLinkedSession: { params: z.object({ path: z.string() }), result: z.object({}) },
  migrate: { params: z.object({}), result: z.object({}) },
} as const;

export type Method = keyof typeof Requests;
export type Params<M extends Method> = z.infer<(typeof Requests)[M]['params']>;
export type Result<M extends Method> = z.infer<(typeof Requests)[M]['result']>;

// Spelled out per method (not built by a generic helper) so that narrowing on `method` narrows
// `params` too.
const req = { type: z.literal('request'), id: z.int() };
export const RequestSchema = z.discriminatedUnion('method', [
  z.object({ ...req, method: z.literal('getContext'), params: Requests.getContext.params }),
  z.object({ ...req, method: z.literal('getMessages'), params: Requests.getMessages.params }),
  z.object({ ...req, method: z.literal('getCutEntries'), params: Requests.getCutEntries.params }),
  z.object({ ...req, method: z.literal('getChart'), params: Requests.getChart.params }),
  z.object({ ...req, method: z.literal('getTree'), params: Requests.getTree.params }),
  z.object({ ...req, method: z.literal('locate'), params: Requests.locate.params }),
  z.object({ ...req, method: z.literal('getImage'), params: Requests.getImage.params }),
  z.object({ ...req, method: z.literal('openRaw'), params: Requests.openRaw.params }),
  z.object({ ...req, method: z.literal('revealInSessions'), params: Requests.revealInSessions.params }),
  z.object({ ...req, method: z.literal('openLinkedSession'), params: Requests.openLinkedSession.params }),
  z.object({ ...req, method: z.literal('migrate'), params: Requests.migrate.params }),
]);
export type RequestMessage = z.infer<typeof RequestSchema>;

// ---------- webview → host ----------

/** A search's terms, folded (wordMatch.ts): what a jump marks in the message it lands on. */
export const MatchTermsSchema = z.object({ words: z.array(z.string()), prefixes: z.array(z.string()), phrases: z.array(z.array(z.string())) });
export type MatchTerms = z.infer<typeof MatchTermsSchema>;

export const WebviewStateSchema = z.object({
  leafId: z.nullable(z.string()),
  /** True while the user follows the default leaf (live growth moves the selection along). */
  followDefault: z.boolean(),
  anchorEntryId: z.nullable(z.string()),
  anchorOffset: z.number(),
  expanded: z.array(z.string()),
  cutBandOpen: z.boolean(),
  filter: TreeFilterSchema,
  search: z.string(),
});
export type WebviewState = z.infer<typeof WebviewStateSchema>;

export const WebviewToHostSchema = z.union([
  /** Where the user is (leaf, scroll, expansions, filter): the host keeps it for the next editor of the file (issue 25). */
  z.object({ type: z.literal('stateChanged'), state: WebviewStateSchema }),
  /**
   * The page's very first words, from a small script ahead of its bundle (webviewHtml.ts): the page
   * exists, so what the host posts now reaches it once its scripts ran (the first paint's `init`,
   * ahead of `ready`). restored: the page has state to restore (it then waits for its `ready`'s answer).
   */
  z.object({ type: z.literal('hello'), restored: z.boolean() }),
  /** Always the first message: anything the host sent before it would be lost. */
  // boot: where the webview's own start-up time went (ms since its document began loading), for the editor's log.
  // again: a fresh page still without `init` a while after its first `ready` (an `init` posted
  // ahead of it was lost): the host answers as it does a first `ready`.
  z.object({
    type: z.literal('ready'),
    restored: z.nullable(WebviewStateSchema),
    again: z.optional(z.boolean()),
    // bundle: when the bundle's first statement ran (its parse and compile, and any stylesheet it waited for, are before).
    boot: z.optional(z.object({ html: z.number(), assets: z.array(z.object({ name: z.string(), start: z.number(), end: z.number() })), evaluated: z.number(), ready: z.number(), origin: z.optional(z.number()), bundle: z.optional(z.number()) })),
  }),
  /** The first window of messages is on screen (for the open → first paint measurement). */
  // requests: how many the webview asked the host for before it (round trips, in parallel or not).
  // steps: when (ms since the document began) each step before the first paint was done (the page's
  // `load`, `init` received and checked, the header, chart and tree drawn, the rows laid out), for the editor's log.
  z.object({
    type: z.literal('painted'),
    leafId: leaf,
    messageCount: z.int(),
    sinceScriptStartMs: z.number(),
    requests: z.optional(z.int()),
    steps: z.optional(z.record(z.string(), z.number())),
  }),
  /** The peek's rows are on screen (the full view comes later with `painted`). */
  z.object({ type: z.literal('peekPainted'), messageCount: z.int(), sinceScriptStartMs: z.number() }),
  /** Another leaf was selected and its context and tree are on screen again, `ms` after the click. */
  // answeredMs: how much of `ms` went by before the host's last answer arrived (the rest is drawing).
  // requests: how many the webview asked the host for in between.
  z.object({ type: z.literal('repainted'), leafId: leaf, ms: z.number(), answeredMs: z.optional(z.number()), requests: z.optional(z.int()) }),
  z.object({ type: z.literal('selectionChanged'), leafId: leaf }),
  RequestSchema,
]);
export type WebviewToHost = z.infer<typeof WebviewToHostSchema>;

// ---------- host → webview ----------

export const ResponseSchema = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('response'), id: z.int(), ok: z.literal(true), result: z.unknown() }),
  z.object({ type: z.literal('response'), id: z.int(), ok: z.literal(false), error: z.string() }),
]);

/**
 * What the first paint of a leaf shows, sent with `init` so that it waits for no request: the
 * leaf's context, its first page of messages, a page of branch-tree rows (default filter, no
 * search) around the selected row, which starts at row `start`, and the context chart when it was
 * computed in time (drawn later, it pushed the rows down once they were on screen).
 */
export const FirstPaintSchema = z.object({
  context: Requests.getContext.result,
  messages: Requests.getMessages.result,
  tree: z.object({ start: z.int().check(z.minimum(0)), page: Requests.getTree.result }),
  chart: z.optional(ChartDataSchema),
});
export type FirstPaint = z.infer<typeof FirstPaintSchema>;

/** What the editor paints while a big session is still indexed (src/core/engine/xcsh/tailPeek.ts). */
export const TailPeekSchema = z.object({
  filePath: z.string(),
  /** Another agent's log (claude, codex): its header names the agent, as the full view's does. */
  format: z.optional(SessionFormatSchema),
  title: z.nullable(z.string()),
  /** The first user message that says what the session is about: what an untitled session is called. */
  firstPrompt: z.nullable(z.string()),
  cwd: z.nullable(z.string()),
  created: z.nullable(z.string()),
  size: z.number(),
  /** The file's last entry: the leaf the full view opens at. */
  leafId: z.string(),
  /** The latest messages on its path, oldest first; `index` counts back from the last (-1). */
  messages: z.array(MessageViewSchema),
});
export type TailPeek = z.infer<typeof TailPeekSchema>;

export const HostToWebviewSchema = z.union([
  /** Sent before `init` when the session takes a while to index: its latest messages. */
  // ahead: posted before the webview said `ready` (as `init` can be), for a fresh page only.
  z.object({ type: z.literal('peek'), peek: TailPeekSchema, ahead: z.optional(z.boolean()) }),
  // How far the worker has read a big session while the peek shows.
  z.object({ type: z.literal('loadProgress'), bytes: z.number().check(z.nonnegative()), total: z.number().check(z.nonnegative()) }),
  // first: the answers the first paint would ask for, when the host has them (see FirstPaintSchema).
  // ahead: posted before the webview said `ready`, for a fresh page (one with no restored state);
  // a page that restored its state ignores it and waits for the `init` that answers its `ready`.
  // jump: an entry of the leaf's context to show (scrolled into view and flashed, `highlight`'s
  // words marked), as `selectLeaf` jumps; for an editor that a jump opened.
  z.object({
    type: z.literal('init'),
    summary: SessionSummarySchema,
    selectLeafId: leaf,
    followDefault: z.boolean(),
    first: z.optional(FirstPaintSchema),
    ahead: z.optional(z.boolean()),
    jump: z.optional(z.object({ entryId: z.string(), highlight: z.optional(MatchTermsSchema) })),
  }),
  /** The file changed on disk and was reloaded. */
  z.object({ type: z.literal('sessionChanged'), summary: SessionSummarySchema }),
  /**
   * Select a leaf (previewContextAt) and optionally jump to an entry of its context: scrolled into
   * view and flashed, `highlight` (a search query) marking its words.
   */
  z.object({ type: z.literal('selectLeaf'), leafId: z.string(), revealEntryId: z.nullable(z.string()), highlight: z.optional(MatchTermsSchema) }),
  z.object({ type: z.literal('loadFailed'), message: z.string() }),
  ResponseSchema,
]);
export type HostToWebview = z.infer<typeof HostToWebviewSchema>;

/** Validates a request's result against its method's schema (the webview does this on receipt). */
export function parseResult<M extends Method>(method: M, value: unknown): Result<M> {
  return Requests[method].result.parse(value) as Result<M>;
}
