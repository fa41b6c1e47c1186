// What a JSON reader cannot give back exactly, found on the file's bytes (issue 15: `doctor`
// reports invalid UTF-8 and unsafe integers). Every JSON.parse-based reader — ours, the agent's,
// an editor — sees U+FFFD for bytes that are not UTF-8 and rounds integers beyond ±(2^53−1), so
// anything that re-serialises such a record changes it; our rewrites edit bytes and keep them.
// A separate pass for `doctor` only: the loader's hot path never pays for it.
import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import type { Diagnostic } from '../../diagnostics';
import { recordLimits } from './lineParser';

const CHUNK = 1 << 18;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** Integers reported per line (a line with thousands of them says enough with a few). */
const MAX_PER_LINE = 3;

/** Offset of the first byte of `b[s, e)` that does not start a valid UTF-8 sequence, or -1. */
export function firstInvalidUtf8(b: Uint8Array, s = 0, e = b.length): number {
  let i = s;
  while (i < e) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0; // overlong
      if (c === 0xed) hi = 0x9f; // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90; // overlong
      if (c === 0xf4) hi = 0x8f; // above U+10FFFF
    } else return i;
    if (i + n >= e) return i; // cut short
    const b1 = b[i + 1]!;
    if (b1 < lo || b1 > hi) return i;
    for (let k = 2; k <= n; k++) {
      const x = b[i + k]!;
      if (x < 0x80 || x > 0xbf) return i;
    }
    i += n + 1;
  }
  return -1;
}

/** Integer literals (outside strings) beyond ±(2^53−1) in `b[s, e)`: [offset, text] pairs. */
export function unsafeIntegers(b: Uint8Array, s = 0, e = b.length, max = MAX_PER_LINE): [number, string][] {
  const out: [number, string][] = [];
  let i = s;
  while (i < e && out.length < max) {
    const c = b[i]!;
    if (c === 0x22) {
      // skip the string, escapes included
      i++;
      while (i < e && b[i] !== 0x22) i += b[i] === 0x5c ? 2 : 1;
      i++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      let integer = true;
      i++;
      while (i < e) {
        const d = b[i]!;
        if (d >= 0x30 && d <= 0x39) i++;
        else if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) {
          integer = false;
          i++;
        } else break;
      }
      // 2^53 has 16 digits: shorter literals are always safe
      if (integer && i - start >= 16) {
        const text = Buffer.from(b.buffer, b.byteOffset + start, i - start).toString('latin1');
        try {
          const v = BigInt(text);
          if (v > MAX_SAFE || -v > MAX_SAFE) out.push([start, text]);
        } catch {
          // not a number after all (a `-` alone): ignore
        }
      }
      continue;
    }
    i++;
  }
  return out;
}

/** A cheap test before the structural scan: some run of 16 digits exists in the line. */
function hasLongDigitRun(b: Uint8Array, s: number, e: number): boolean {
  let run = 0;
  for (let i = s; i < e; i++) {
    const c = b[i]!;
    if (c >= 0x30 && c <= 0x39) {
      if (++run >= 16) return true;
    } else run = 0;
  }
  return false;
}

function auditLine(b: Buffer, s: number, e: number, line: number, abs: number, out: Diagnostic[]): void {
  // A NUL byte: no record (the reader reports the line); what a carried one is, a short one is too.
  if (b.subarray(s, e).indexOf(0) !== -1) return;
  if (!isUtf8(b.subarray(s, e))) {
    const at = firstInvalidUtf8(b, s, e);
    out.push({
      line,
      kind: 'invalid-utf8',
      message: `bytes that are not UTF-8 at column ${at - s + 1} (file offset ${abs + at - s}); JSON readers see U+FFFD there — rewrites keep the bytes, re-serialising would not`,
    });
  }
  if (hasLongDigitRun(b, s, e)) {
    const found = unsafeIntegers(b, s, e);
    if (found.length > 0) {
      const list = found.map(([, t]) => `${t} (read as ${Number(t)})`).join(', ');
      out.push({
        line,
        kind: 'unsafe-integer',
        message: `integer${found.length > 1 ? 's' : ''} beyond ±(2^53−1): ${list}${found.length === MAX_PER_LINE ? ', …' : ''}; JSON readers round them — rewrites keep the digits, re-serialising would not`,
      });
    }
  }
}

/** Streams the file and reports invalid UTF-8 and unsafe integers, one diagnostic per kind and line. */
export async function auditSessionBytes(path: string): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  const fh = await open(path, 'r');
  try {
    // The start of a line that continues in the next read, in pieces (joined once, at its end).
    // A line that holds a NUL byte or outgrows the record cap is no record (the reader reports
    // it, lineParser.ts lineVerdict): it is let go, not held (issue 22 §15/§18).
    let pending: Buffer[] = [];
    let pendingLen = 0;
    let skipping = false;
    let pendingAbs = 0;
    let line = 0;
    let abs = 0;
    const cap = recordLimits.maxRecordBytes;
    const chunk = Buffer.allocUnsafe(CHUNK);
    const carry = (piece: Buffer): void => {
      if (skipping) return;
      pendingLen += piece.length;
      if (pendingLen > cap || piece.indexOf(0) !== -1) {
        skipping = true;
        pending = [];
      } else pending.push(Buffer.from(piece));
    };
    for (;;) {
      const { bytesRead } = await fh.read(chunk, 0, CHUNK, abs);
      if (bytesRead === 0) break;
      const buf = chunk.subarray(0, bytesRead);
      let s = 0;
      for (let nl = buf.indexOf(0x0a); nl !== -1; nl = buf.indexOf(0x0a, s)) {
        if (pendingLen > 0) {
          carry(buf.subarray(0, nl));
          if (skipping) line++;
          else {
            const whole = Buffer.concat(pending);
            auditLine(whole, 0, whole.length, ++line, pendingAbs, out);
          }
          pending = [];
          pendingLen = 0;
          skipping = false;
        } else auditLine(buf, s, nl, ++line, abs + s, out);
        s = nl + 1;
      }
      if (s < bytesRead) {
        if (pendingLen === 0) pendingAbs = abs + s;
        carry(buf.subarray(s));
      }
      abs += bytesRead;
    }
    if (pendingLen > 0) {
      if (skipping) line++;
      else {
        const whole = Buffer.concat(pending);
        auditLine(whole, 0, whole.length, ++line, pendingAbs, out);
      }
    }
  } finally {
    await fh.close();
  }
  return out;
}
