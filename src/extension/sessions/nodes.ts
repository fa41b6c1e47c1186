// The node classes of the Sessions tree, one per level. Nodes are created once per id and reused
// (the provider caches them), so `onDidChangeTreeData.fire(node)` and `reveal(node)` always name
// the object VS Code already knows, and expanded rows stay expanded across refreshes.
import type { EntryFacts, RunEntry } from '../../core/engine/model';
import type { DiagnosticView, TreeRow } from '../../protocol/messages';
import type { ProjectInfo, SessionMeta } from './catalog';

export class ProjectNode {
  readonly kind = 'project';
  constructor(public info: ProjectInfo) {}
  get id(): string {
    return `project:${this.info.key ?? this.info.dir}`;
  }
}

export class SessionNode {
  readonly kind = 'session';
  constructor(
    public meta: SessionMeta,
    /** A project, or the parent session of a subagent session. */
    public parent: ProjectNode | SessionNode,
  ) {}
  get id(): string {
    return this.meta.file;
  }
  get file(): string {
    return this.meta.file;
  }
}

export class DiagnosticNode {
  readonly kind = 'diagnostic';
  constructor(
    public parent: SessionNode,
    public diagnostic: DiagnosticView,
    readonly index: number,
  ) {}
  get id(): string {
    return `${this.parent.file}#diag:${this.index}`;
  }
}

/** What a run row shows: the model's run segment (a run may hold a million entries: never their ids). */
export interface RunFacts {
  firstId: string;
  lastId: string;
  count: number;
  /** Its first user prompt (else its first entry), shortened. */
  title: string;
  onActivePath: boolean;
}

/** A collapsed linear chain of entries ("N entries: first user text …"); its entries come in pages. */
export class RunNode {
  readonly kind = 'run';
  /** How many of its entries the row shows (pages of RUN_PAGE; "Show more" adds one). */
  shown = 0;
  /**
   * The entries read so far, for `loadedFor` (the session's stamp and query): the model's answer,
   * not nodes, since an entry's node is shared by every filter's run that shows it and each sets
   * its parent, row and branches afresh when it lists it.
   */
  loaded: RunEntry[] = [];
  loadedFor = '';
  constructor(
    public session: SessionNode,
    public parent: SessionNode | EntryNode,
    public facts: RunFacts,
  ) {}
  get id(): string {
    return `${this.session.file}#run:${this.facts.firstId}`;
  }
}

export class EntryNode {
  readonly kind = 'entry';
  constructor(
    public session: SessionNode,
    public parent: SessionNode | RunNode | EntryNode,
    readonly entryId: string,
    /** The entry ends its segment and has visible children (the branches after a fork). */
    public hasBranches: boolean,
    /** Its row as the model gave it (text, label, time, leaf and path flags), and the icon's facts. */
    public row: TreeRow,
    public facts: EntryFacts,
  ) {}
  get id(): string {
    return `${this.session.file}#${this.entryId}`;
  }
}

/** The last row of a run shown in part: "Show N more…", which shows the next page. */
export class MoreNode {
  readonly kind = 'more';
  constructor(
    public parent: RunNode,
    /** How many entries the run holds beyond those shown. */
    public remaining: number,
  ) {}
  get id(): string {
    return `${this.parent.id}#more`;
  }
}

/**
 * One of a big session's latest messages, shown while the model worker indexes it (the tail peek
 * the editor paints first: the default leaf's last messages, read from the file's end). Replaced
 * by the branch rows as soon as the session is read.
 */
export class PeekNode {
  readonly kind = 'peek';
  constructor(
    public parent: SessionNode,
    readonly entryId: string,
    /** Its message role (user, assistant, toolResult…). */
    public role: string,
    /** Its one-line preview. */
    public text: string,
    public timestamp: string | null,
    /** The file's last entry: the default leaf. */
    public isLeaf: boolean,
    /** An assistant message that calls tools (its icon is an entry row's: tools). */
    public callsTools = false,
  ) {}
  get id(): string {
    return `${this.parent.file}#peek:${this.entryId}`;
  }
}

/** A one-line notice inside a session (nothing matches the filter, the file could not be read). */
export class InfoNode {
  readonly kind = 'info';
  constructor(
    public parent: SessionNode,
    public text: string,
    public icon = 'info',
  ) {}
  get id(): string {
    return `${this.parent.file}#info`;
  }
}

/** The one top-level row of a search that found nothing (yet): an empty tree would show the "no sessions" welcome. */
export class NoticeNode {
  readonly kind = 'notice';
  constructor(
    public text: string,
    public icon = 'search',
  ) {}
  get id(): string {
    return 'notice:search';
  }
}

export type LoomNode = ProjectNode | SessionNode | DiagnosticNode | RunNode | EntryNode | MoreNode | InfoNode | NoticeNode | PeekNode;
