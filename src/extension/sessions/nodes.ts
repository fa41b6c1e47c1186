// The node classes of the Sessions tree, one per level. Nodes are created once per id and reused
// (the provider caches them), so `onDidChangeTreeData.fire(node)` and `reveal(node)` always name
// the object VS Code already knows, and expanded rows stay expanded across refreshes.
import type { Diagnostic } from '../../core/diagnostics';
import type { ProjectInfo, SessionMeta } from './catalog';

export class ProjectNode {
  readonly kind = 'project';
  constructor(public info: ProjectInfo) {}
  get id(): string {
    return `project:${this.info.dir}`;
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
    public diagnostic: Diagnostic,
    readonly index: number,
  ) {}
  get id(): string {
    return `${this.parent.file}#diag:${this.index}`;
  }
}

/** A collapsed linear chain of entries ("N entries: first user text …"). */
export class RunNode {
  readonly kind = 'run';
  constructor(
    public session: SessionNode,
    public parent: SessionNode | EntryNode,
    public ids: string[],
  ) {}
  get id(): string {
    return `${this.session.file}#run:${this.ids[0]}`;
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
  ) {}
  get id(): string {
    return `${this.session.file}#${this.entryId}`;
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

export type LoomNode = ProjectNode | SessionNode | DiagnosticNode | RunNode | EntryNode | InfoNode | NoticeNode;
