// Pure logic of the Sessions view's search across sessions (no `vscode`): whether a session
// matches (its entries through the branch tree's own filter and search, src/core/tree/treeView.ts,
// or its title / first prompt), which sessions and projects stay visible, and the words the
// view shows for a search in progress. The entry matching is exactly the branch tree's, so the
// count a session row shows is the number of entries its expanded tree shows.
import { english, type Translate } from '../l10n';
import { matchesSearch } from '../tree/treeView';

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
 * The tokens a session's branch tree applies during a search: the search's own, except for a
 * session that matched only by its title, whose whole (filtered) tree is shown instead of an
 * empty one.
 */
export function branchTokens(hit: SessionSearchHit | undefined, tokens: readonly string[]): readonly string[] {
  return hit && hit.entryMatches === 0 && hit.titleMatch ? [] : tokens;
}

/** "1 match", "12 matches", "title matches"; empty for no match. */
export function matchSummary(hit: SessionSearchHit | undefined, l10nT: Translate = english): string {
  if (!hit) return '';
  if (hit.entryMatches > 0) return hit.entryMatches === 1 ? l10nT('{0} match', hit.entryMatches) : l10nT('{0} matches', hit.entryMatches);
  return hit.titleMatch ? l10nT('title matches') : '';
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


/** The view description while a search is active: what it looks for and how far it got. */
export function searchStatusText(s: SearchStatus, l10nT: Translate = english): string {
  switch (s.state) {
    case 'running':
      return s.matched > 0
        ? l10nT('“{0}” · searching {1}/{2}… {3} found', s.query, s.scanned, s.total, s.matched)
        : l10nT('“{0}” · searching {1}/{2}…', s.query, s.scanned, s.total);
    case 'done':
      if (s.matched === 0) return l10nT('“{0}” · no matches', s.query);
      return s.matched === 1 ? l10nT('“{0}” · {1} matching session', s.query, s.matched) : l10nT('“{0}” · {1} matching sessions', s.query, s.matched);
    case 'stopped':
      return s.total === 1
        ? l10nT('“{0}” · stopped after {1} of {2} session: {3} found', s.query, s.scanned, s.total, s.matched)
        : l10nT('“{0}” · stopped after {1} of {2} sessions: {3} found', s.query, s.scanned, s.total, s.matched);
  }
}

/** The one row a search shows when no session matches (yet). */
export function searchEmptyText(s: SearchStatus, l10nT: Translate = english): string {
  switch (s.state) {
    case 'running':
      return s.total === 1 ? l10nT('Searching {0} of {1} session…', s.scanned, s.total) : l10nT('Searching {0} of {1} sessions…', s.scanned, s.total);
    case 'done':
      return l10nT('No session matches “{0}”', s.query);
    case 'stopped':
      return s.total === 1
        ? l10nT('Search stopped after {0} of {1} session: no match so far', s.scanned, s.total)
        : l10nT('Search stopped after {0} of {1} sessions: no match so far', s.scanned, s.total);
  }
}
