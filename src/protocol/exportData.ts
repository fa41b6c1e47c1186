// The data of an exported page (issue 13): what src/core/export/exportData.ts builds from a
// session model and webview/exportHost.ts answers the webview's requests from. Plain JSON.
import type { ContextInfo, MessageView, SessionSummary, TreeFilter, TreeRow } from './messages';

export interface ExportedContext {
  info: ContextInfo;
  /** Positions in `pool` of the context's messages, in order. */
  messages: number[];
  /** Positions in `pool` of the cut entries, in order. */
  cut: number[];
}

export interface ExportData {
  version: 1;
  summary: SessionSummary;
  /** The leaf the page opens at (a `#leaf=<id>` link wins). */
  selectLeafId: string | null;
  /** 'session': the whole tree; 'branch': the root → leaf path only. */
  scope: 'session' | 'branch';
  /** Rows per filter (search is applied in the page, over these rows). */
  trees: Record<TreeFilter, TreeRow[]>;
  /** entryId → parent entryId (null for a root), for the highlighted path of any selection. */
  parents: Record<string, string | null>;
  /** entryId → its context; an entry without one shows the context of its nearest exported descendant leaf. */
  contexts: Record<string, ExportedContext>;
  pool: MessageView[];
  /**
   * `${entryId}:${blockIndex}` → its picture in `blobs`, or why there is none. A picture shown by many
   * entries (one blob, or the same inline data) is embedded once and referenced by each of them.
   */
  images: Record<string, { kind: 'ref'; blob: string } | { kind: 'missing'; hash: string } | { kind: 'error'; message: string }>;
  /** Each distinct picture's data URL, by its blob hash (or `inline:N` for data held in the entry). */
  blobs: Record<string, string>;
  /** Contexts were exported for the leaves only (a large session). */
  leavesOnly: boolean;
  exportedAt: string;
}
