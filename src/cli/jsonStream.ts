// One JSON object written a piece at a time: a session's entries or a context's messages can
// be far bigger than the memory a command should hold, so an array member is produced in windows
// and written as they come. The text is exactly JSON.stringify(object, null, pretty ? 2 : undefined).
import { jsonForTerminal } from './terminalText';
import type { Io } from './util';
import { isStreamed, type Member } from '../core/engine/documents';

/** JSON.stringify's text of a value nested `depth` levels in a pretty document. */
function nested(value: unknown, pretty: boolean, depth: number): string {
  const text = JSON.stringify(value, null, pretty ? 2 : undefined);
  return pretty ? text.replaceAll('\n', '\n' + '  '.repeat(depth)) : text;
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
    if (!isStreamed(value)) {
      head += nested(value, pretty, 1);
      continue;
    }
    out(head + '[');
    head = '';
    let first = true;
    await value.stream((items) => {
      let chunk = '';
      for (const item of items) {
        chunk += (first ? '' : ',') + (pretty ? '\n    ' : '') + nested(item, pretty, 2);
        first = false;
      }
      if (chunk) out(chunk);
    });
    head += (pretty && !first ? '\n  ' : '') + ']';
  }
  out(head + (pretty ? '\n}' : '}') + '\n');
}
