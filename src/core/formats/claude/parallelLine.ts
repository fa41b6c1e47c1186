// A.11 "not branches" for the tree view: the lines of one API response and the tool results
// hanging off them form a side branch when a result (or a later block line) was written off the
// line that continues (2.1.38–2.1.39 parent a result to the line holding its call). Such members
// are laid into the line, in the order the 2.1.112 recovery gives them (path.ts), so a viewer
// shows one conversation where the file holds a fork per parallel call. Real forks stay forks.
import { isMessage, type ClaudeRecord } from './records';

/** What the lay-in reads of the tree (tree.ts), the display parents before it. */
export interface ParallelTree {
  readonly n: number;
  readonly records: readonly ClaudeRecord[];
  readonly roots: readonly number[];
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
  readonly linesOfMessage: ReadonlyMap<string, readonly number[]>;
  readonly resultsByParent: ReadonlyMap<number, readonly number[]>;
}

const byTime = (records: readonly ClaudeRecord[]) => (a: number, b: number): number => {
  const ta = records[a]!.time;
  const tb = records[b]!.time;
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return a - b;
};

/**
 * Lays the dead members of each response — those below which no record outside the response
 * hangs — into the line right after its last continuing line: block lines first, then results,
 * each by timestamp. Changes `displayParent`; returns the records moved and how many responses
 * had such a side branch. The children links must be those of `displayParent` before the call.
 */
export function layParallelResultsInLine(t: ParallelTree, displayParent: Int32Array): { moved: number[]; responses: number } {
  const recs = t.records;
  const moved: number[] = [];
  let responses = 0;
  // Entry and exit times of a depth-first walk: "is d below c" in O(1). Laying one response's
  // dead members in line changes no other response's answer (their members are other records,
  // and the continuation keeps every descendant it had), so the times are taken once — and with
  // them how many user/assistant records enter before each tick, so that the messages below a
  // record are counted in O(1) too.
  const tin = new Int32Array(t.n);
  const tout = new Int32Array(t.n);
  const messagesBefore = new Int32Array(2 * t.n + 1);
  let clock = 0;
  const stack: number[] = [];
  for (const r of t.roots) {
    stack.push(r);
    while (stack.length > 0) {
      const i = stack[stack.length - 1]!;
      if (i >= 0) {
        tin[i] = clock;
        messagesBefore[clock + 1] = messagesBefore[clock]! + (isMessage(recs[i]!) ? 1 : 0);
        clock++;
        stack[stack.length - 1] = -1 - i;
        for (let c = t.firstChild[i]!; c !== -1; c = t.nextSibling[c]!) stack.push(c);
      } else {
        tout[-1 - i] = clock;
        messagesBefore[clock + 1] = messagesBefore[clock]!;
        clock++;
        stack.pop();
      }
    }
  }
  const noResults: readonly number[] = [];
  for (const lines of t.linesOfMessage.values()) {
    // the response's lines, then the tool results hanging off each (distinct records: lines are
    // assistant records, results user records, and a record hangs off one line)
    let size = lines.length;
    for (const l of lines) size += (t.resultsByParent.get(l) ?? noResults).length;
    if (size < 2) continue;
    const members: number[] = [...lines];
    for (const l of lines) for (const r of t.resultsByParent.get(l) ?? noResults) members.push(r);
    const isMember = (i: number): boolean => members.includes(i);
    // leads(i): below i (through members and non-message records) there is a message outside
    // the response — that is, i's subtree holds more user/assistant records than members (the
    // nearest outside message below i is reached through members and non-message records only).
    const leads = (i: number): boolean => {
      let inside = 0;
      for (const m of members) if (tin[i]! < tin[m]! && tin[m]! < tout[i]!) inside++;
      return messagesBefore[tout[i]!]! - messagesBefore[tin[i]! + 1]! > inside;
    };
    const dead: number[] = [];
    let lastLive = -1;
    for (const m of members) {
      if (leads(m)) {
        if (recs[m]!.type === 'assistant' && m > lastLive) lastLive = m;
      } else dead.push(m);
    }
    if (dead.length === 0 || lastLive === -1) continue;
    const liveKids: number[] = [];
    for (let c = t.firstChild[lastLive]!; c !== -1; c = t.nextSibling[c]!) {
      const rc = recs[c]!;
      if ((isMessage(rc) && !isMember(c)) || leads(c)) liveKids.push(c);
    }
    if (liveKids.length !== 1) continue; // a real fork at the response's last line: left as written
    const cont = liveKids[0]!;
    // a dead member below the continuation cannot be laid in above it
    const below = (d: number): boolean => tin[cont]! <= tin[d]! && tout[d]! <= tout[cont]!;
    const laid = dead.filter((d) => d !== lastLive && !below(d));
    if (laid.length === 0) continue;
    const order = byTime(recs);
    const blocks = laid.filter((d) => recs[d]!.type === 'assistant').sort(order);
    const results = laid.filter((d) => recs[d]!.type !== 'assistant').sort(order);
    responses++;
    let prev = lastLive;
    for (const d of [...blocks, ...results]) {
      displayParent[d] = prev;
      moved.push(d);
      prev = d;
    }
    displayParent[cont] = prev;
  }
  return { moved, responses };
}
