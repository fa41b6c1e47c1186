// The search query language, shared by the Sessions view, the CLI and the index:
//   words            AND-ed; each matches that word (case and accents aside)
//   word*            words starting with it ("pars*" finds "parser")
//   "exact phrase"   the words in this order, next to each other
//   -word, -"phrase" entries holding it are left out
//   role:user        the entry's message role (or entry type: role:compaction); several OR-ed
//   tool:bash        a tool call or result of that tool; several OR-ed
//   project:<name>   sessions whose cwd or project folder contains <name>
//   agent:codex      sessions the agent wrote: xcsh (pi and oh-my-pi too), dsh, claude, codex; several OR-ed
//   after:2026-06-01, before:2026-06-30   entry time (a day is taken in UTC; before: excludes it)
// Words are split as the index's tokenizer (FTS5 unicode61, diacritics removed) splits text:
// runs of letters and digits, so `parse_jsonl` is the two words "parse" and "jsonl".
import type { SessionFormat } from '../formats/detect';
import { AGENT_TOKEN, filterToken, ROLE_TOKEN, TOOL_TOKEN } from './searchText';
import { foldWord, NON_ASCII, TOKEN } from '../../protocol/wordMatch';

// (Shared with the webview, which marks a jump's words with them: src/protocol/wordMatch.ts.)
export { foldWord, matchRanges, wordSpans } from '../../protocol/wordMatch';

/** What `agent:` accepts, and the format each names (pi and oh-my-pi write xcsh's format). */
const AGENT_NAMES: Readonly<Record<string, SessionFormat>> = { xcsh: 'xcsh', pi: 'xcsh', omp: 'xcsh', dsh: 'dsh', deepseek: 'dsh', claude: 'claude', 'claude-code': 'claude', codex: 'codex' };

export interface SearchQuery {
  /** Whole words, folded. */
  words: string[];
  /** Word prefixes (`pars*`), folded. */
  prefixes: string[];
  /** Phrases: each a sequence of folded words. */
  phrases: string[][];
  /** Excluded words or phrases (folded word sequences). */
  excludes: string[][];
  roles: string[];
  tools: string[];
  projects: string[];
  /** `agent:` filters, as formats (no duplicates). */
  agents: SessionFormat[];
  /** Epoch ms bounds: entries at or after `after`, before `before`. */
  after: number | null;
  before: number | null;
  /** What could not be read (an invalid date), in English for the caller to show. */
  problems: string[];
}

const NON_ASCII_WORD_CHAR = /(?![\x00-\x7f])[\p{L}\p{N}\p{M}\p{Co}]/u;

/** The folded words of a text, as the index's tokenizer sees them. */
export function textWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const f = foldWord(m[0]);
    if (f !== '') out.push(f);
  }
  return out;
}

function parseDay(value: string): number | null {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(value);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, m[3] ? Number(m[3]) : 1);
  return Number.isFinite(ms) ? ms : null;
}

/** Splits a query into its parts: quoted phrases stay together, `-` and `key:` prefixes apply to the next part. */
function rawParts(query: string): { text: string; quoted: boolean; negated: boolean }[] {
  const out: { text: string; quoted: boolean; negated: boolean }[] = [];
  const re = /(-?)"([^"]*)"?|(\S+)/g;
  for (const m of query.matchAll(re)) {
    if (m[2] !== undefined) out.push({ text: m[2], quoted: true, negated: m[1] === '-' });
    else {
      const t = m[3]!;
      if (t.startsWith('-') && t.length > 1) out.push({ text: t.slice(1), quoted: false, negated: true });
      else out.push({ text: t, quoted: false, negated: false });
    }
  }
  return out;
}

export function parseSearchQuery(query: string): SearchQuery {
  const q: SearchQuery = { words: [], prefixes: [], phrases: [], excludes: [], roles: [], tools: [], projects: [], agents: [], after: null, before: null, problems: [] };
  for (const part of rawParts(query)) {
    if (!part.quoted && !part.negated) {
      const kv = /^(role|tool|project|agent|after|before):(.+)$/i.exec(part.text);
      if (kv) {
        const key = kv[1]!.toLowerCase();
        const value = kv[2]!;
        if (key === 'role') q.roles.push(value.toLowerCase());
        else if (key === 'tool') q.tools.push(value.toLowerCase());
        else if (key === 'project') q.projects.push(value.toLowerCase());
        else if (key === 'agent') {
          const agent = AGENT_NAMES[value.toLowerCase()];
          if (agent === undefined) q.problems.push(`agent: expects xcsh, dsh, claude or codex, not "${value}"`);
          else if (!q.agents.includes(agent)) q.agents.push(agent);
        } else {
          const ms = parseDay(value);
          if (ms === null) q.problems.push(`${key}: expects a date like 2026-06-01, not "${value}"`);
          else if (key === 'after') q.after = ms;
          else q.before = ms;
        }
        continue;
      }
    }
    const words = textWords(part.text);
    if (words.length === 0) continue;
    if (part.negated) q.excludes.push(words);
    else if (part.quoted) q.phrases.push(words);
    else {
      // `pars*`: the last word is a prefix (a prefix of a common word merges many postings: opt-in).
      const prefix = !part.quoted && part.text.endsWith('*');
      words.forEach((w, i) => {
        const list = prefix && i === words.length - 1 ? q.prefixes : q.words;
        if (!list.includes(w)) list.push(w);
      });
    }
  }
  return q;
}

