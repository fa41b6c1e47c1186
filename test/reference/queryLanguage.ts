// The reference (test-only, issue 23): a parsed search query written back in the query language,
// so a test can say what parseQuery understood in one string.
import type { SearchQuery } from '../../src/core/search/queryLanguage';

/** The query as the query language writes it. */
export function describeQuery(q: SearchQuery): string {
  const parts = [...q.words, ...q.prefixes.map((p) => `${p}*`), ...q.phrases.map((p) => `"${p.join(' ')}"`), ...q.excludes.map((e) => `-${e.length > 1 ? `"${e.join(' ')}"` : e[0]}`)];
  for (const r of q.roles) parts.push(`role:${r}`);
  for (const t of q.tools) parts.push(`tool:${t}`);
  for (const p of q.projects) parts.push(`project:${p}`);
  for (const a of q.agents) parts.push(`agent:${a}`);
  if (q.after !== null) parts.push(`after:${new Date(q.after).toISOString().slice(0, 10)}`);
  if (q.before !== null) parts.push(`before:${new Date(q.before).toISOString().slice(0, 10)}`);
  return parts.join(' ');
}
