// One JSON object written a piece at a time: a session's entries or a context's messages can
// be far bigger than the memory a command should hold, so an array member is produced in windows
// and written as they come. The text is exactly JSON.stringify(object, null, pretty ? 2 : undefined).
//
// A long array held whole (a Codex context's 8,000 items, ~30 MB of JSON) is written the same way
// as a streamed one, item by item into pieces of about PIECE_CHARS: one string of the whole
// document, its terminal escape pass and its UTF-8 copy were the biggest cost of the command.
import { jsonForTerminal } from './terminalText';
import type { Io } from './util';
import { isStreamed, type Member, type StreamedArray } from '../core/engine/documents';

/** About how many characters of JSON are written at once. */
const PIECE_CHARS = 1 << 20;
/** Arrays held whole from this length on are written in pieces (shorter ones go with the text around them). */
const PIECEWISE_LENGTH = 256;

/** JSON.stringify's text of a value nested `depth` levels in a pretty document. */
function nested(value: unknown, pretty: boolean, depth: number): string {
  const text = JSON.stringify(value, null, pretty ? 2 : undefined);
  return pretty ? text.replaceAll('\n', '\n' + '  '.repeat(depth)) : text;
}

/** An array member written in pieces: a streamed one, or a long array held whole. */
function piecewise(value: unknown): StreamedArray | null {
  if (isStreamed(value)) return value;
  if (Array.isArray(value) && value.length >= PIECEWISE_LENGTH) return { stream: async (emit) => emit(value) };
  return null;
}

export async function writeJsonObject(io: Io, members: readonly Member[], pretty: boolean): Promise<void> {
  const out = (s: string): void => io.out(jsonForTerminal(s));
  // JSON.stringify leaves out members whose value is undefined
  const shown = members.filter(([, v]) => v !== undefined);
  if (shown.length === 0) return out('{}\n');
  const sep = pretty ? ': ' : ':';
  let head = '{';
  for (let k = 0; k < shown.length; k++) {
    const [key, value] = shown[k]!;
    head += (k > 0 ? ',' : '') + (pretty ? '\n  ' : '') + JSON.stringify(key) + sep;
    const array = piecewise(value);
    if (array === null) {
      head += nested(value, pretty, 1);
      continue;
    }
    out(head + '[');
    head = '';
    let first = true;
    // Items go to JSON.stringify a run at a time (one call and one flat string per run, not one
    // per item), runs sized to about PIECE_CHARS from the text the previous run made.
    let run = 64;
    await array.stream((items) => {
      for (let k = 0; k < items.length; ) {
        const part = items.slice(k, k + run);
        k += part.length;
        // nested() of the run as an array, its brackets taken off: the items as the document
        // has them, separated as JSON.stringify separates them (an undefined item is null there
        // too). After the first run a null goes first and its text is taken off up to the comma
        // after it: the piece is a slice of the one string JSON.stringify made, not a copy.
        if (!first) part.unshift(null);
        const text = nested(part, pretty, 1);
        out(text.slice(first ? 1 : pretty ? 10 : 5, pretty ? -4 : -1));
        first = false;
        run = Math.max(1, Math.min(4096, Math.round((run * PIECE_CHARS) / Math.max(1, text.length))));
      }
    });
    head += (pretty && !first ? '\n  ' : '') + ']';
  }
  out(head + (pretty ? '\n}' : '}') + '\n');
}