/** Whether the query says anything the index can look up (a word, a phrase, a role, a tool or an agent). */
export function hasPositiveTerms(q: SearchQuery): boolean {
  return q.words.length > 0 || q.prefixes.length > 0 || q.phrases.length > 0 || q.roles.length > 0 || q.tools.length > 0 || q.agents.length > 0;
}

const quote = (w: string): string => `"${w.replace(/"/g, '""')}"`;

/**
 * The FTS5 MATCH expression of the positive terms and single-word excludes. Phrases are AND-ed
 * words here (the index keeps no positions); phraseOk() checks their order on the real text.
 * Null when the query has no positive term.
 */
export function ftsMatchExpression(q: SearchQuery): string | null {
  if (!hasPositiveTerms(q)) return null;
  const parts: string[] = [];
  for (const w of q.words) parts.push(quote(w));
  for (const w of q.prefixes) parts.push(`${quote(w)}*`);
  for (const p of q.phrases) for (const w of p) parts.push(quote(w));
  if (q.roles.length > 0) parts.push(`(${q.roles.map((r) => quote(filterToken(ROLE_TOKEN, r))).join(' OR ')})`);
  if (q.tools.length > 0) parts.push(`(${q.tools.map((t) => quote(filterToken(TOOL_TOKEN, t))).join(' OR ')})`);
  if (q.agents.length > 0) parts.push(`(${q.agents.map((a) => quote(filterToken(AGENT_TOKEN, a))).join(' OR ')})`);
  let expr = parts.join(' AND ');
  const single = q.excludes.filter((e) => e.length === 1).map((e) => quote(e[0]!));
  if (single.length > 0) expr = `(${expr}) NOT (${single.join(' OR ')})`;
  return expr;
}

/** Whether the query needs the real text to decide (phrases, multi-word excludes). */
export function needsTextCheck(q: SearchQuery): boolean {
  return q.phrases.some((p) => p.length > 1) || q.excludes.some((e) => e.length > 1);
}

function containsSequence(words: readonly string[], seq: readonly string[]): boolean {
  outer: for (let i = 0; i + seq.length <= words.length; i++) {
    for (let k = 0; k < seq.length; k++) if (words[i + k] !== seq[k]) continue outer;
    return true;
  }
  return false;
}

/**
 * Whether `lower` (a lower-cased ASCII-safe text) holds the words in sequence: from each place the
 * first word occurs as a whole word, the next words are read one by one. Null when the text needs
 * the full split (its lower case changes its length: accents, special cases).
 */
function hasSequenceFast(text: string, lower: string, seq: readonly string[]): boolean | null {
  if (lower.length !== text.length || seq.some((w) => NON_ASCII.test(w))) return null;
  const isWord = (c: string | undefined): boolean => c !== undefined && WORD_CHAR.test(c);
  const first = seq[0]!;
  for (let i = lower.indexOf(first); i !== -1; i = lower.indexOf(first, i + 1)) {
    if (isWord(lower[i - 1]) || isWord(lower[i + first.length])) continue;
    let at = i + first.length;
    let ok = true;
    for (let k = 1; k < seq.length && ok; k++) {
      while (at < lower.length && !isWord(lower[at])) at++;
      const w = seq[k]!;
      ok = lower.startsWith(w, at) && !isWord(lower[at + w.length]);
      at += w.length;
    }
    if (ok) return true;
  }
  // Not there as written; an accented spelling (which the tokenizer folds) still may be. Only a
  // non-ASCII letter, digit or mark can fold: a text whose only non-ASCII is punctuation or
  // symbols (✓, —, emoji: common in tool output) is answered here, without the word split.
  return NON_ASCII_WORD_CHAR.test(text) ? null : false;
}

/** The text check: every phrase occurs in order, no multi-word exclude occurs. */
export function textCheck(text: string, q: SearchQuery): boolean {
  if (!needsTextCheck(q)) return true;
  const lower = text.toLowerCase();
  let words: string[] | null = null;
  const has = (seq: readonly string[]): boolean => hasSequenceFast(text, lower, seq) ?? containsSequence((words ??= textWords(text)), seq);
  for (const p of q.phrases) if (p.length > 1 && !has(p)) return false;
  for (const e of q.excludes) if (e.length > 1 && has(e)) return false;
  return true;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}\p{Co}]/u;

/**
 * Where the first match of the query starts in `text` (-1 when none is found this way): a fast
 * scan of the lower-cased text for the query's words at word starts, so a 500 KB tool output does
 * not have to be split into words for a snippet. Accented text falls back to matchRanges.
 */
export function firstMatchAt(text: string, q: SearchQuery): number {
  const lower = text.toLowerCase();
  if (lower.length !== text.length) return -1;
  const needles: { w: string; whole: boolean }[] = [...q.words.map((w) => ({ w, whole: true })), ...q.prefixes.map((w) => ({ w, whole: false })), ...q.phrases.filter((p) => p.length > 0).map((p) => ({ w: p[0]!, whole: true }))];
  let best = -1;
  for (const { w, whole } of needles) {
    for (let i = lower.indexOf(w); i !== -1 && (best === -1 || i < best); i = lower.indexOf(w, i + 1)) {
      if (i > 0 && WORD_CHAR.test(lower[i - 1]!)) continue;
      if (whole && i + w.length < lower.length && WORD_CHAR.test(lower[i + w.length]!)) continue;
      best = i;
      break;
    }
  }
  return best;
}
