// A generated corpus for the search benchmark (`npm run bench -- --search`): many sessions across
// projects, as a year of daily use leaves them in ~/.xcsh/agent/sessions. Unlike generate.ts (one
// big session over a 70-word vocabulary, which is what the loader's speed depends on), a full-text
// index's size and speed depend on the vocabulary, so the text here is drawn from a
// Zipf-distributed vocabulary plus what tool output really holds: identifiers, paths, numbers,
// hashes, timestamps. Deterministic (seeded), streamed to disk.
//
// Calibrated against the real sessions in the fixtures (vocabularyStats; a unit test keeps it so):
// on the same ~10 MB they hold 23.0k distinct words, 26.1k postings (distinct words per entry)
// and 67k words per MB; this corpus 21.9k, 33.2k and 74k. What made it so: each project's
// identifiers, files and commits are drawn once and then reused (before, every identifier was a
// fresh compound of two words and every commit a fresh hash: 4.2× the distinct words and 2.3×
// the postings of the real sessions, which made the index's build cost what no user's would);
// a text is about a handful of words; thinking, signatures and edit patches (stored, never
// indexed) take their real share of the bytes.
import { closeSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readWholeFile } from '../src/core/search/indexRead';
import { textWords } from '../src/core/search/queryLanguage';
import { rng } from './generate';

const SYLLABLES = 'ka lo mi ten dar vel os ri pan qu est ion ment ab ex con pro re de in ter al ly ing ed er ous ble cor nat sig fil par ser tok lex gra ph net work stor age cach ind dex mer ge sort heap tree nod ode lin ux win mac cli ent serv ver pol ic ty'.split(' ');
const COMMON = 'the a to of and in is it that for on with as this be are was by not or from at an if we you can will have has but all so do which when there one use new file test code run error function value type should add fix make need now then also time'.split(' ');
/** Pseudo-words of prose (Zipf), and the share of a text's words taken from what it is about. */
const VOCABULARY = 20_000;
const TOPIC_SHARE = 0.6;
/** Per project: names in its code, files it has, commits in its log (see usePools). */
const IDENTS_PER_PROJECT = 3000;
const FILES_PER_PROJECT = 300;
const COMMITS_PER_PROJECT = 200;
const TOOLS = ['bash', 'read', 'edit', 'write', 'grep', 'find', 'ls', 'web_fetch', 'python', 'task'];

export interface CorpusOptions {
  dir: string;
  sessions: number;
  /** Target total bytes (approximate: session sizes are drawn to add up to about this). */
  bytes: number;
  projects?: number;
  seed?: number;
}

export interface CorpusFile {
  path: string;
  bytes: number;
  entries: number;
  project: string;
}

export interface Corpus {
  dir: string;
  files: CorpusFile[];
  bytes: number;
  entries: number;
  /** Words that occur: rare ones (a few sessions), mid-frequency and common ones, for queries. */
  words: { rare: string[]; mid: string[]; common: string[] };
}

/** A vocabulary of `n` pseudo-words, most frequent first. */
function vocabulary(n: number, rand: () => number): string[] {
  const out = new Set<string>(COMMON);
  while (out.size < n) {
    const k = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let i = 0; i < k; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    out.add(w);
  }
  return [...out];
}

