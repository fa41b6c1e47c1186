// Session titles (spec Part B §12, Part C §8): sanitised wherever a title is set — library, CLI,
// extension — and a title our user sets is recorded as `titleSource: "user"`.
import type { SessionHeader } from './schemas';

/** C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F). ESC is C0, so ANSI sequences break up. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

export class InvalidTitleError extends Error {
  constructor(readonly raw: string) {
    super('the title is empty after removing control characters and surrounding spaces');
    this.name = 'InvalidTitleError';
  }
}

/**
 * Control characters become spaces, runs of spaces collapse to one, the result is trimmed.
 * Returns null when nothing is left (an empty title is refused, not stored).
 */
export function sanitizeTitle(raw: string): string | null {
  const out = raw.replace(CONTROL, ' ').replace(/ {2,}/g, ' ').trim();
  return out.length > 0 ? out : null;
}

/** Like sanitizeTitle, but throws InvalidTitleError for an empty result. */
export function requireTitle(raw: string): string {
  const t = sanitizeTitle(raw);
  if (t === null) throw new InvalidTitleError(raw);
  return t;
}

export type TitleSource = 'auto' | 'user';

/**
 * The header after setting a title. `"user"` wins permanently over `"auto"`: an automatic title
 * never replaces a title the user chose (returns null: nothing to change).
 */
export function applyTitle<H extends SessionHeader>(header: H, raw: string, source: TitleSource = 'user'): H | null {
  const title = requireTitle(raw);
  if (source === 'auto' && header.titleSource === 'user') return null;
  return { ...header, title, titleSource: source === 'user' || header.titleSource === 'user' ? 'user' : 'auto' };
}
