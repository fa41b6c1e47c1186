// The reference (test-only, issue 23): the entry and header schemas (src/core/formats/xcsh/schemas.ts)
// applied as validators. The product reads leniently (unknown and malformed entries are kept and
// shown); the schemas say what a well-formed entry of each type holds.
import { z } from 'zod';
import { EXTRA_ENTRY_TYPES, KNOWN_ENTRY_TYPES } from '../../src/core/formats/xcsh/entryTypes';
import { KnownEntrySchema, SessionHeaderSchema, UnknownEntrySchema, type SessionHeader } from '../../src/core/formats/xcsh/schemas';

/** A type the agent writes that no viewer rule reads (entryTypes.ts): checked against the base fields. */
const ExtraEntrySchema = UnknownEntrySchema.extend({ type: z.enum(EXTRA_ENTRY_TYPES) });

/** Validates one entry against its type's schema (unknown types against the base). */
export function validateEntry(value: unknown): { ok: true } | { ok: false; error: string } {
  const type = (value as { type?: unknown } | null)?.type;
  const schema = (KNOWN_ENTRY_TYPES as readonly unknown[]).includes(type)
    ? KnownEntrySchema
    : (EXTRA_ENTRY_TYPES as readonly unknown[]).includes(type)
      ? ExtraEntrySchema
      : UnknownEntrySchema;
  const r = schema.safeParse(value);
  return r.success ? { ok: true } : { ok: false, error: z.prettifyError(r.error) };
}

/** Part A: a header is valid when `type === "session"` and `id` is a string. */
export function isValidHeader(value: unknown): value is SessionHeader {
  return SessionHeaderSchema.safeParse(value).success;
}
