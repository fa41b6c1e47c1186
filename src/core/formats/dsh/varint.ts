// `source_event_seqs` in dsh's SQLite store (dsh-format.md §3, SQLite backend): a BLOB holding an
// unsigned LEB128 varint for the first seq, then ZigZag varints of the signed deltas. Decoded with
// arithmetic, not 32-bit shifts: seqs are safe integers, not int32.

/** The seqs a `source_event_seqs` BLOB holds; throws on a truncated or oversized varint. */
export function decodeSourceEventSeqs(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let pos = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (pos >= bytes.length) throw new Error('truncated varint in source_event_seqs');
      const b = bytes[pos++]!;
      value += (b & 0x7f) * scale;
      if (!Number.isSafeInteger(value)) throw new Error('varint beyond the safe integer range in source_event_seqs');
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
  };
  let prev = 0;
  while (pos < bytes.length) {
    if (out.length === 0) prev = varint();
    else {
      const z = varint();
      // ZigZag: 0 → 0, 1 → -1, 2 → 1, 3 → -2, …
      prev += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    }
    out.push(prev);
  }
  return out;
}
