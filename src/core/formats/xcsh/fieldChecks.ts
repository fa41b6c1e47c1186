// Wrongly typed fields (Part C §11, issue 22 §30): a number where a thinking level, a role or a
// rule list belongs, an assistant message with half its provider/model or a wrongly typed one, a
// `mode_change` without a mode. The context builders ignore such a field (a level or mode that is not a string changes
// nothing; an assistant without both names no model; rules that are not strings are skipped);
// this says so, once per entry, so `doctor` and the editor never call such a file clean.
//
// Run on every entry as it is read, by the eager loader (takeEntries) and the lazy index alike.
import type { Diagnostic } from '../../diagnostics';

function describe(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return `the ${typeof v} ${String(v)}`;
}

/** What is wrongly typed in an entry (the raw record, `type` a string), or null. */
export function fieldProblems(e: Record<string, unknown>): string[] | null {
  const out: string[] = [];
  switch (e.type) {
    case 'thinking_level_change':
      if (typeof e.thinkingLevel !== 'string') out.push(`"thinkingLevel" is ${describe(e.thinkingLevel)}, not a string: the entry is ignored (the thinking level stays as it was)`);
      break;
    case 'model_change':
      if ('model' in e && e.model !== undefined && typeof e.model !== 'string') out.push(`"model" is ${describe(e.model)}, not a string: the entry names no model`);
      if ('role' in e && e.role !== undefined && typeof e.role !== 'string') out.push(`"role" is ${describe(e.role)}, not a string: read as "default"`);
      break;
    case 'ttsr_injection': {
      const r = e.injectedRules;
      if (!Array.isArray(r)) out.push(`"injectedRules" is ${describe(r)}, not a list of strings: no rule is taken from it`);
      else {
        const bad = r.filter((x) => typeof x !== 'string').length;
        if (bad > 0) out.push(`${bad} of its ${r.length} "injectedRules" ${bad === 1 ? 'is' : 'are'} not a string: skipped`);
      }
      break;
    }
    case 'mode_change':
      if (typeof e.mode !== 'string') out.push(`"mode" is ${describe(e.mode)}, not a string: the entry is ignored (the mode stays as it was)`);
      break;
    case 'message': {
      const m = e.message;
      if (m === undefined) break;
      if (m === null || typeof m !== 'object' || Array.isArray(m)) {
        out.push(`"message" is ${describe(m)}, not an object: it sends nothing`);
        break;
      }
      const msg = m as Record<string, unknown>;
      if (msg.role !== undefined && typeof msg.role !== 'string') out.push(`the message "role" is ${describe(msg.role)}, not a string`);
      else if (msg.role === 'assistant' && (msg.provider !== undefined || msg.model !== undefined) && (typeof msg.provider !== 'string' || typeof msg.model !== 'string')) {
        // (Neither named at all is left alone: hand-written and test sessions omit both, and
        // such a message plainly names no model; half a name, or a number, is damage.)
        out.push(`an assistant message whose "provider" is ${describe(msg.provider)} and "model" ${describe(msg.model)}: it names no model`);
      }
      break;
    }
    default:
      break;
  }
  return out.length > 0 ? out : null;
}

/** The `invalid-field` diagnostic of an entry read on `line`, or null when its fields are fine. */
export function fieldDiagnostic(e: Record<string, unknown>, line: number): Diagnostic | null {
  const problems = fieldProblems(e);
  if (problems === null) return null;
  return {
    line,
    kind: 'invalid-field',
    message: `${String(e.type)} entry: ${problems.join('; ')}`,
    ...(typeof e.id === 'string' ? { entryId: e.id } : {}),
  };
}
