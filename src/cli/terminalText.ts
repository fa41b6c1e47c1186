// Text that reaches a terminal. Titles, cwds, ids, labels, previews, diagnostic messages and file
// paths all come from session files or the file system, so any of them can carry an escape
// sequence (set the window title, clear the screen, recolour) or a line break that forges a row.
// Human-readable output shows such characters as visible escapes instead; JSON output stays exact.
//
// The characters made visible:
// - C0 controls U+0000–U+001F (ESC, BEL, CR, LF, TAB…) and DEL U+007F;
// - C1 controls U+0080–U+009F (CSI U+009B and OSC U+009D start sequences in 8-bit terminals; NEL
//   U+0085 breaks lines);
// - the line and paragraph separators U+2028/U+2029 (line breaks to some terminals and editors);
// - the bidi embeddings/overrides U+202A–U+202E and isolates U+2066–U+2069, which reorder what
//   follows on the line ("Trojan Source"), so a row could show another row's text.
// The invisible bidi marks (LRM U+200E, RLM U+200F, ALM U+061C) are kept: right-to-left text uses
// them legitimately and they cannot reorder a whole row.
// A backslash itself is not escaped, so Windows paths stay readable; the output is for people, and
// `--json` is the exact form.

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_BUT_LF_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// What JSON.stringify leaves raw among the above (it escapes U+0000–U+001F itself).
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function visible(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One piece of untrusted text for a terminal: every character above shown as `\x1b`, `\n`, `\u202e`… */
export function escapeForTerminal(text: string): string {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(text) ? text.replace(UNSAFE, visible) : text;
}

/**
 * A multi-line message whose line breaks are its own (a usage error and its usage line): the same
 * escapes except for `\n`. Untrusted pieces inside it must have gone through escapeForTerminal.
 */
export function escapeLinesForTerminal(text: string): string {
  UNSAFE_BUT_LF.lastIndex = 0;
  return UNSAFE_BUT_LF.test(text) ? text.replace(UNSAFE_BUT_LF, visible) : text;
}

/**
 * JSON text with the characters JSON.stringify leaves raw written as `\uXXXX` escapes. They can
 * only occur inside strings, where the escape means the same character: JSON.parse gives back the
 * exact value, and a terminal showing the JSON sees no C1 control or bidi override.
 */
export function jsonForTerminal(json: string): string {
  RAW_IN_JSON.lastIndex = 0;
  return RAW_IN_JSON.test(json) ? json.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : json;
}

/**
 * A whole document for a terminal (`export --format md` to stdout): its own line breaks and tabs
 * kept, every other character above escaped (CR too: it would let a line overwrite the one shown).
 */
export function escapeDocumentForTerminal(text: string): string {
  UNSAFE_BUT_LF_TAB.lastIndex = 0;
  return UNSAFE_BUT_LF_TAB.test(text) ? text.replace(UNSAFE_BUT_LF_TAB, visible) : text;
}
