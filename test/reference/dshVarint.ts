// The reference (test-only, issue 23): the encoder of dsh's `source_event_seqs` BLOB, the inverse of
// the product's decodeSourceEventSeqs (src/core/formats/dsh/varint.ts), for tests that build stores.

/** LEB128 first seq, ZigZag deltas. */
export function encodeSourceEventSeqs(seqs: readonly number[]): Uint8Array {
  const bytes: number[] = [];
  const varint = (n: number): void => {
    let v = n;
    while (v >= 128) {
      bytes.push((v % 128) | 0x80);
      v = Math.floor(v / 128);
    }
    bytes.push(v);
  };
  seqs.forEach((s, i) => {
    if (i === 0) varint(s);
    else {
      const d = s - seqs[i - 1]!;
      varint(d >= 0 ? d * 2 : -d * 2 - 1);
    }
  });
  return Uint8Array.from(bytes);
}
