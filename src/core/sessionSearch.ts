// Pure logic of the Sessions view's search across sessions (no `vscode`): whether a session
// matches (its entries through the branch tree's own filter and search, src/core/treeView.ts,
// or its title / first prompt), which sessions and projects stay visible, and the words the
// view shows for a search in progress. The entry matching is exactly the branch tree's, so the
// count a session row shows is the number of entries its expanded tree shows.
import { computeVisibleTree, matchesSearch, type TreeFilterMode, type TreeSource, type VisibleTree } from './treeView';

/** The session-level text a search also looks at. */
export interface SessionTitleFields {
  title?: string | undefined;
  firstUserMessage?: string | undefined;
}

export interface SessionSearchHit {
  /** Entries that match every token and that the filter shows. */
  entryMatches: number;
  /** The title or the first prompt holds every token. */
  titleMatch: boolean;
}

export function sessionTitleHaystack(f: SessionTitleFields): string {
  return [f.title ?? '', f.firstUserMessage ?? ''].join(' ').toLowerCase();
}

export function titleMatches(f: SessionTitleFields, tokens: readonly string[]): boolean {
  return tokens.length > 0 && matchesSearch(sessionTitleHaystack(f), tokens);
}

export function isSearchMatch(hit: SessionSearchHit | undefined): boolean {
  return hit !== undefined && (hit.entryMatches > 0 || hit.titleMatch);
}

/**
 * Searches one loaded session: the hit, and the visible tree it came from (the tree the view
 * shows for this session while the search is active, so callers can keep it).
 */
export function searchSession(src: TreeSource, title: SessionTitleFields, filter: TreeFilterMode, tokens: readonly string[]): { hit: SessionSearchHit; tree: VisibleTree } {
  const tree = computeVisibleTree(src, { filter, tokens });
  return { hit: { entryMatches: tree.parent.size, titleMatch: titleMatches(title, tokens) }, tree };
}

/**
 * The tokens a session's branch tree applies during a search: the search's own, except for a
 * session that matched only by its title, whose whole (filtered) tree is shown instead of an
 * empty one.
 */
export function branchTokens(hit: SessionSearchHit | undefined, tokens: readonly string[]): readonly string[] {
  return hit && hit.entryMatches === 0 && hit.titleMatch ? [] : tokens;
}

/** "1 match", "12 matches", "title matches"; empty for no match. */
export function matchSummary(hit: SessionSearchHit | undefined): string {
  if (!hit) return '';
  if (hit.entryMatches > 0) return `${hit.entryMatches} ${hit.entryMatches === 1 ? 'match' : 'matches'}`;
  return hit.titleMatch ? 'title matches' : '';
}

/** A session and the subagent sessions nested under it. */
export interface SearchableSession {
  file: string;
  subagents: readonly SearchableSession[];
}

/** During a search a session is shown when it, or a subagent session under it, matches. */
export function sessionShown(s: SearchableSession, hits: ReadonlyMap<string, SessionSearchHit>): boolean {
  const stack: SearchableSession[] = [s];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const cur = stack.pop()!;
    if (seen.has(cur.file)) continue;
    seen.add(cur.file);
    if (isSearchMatch(hits.get(cur.file))) return true;
    stack.push(...cur.subagents);
  }
  return false;
}

/** Every session in display order, each parent before its subagent sessions: the order a search scans. */
export function scanOrder<T extends SearchableSession>(sessions: readonly T[]): T[] {
  const out: T[] = [];
  const seen = new Set<string>();
  const visit = (s: T) => {
    if (seen.has(s.file)) return;
    seen.add(s.file);
    out.push(s);
    for (const sub of s.subagents) visit(sub as T);
  };
  for (const s of sessions) visit(s);
  return out;
}

export type SearchState = 'running' | 'done' | 'stopped';

export interface SearchStatus {
  query: string;
  state: SearchState;
  /** Sessions looked at so far, of `total`. */
  scanned: number;
  total: number;
  /** Sessions that match so far. */
  matched: number;
}

const sessions = (n: number) => `${n} ${n === 1 ? 'session' : 'sessions'}`;

/** The view description while a search is active: what it looks for and how far it got. */
export function searchStatusText(s: SearchStatus): string {
  const q = `“${s.query}”`;
  switch (s.state) {
    case 'running':
      return `${q} · searching ${s.scanned}/${s.total}…${s.matched > 0 ? ` ${s.matched} found` : ''}`;
    case 'done':
      return s.matched === 0 ? `${q} · no matches` : `${q} · ${s.matched} matching ${s.matched === 1 ? 'session' : 'sessions'}`;
    case 'stopped':
      return `${q} · stopped after ${s.scanned} of ${sessions(s.total)}: ${s.matched} found`;
  }
}

/** The one row a search shows when no session matches (yet). */
export function searchEmptyText(s: SearchStatus): string {
  switch (s.state) {
    case 'running':
      return `Searching ${s.scanned} of ${sessions(s.total)}…`;
    case 'done':
      return `No session matches “${s.query}”`;
    case 'stopped':
      return `Search stopped after ${s.scanned} of ${sessions(s.total)}: no match so far`;
  }
}
