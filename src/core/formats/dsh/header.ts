// The dsh session header (dsh-format.md §1 "Header"): validated as dsh's `isHeaderLine` does,
// but leniently where real files differ (fixtures carry `createdAt: 0` and template ids; older
// seeds lack `delegationDepth`). Only a wrong `type`, a non-zero `version`, a non-string `id` or
// a bad `createdAt` stop the read: each of those means the rest cannot be trusted as dsh's.
import type { DshDiagnostic, DshHeader } from './types';

/** The only format version dsh writes (`SESSION_FORMAT_VERSION`). */
export const DSH_FORMAT_VERSION = 0;

export type HeaderParse =
  | { ok: true; header: DshHeader; diagnostics: DshDiagnostic[] }
  | { ok: false; diagnostic: DshDiagnostic };

const isNonNegativeSafeInteger = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && !Object.is(v, -0);

/** Validates a parsed first record as a dsh header; `line` is where it was read (1 for a file). */
export function parseDshHeader(record: unknown, line = 1): HeaderParse {
  const fail = (kind: DshDiagnostic['kind'], message: string): HeaderParse => ({ ok: false, diagnostic: { line, kind, message } });
  if (!record || typeof record !== 'object' || Array.isArray(record) || (record as { type?: unknown }).type !== 'session') {
    return fail('no-header', 'the first record is not a dsh session header ({"type":"session",…}); nothing else was read');
  }
  const r = record as Record<string, unknown>;
  // dsh checks the version before anything else (the raw parsed header, §1).
  if (typeof r.version !== 'number') return fail('invalid-header', 'the session header has no numeric version');
  if (r.version !== DSH_FORMAT_VERSION) {
    return fail(
      'unsupported-version',
      r.version > DSH_FORMAT_VERSION
        ? `session format version ${r.version} is newer than this reader (${DSH_FORMAT_VERSION}): written by a newer dsh; upgrade Session Loom to read it`
        : `session format version ${r.version} is older than ${DSH_FORMAT_VERSION}: dsh has no upgrade path for it`,
    );
  }
  if (typeof r.id !== 'string') return fail('invalid-header', 'the session header has no string id');
  if (!isNonNegativeSafeInteger(r.createdAt)) return fail('invalid-header', `the session header's createdAt (${JSON.stringify(r.createdAt)}) is not a non-negative safe integer of epoch ms`);

  const diagnostics: DshDiagnostic[] = [];
  const header = { ...r } as DshHeader;
  if (r.delegationDepth === undefined) {
    header.delegationDepth = 0;
  } else if (!isNonNegativeSafeInteger(r.delegationDepth)) {
    diagnostics.push({ line, kind: 'invalid-header', message: `delegationDepth ${JSON.stringify(r.delegationDepth)} is not a non-negative integer (dsh refuses this header); read as 0` });
    header.delegationDepth = 0;
  }
  if (r.origin !== undefined && r.origin !== 'subagent') {
    diagnostics.push({ line, kind: 'invalid-header', message: `origin ${JSON.stringify(r.origin)} is neither absent nor "subagent" (dsh refuses this header); shown as is` });
  }
  if (r.agentPreset !== undefined && typeof r.agentPreset !== 'string') {
    diagnostics.push({ line, kind: 'invalid-header', message: 'agentPreset is not a string (dsh refuses this header); shown as is' });
  }
  for (const retired of ['sandboxMode', 'approvalPolicy']) {
    if (Object.hasOwn(r, retired)) {
      diagnostics.push({ line, kind: 'invalid-header', message: `the header carries the retired key ${retired} (dsh refuses such a header); read anyway, read-only` });
    }
  }
  return { ok: true, header, diagnostics };
}
