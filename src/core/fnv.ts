// FNV-1a (32-bit) over a string's UTF-16 code units: the one small, stable, non-cryptographic hash
// the code uses for hash tables (tree ids, the index's columns) and for short stable names (the
// search server's socket). Signed, as Math.imul leaves it; `>>> 0` for an unsigned one.
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), 0x01000193);
  return h;
}