/** Zipf(s≈1) sampler over ranks [0, n): inverse CDF on a precomputed table. */
function zipf(n: number, rand: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1.5);
  return () => {
    const x = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export function generateSearchCorpus(opts: CorpusOptions): Corpus {
  const rand = rng(opts.seed ?? 7);
  const vocab = vocabulary(VOCABULARY, rand);
  const pick = zipf(vocab.length, rand);
  const word = (): string => vocab[pick()]!;
  const randomChars = (alphabet: string, n: number): string => {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
    return s;
  };
  const hex = (n: number): string => randomChars('0123456789abcdef', n);
  const base64 = (n: number): string => randomChars('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', n);
  const compound = (): string => {
    const a = word();
    const b = word();
    return rand() < 0.5 ? `${a}${b[0]!.toUpperCase()}${b.slice(1)}` : `${a}_${b}`;
  };
  // What a project's sessions keep coming back to: its identifiers, files and commits. Drawn once
  // per project, then reused (Zipf): real sessions read the same files and grep the same names
  // over and over, so their vocabulary grows far slower than their bytes (measured on the real
  // fixtures, see README "Search": ~2.4k distinct words per MB at 10 MB; a fresh compound per
  // identifier gave 10k).
  interface Pools { idents: string[]; files: string[]; commits: string[] }
  const pools = new Map<string, Pools>();
  const identPick = zipf(IDENTS_PER_PROJECT, rand);
  const filePick = zipf(FILES_PER_PROJECT, rand);
  const commitPick = zipf(COMMITS_PER_PROJECT, rand);
  let current: Pools = { idents: [], files: [], commits: [] };
  const usePools = (project: string): void => {
    let p = pools.get(project);
    if (!p) {
      const idents = Array.from({ length: IDENTS_PER_PROJECT }, compound);
      const files = Array.from({ length: FILES_PER_PROJECT }, () => `/home/dev/${project}/src/${word()}/${idents[Math.floor(rand() * idents.length)]}.${['ts', 'py', 'rs', 'go', 'md'][Math.floor(rand() * 5)]}`);
      p = { idents, files, commits: Array.from({ length: COMMITS_PER_PROJECT }, () => hex(40)) };
      pools.set(project, p);
    }
    current = p;
  };
  const ident = (): string => current.idents[identPick()]!;
  const pathOf = (): string => current.files[filePick()]!;
  /** Text about something: over half of its words (TOPIC_SHARE) come back from a handful it is about. */
  const topicOf = (): string[] => Array.from({ length: 4 + Math.floor(rand() * 8) }, () => (rand() < 0.3 ? ident() : word()));
  const prose = (min: number, max: number, topic = topicOf()): string => {
    const len = min + Math.floor(rand() * (max - min));
    const parts: string[] = [];
    let n = 0;
    while (n < len) {
      const r = rand();
      const w = r < 0.03 ? `\`${ident()}\`` : r < 0.035 ? String(Math.floor(rand() * 5000)) : r < TOPIC_SHARE ? topic[Math.floor(rand() * topic.length)]! : word();
      parts.push(w);
      n += w.length + 1;
      if (rand() < 0.07) parts.push('.\n');
    }
    return parts.join(' ');
  };
  /** Lines of code over a few names of the project (a function uses the same handful throughout). */
  const code = (lines: number, topic = topicOf()): string => {
    const local = Array.from({ length: 6 + Math.floor(rand() * 14) }, ident);
    const name = (): string => local[Math.floor(Math.pow(rand(), 1.5) * local.length)]!;
    const out: string[] = [];
    for (let i = 0; i < lines; i++) {
      const r = rand();
      if (r < 0.3) out.push(`  const ${name()} = ${name()}(${name()}, ${Math.floor(rand() * 100)});`);
      else if (r < 0.5) out.push(`  // ${prose(20, 70, topic)}`);
      else if (r < 0.65) out.push(`export function ${name()}(${name()}: ${word()}): ${word()} {`);
      else if (r < 0.8) out.push(`  if (${name()}.${name()} === '${word()}') return ${name()};`);
      else out.push(`  ${name()}.${name()}(${name()});`);
    }
    return out.join('\n');
  };
  /** A command's output: its lines are about one thing. */
  const logLines = (lines: number): string => {
    const topic = topicOf();
    const out: string[] = [];
    for (let i = 0; i < lines; i++) {
      const r = rand();
      if (r < 0.25) out.push(`${pathOf()}:${1 + Math.floor(rand() * 900)}:${1 + Math.floor(rand() * 80)}: ${prose(20, 60, topic)}`);
      else if (r < 0.4) out.push(`commit ${current.commits[commitPick()]}\nAuthor: dev <dev@example.com>\n    ${prose(20, 50, topic)}`);
      else if (r < 0.55) out.push(`  ✓ ${prose(15, 40, topic)} (${Math.floor(rand() * 900)} ms)`);
      else if (r < 0.65) out.push(`Error: ${prose(15, 50, topic)}\n    at ${ident()} (${pathOf()}:${Math.floor(rand() * 500)})`);
      else out.push(code(1, topic));
    }
    return out.join('\n');
  };

  const projects = Array.from({ length: opts.projects ?? 40 }, (_, i) => `${word()}-${word()}${i}`);
  // Session sizes: log-normal, scaled so they add up to about opts.bytes.
  const weights = Array.from({ length: opts.sessions }, () => Math.exp(1.2 * Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand())));
  const wsum = weights.reduce((a, b) => a + b, 0);
  const yearStart = Date.parse('2025-07-01T00:00:00.000Z');
  const files: CorpusFile[] = [];
  let total = 0;
  let totalEntries = 0;
  const rare: string[] = [];
  for (let s = 0; s < opts.sessions; s++) {
    const project = projects[Math.floor(Math.pow(rand(), 1.6) * projects.length)]!;
    const cwd = `/home/dev/${project}`;
    usePools(project);
    const projDir = join(opts.dir, `--home-dev-${project}--`);
    mkdirSync(projDir, { recursive: true });
    const start = yearStart + Math.floor((s / opts.sessions) * 365 * 86_400_000);
    const id = hex(16);
    const file = join(projDir, `${new Date(start).toISOString().replace(/[:.]/g, '-')}_${id}.jsonl`);
    const target = Math.max(4000, (weights[s]! / wsum) * opts.bytes);
    // A word that only this session holds, for "rare" queries.
    const marker = `zq${hex(6)}`;
    if (rare.length < 50) rare.push(marker);
    const fd = openSync(file, 'w');
    let bytes = 0;
    let buf: string[] = [];
    let bufLen = 0;
    const out = (obj: unknown): void => {
      const line = JSON.stringify(obj) + '\n';
      buf.push(line);
      bufLen += line.length;
      if (bufLen > 1 << 20) flush();
    };
    const flush = (): void => {
      const b = Buffer.from(buf.join(''), 'utf8');
      writeSync(fd, b);
      bytes += b.length;
      buf = [];
      bufLen = 0;
    };
    let n = 0;
    let t = start;
    const stamp = (): string => new Date((t += 1000 + Math.floor(rand() * 20_000))).toISOString();
    out({ type: 'session', version: 3, id, timestamp: new Date(start).toISOString(), cwd, ...(rand() < 0.3 ? { title: prose(10, 40).replace(/\n/g, ' ') } : {}) });
    let parent: string | null = null;
    const emit = (e: Record<string, unknown>): string => {
      const eid = hex(8);
      out({ type: e.type, id: eid, parentId: parent, timestamp: stamp(), ...e });
      parent = eid;
      n++;
      return eid;
    };
    emit({ type: 'model_change', model: 'anthropic/claude-sonnet-4-5' });
    let first = true;
    while (bytes + bufLen < target) {
      const prompt = prose(20, 300) + (first ? ` ${marker}` : '');
      first = false;
      emit({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: prompt }], timestamp: t } });
      const calls = Math.floor(rand() * 5);
      for (let k = 0; k < calls; k++) {
        const tool = TOOLS[Math.floor(Math.pow(rand(), 2) * TOOLS.length)]!;
        const callId = `toolu_${hex(24)}`;
        const args =
          tool === 'bash' ? { command: `${['rg -n', 'npm test --', 'git log --oneline', 'ls -la', 'cargo build'][Math.floor(rand() * 5)]} ${word()}` }
          : tool === 'edit' ? { path: pathOf(), oldText: code(2), newText: code(3) }
          : tool === 'grep' ? { pattern: ident(), path: `/home/dev/${project}/src` }
          : { path: pathOf() };
        const content: unknown[] = [];
        // Thinking is stored, never indexed (real sessions: ~8% of their bytes, plus a signature).
        if (rand() < 0.5) content.push({ type: 'thinking', thinking: prose(200, 1500), thinkingSignature: base64(300 + Math.floor(rand() * 900)) });
        if (rand() < 0.6) content.push({ type: 'text', text: prose(20, 200) });
        content.push({ type: 'toolCall', id: callId, name: tool, arguments: args });
        emit({
          type: 'message',
          message: {
            role: 'assistant', content, provider: 'anthropic', model: 'claude-sonnet-4-5', stopReason: 'toolUse', timestamp: t,
            usage: { input: Math.floor(rand() * 9000), output: Math.floor(rand() * 900), cacheRead: Math.floor(rand() * 90000), cacheWrite: 0, cost: { input: 0.01, output: 0.002, cacheRead: 0.003, cacheWrite: 0, total: 0.015 } },
          },
        });
        const r = rand();
        if (tool === 'edit') {
          // As the agent's edit tool answers: one line of text, and the patch in details (stored, not
          // indexed; real sessions: ~17% of their bytes are such details).
          const a = args as { path: string; oldText: string; newText: string };
          const around = code(4 + Math.floor(rand() * 12));
          const diff = `--- ${a.path}\n+++ ${a.path}\n@@ -${1 + Math.floor(rand() * 400)},9 @@\n${around.split('\n').map((l) => ` ${l}`).join('\n')}\n${a.oldText.split('\n').map((l) => `-${l}`).join('\n')}\n${a.newText.split('\n').map((l) => `+${l}`).join('\n')}`;
          emit({ type: 'message', message: { role: 'toolResult', toolCallId: callId, toolName: tool, content: [{ type: 'text', text: `Successfully replaced text in ${a.path}.` }], details: { diff }, isError: rand() < 0.05, timestamp: t } });
          continue;
        }
        const result = tool === 'read' ? code(10 + Math.floor(rand() * (r < 0.9 ? 60 : 400))) : logLines(3 + Math.floor(rand() * (r < 0.9 ? 25 : 200)));
        emit({ type: 'message', message: { role: 'toolResult', toolCallId: callId, toolName: tool, content: [{ type: 'text', text: result }], isError: rand() < 0.05, timestamp: t } });
      }
      emit({
        type: 'message',
        message: {
          role: 'assistant', content: [{ type: 'text', text: prose(80, 1500) }], provider: 'anthropic', model: 'claude-sonnet-4-5', stopReason: 'stop', timestamp: t,
          usage: { input: 1500, output: 300, cacheRead: 9000, cacheWrite: 100, cost: { input: 0.0045, output: 0.0045, cacheRead: 0.0027, cacheWrite: 0.0004, total: 0.0121 } },
        },
      });
      if (rand() < 0.02) emit({ type: 'label', targetId: parent, label: `checkpoint ${word()}` });
      if (rand() < 0.005) emit({ type: 'compaction', summary: prose(800, 3000), firstKeptEntryId: parent, tokensBefore: 150000 });
    }
    flush();
    closeSync(fd);
    files.push({ path: file, bytes, entries: n, project });
    total += bytes;
    totalEntries += n;
  }
  return { dir: opts.dir, files, bytes: total, entries: totalEntries, words: { rare, mid: vocab.slice(2000, 2050), common: vocab.slice(0, 20) } };
}

export interface VocabularyStats {
  mb: number;
  /** Words per MB of session file, as the index splits them. */
  wordsPerMb: number;
  /** Distinct words per entry, summed, per MB: what FTS5 writes (one posting per word and row). */
  postingsPerMb: number;
  /** Distinct words over all the files. */
  distinct: number;
}

/** What a full-text index of these session files holds, read as the index reads them. */
export async function vocabularyStats(files: readonly string[]): Promise<VocabularyStats> {
  let bytes = 0;
  let words = 0;
  let postings = 0;
  const distinct = new Set<string>();
  for (const f of files) {
    bytes += statSync(f).size;
    for (const r of (await readWholeFile(f, 2 ** 24)).rows) {
      const w = textWords(`${r.body} ${r.meta}`);
      words += w.length;
      const d = new Set(w);
      postings += d.size;
      for (const x of d) distinct.add(x);
    }
  }
  const mb = bytes / 1e6;
  return { mb, wordsPerMb: words / mb, postingsPerMb: postings / mb, distinct: distinct.size };
}
