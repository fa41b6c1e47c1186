// Writes demo sessions the way xcsh writes them (spec Part A, Part B): a v3 header, then entries
// that each point at the current leaf, with 8-hex ids, ISO timestamps and messages carrying epoch
// ms, tool calls paired with their results, usage and cost on assistant replies. Ids are derived
// from the session id and a counter, so every build of the demo gives the same ids; times are
// laid out from a start time the caller picks (the demo's sessions happened "hours ago").
import { createHash } from 'node:crypto';

const MODEL = { provider: 'anthropic', model: 'claude-sonnet-4-5', api: 'anthropic-messages' };
const PRICE = { input: 3e-6, output: 15e-6, cacheRead: 3e-7, cacheWrite: 3.75e-6 };

export function hexId(seed, length) {
  return createHash('sha256').update(seed).digest('hex').slice(0, length);
}

export class SessionBuilder {
  /**
   * @param {{ id: string, cwd: string, startMs: number, title?: string, parentSession?: string }} opts
   */
  constructor({ id, cwd, startMs, title, parentSession }) {
    this.id = id;
    this.cwd = cwd;
    this.time = startMs;
    this.headerLine = { type: 'session', version: 3, id, timestamp: new Date(startMs).toISOString(), cwd, ...(title ? { title, titleSource: 'user' } : {}), ...(parentSession ? { parentSession } : {}) };
    this.entries = [];
    this.leaf = null;
    this.count = 0;
    this.calls = 0;
    this.model = MODEL;
    // The conversation grows, and so does what the provider reads from its cache.
    this.context = 9_000;
  }

  /** Appends an entry under the leaf (or `parent`), `gap` seconds after the previous one; returns its id. */
  add(type, fields, { parent = this.leaf, gap = 6 } = {}) {
    this.time += gap * 1000;
    const id = hexId(`${this.id}:${++this.count}`, 8);
    this.entries.push({ type, id, parentId: parent, timestamp: new Date(this.time).toISOString(), ...fields });
    this.leaf = id;
    return id;
  }

  message(message, opts) {
    return this.add('message', { message: { ...message, timestamp: this.time + (opts?.gap ?? 6) * 1000 } }, opts);
  }

  /** Moves the leaf (the next entry forks from `entryId`), as the agent's /tree navigation does. */
  branchAt(entryId) {
    this.leaf = entryId;
    return this;
  }

  user(text, opts) {
    const content = typeof text === 'string' ? [{ type: 'text', text }] : text;
    return this.message({ role: 'user', content }, { gap: 40, ...opts });
  }

  /** An assistant reply: `blocks` are content blocks; usage grows with the conversation. */
  assistant(blocks, { stopReason, output = 220, gap = 12, ...opts } = {}) {
    const input = 1_200 + Math.round(output / 3);
    const cacheRead = this.context;
    const cacheWrite = 600 + output;
    this.context += cacheWrite;
    const cost = { input: input * PRICE.input, output: output * PRICE.output, cacheRead: cacheRead * PRICE.cacheRead, cacheWrite: cacheWrite * PRICE.cacheWrite };
    const usage = { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost: { ...cost, total: cost.input + cost.output + cost.cacheRead + cost.cacheWrite } };
    const calls = blocks.some((b) => b.type === 'toolCall');
    return this.message({ role: 'assistant', ...this.model, content: blocks, usage, stopReason: stopReason ?? (calls ? 'toolUse' : 'stop') }, { gap, ...opts });
  }

  /** The assistant calls a tool (after optional text or thinking) and the tool answers; returns both ids. */
  tool(name, args, result, { text, thinking, isError = false, output = 160, images = [] } = {}) {
    const callId = `toolu_${hexId(`${this.id}:call:${++this.calls}`, 20)}`;
    const blocks = [];
    if (thinking) blocks.push({ type: 'thinking', thinking });
    if (text) blocks.push({ type: 'text', text });
    blocks.push({ type: 'toolCall', id: callId, name, arguments: args });
    const call = this.assistant(blocks, { output });
    const content = [{ type: 'text', text: result }, ...images];
    const answer = this.message({ role: 'toolResult', toolCallId: callId, toolName: name, content, isError }, { gap: name === 'bash' ? 9 : 2 });
    return [call, answer];
  }

  say(text, opts) {
    return this.assistant([{ type: 'text', text }], opts);
  }

  bash(command, output, exitCode = 0) {
    return this.message({ role: 'bashExecution', command, output, exitCode, cancelled: false, truncated: false }, { gap: 20 });
  }

  modelChange(model) {
    const [provider, id] = model.split('/');
    this.model = { ...this.model, provider, model: id };
    return this.add('model_change', { model }, { gap: 1 });
  }

  thinkingLevel(level) {
    return this.add('thinking_level_change', { thinkingLevel: level }, { gap: 1 });
  }

  label(targetId, label) {
    return this.add('label', { targetId, label }, { gap: 3 });
  }

  compaction(summary, shortSummary, firstKeptEntryId, tokensBefore) {
    this.context = 14_000;
    return this.add('compaction', { summary, shortSummary, firstKeptEntryId, tokensBefore }, { gap: 25 });
  }

  branchSummary(fromId, summary) {
    return this.add('branch_summary', { fromId, summary }, { gap: 4 });
  }

  customMessage(customType, content, { display = false, details } = {}) {
    return this.add('custom_message', { customType, content, display, ...(details ? { details } : {}) }, { gap: 2 });
  }

  /** The file's text: the header, then every entry, one JSON object per line. */
  jsonl() {
    return [this.headerLine, ...this.entries].map((x) => JSON.stringify(x)).join('\n') + '\n';
  }

  /** `<timestamp>_<id>.jsonl`, as xcsh names new session files. */
  fileName() {
    return `${this.headerLine.timestamp.replace(/[:.]/g, '-')}_${this.id}.jsonl`;
  }
}
