// Entry ids: 8 lowercase hex characters (Part B §11), unique within a session.
import { randomBytes } from 'node:crypto';

export const ENTRY_ID_PATTERN = /^[0-9a-f]{8}$/;

/**
 * A fresh 8-hex id not in `taken`; the id is added to `taken` so a caller assigning many ids in a
 * row cannot hand out the same one twice. crypto-random (not Math.random) so two tools migrating
 * copies of one file do not produce colliding id sequences.
 */
export function generateEntryId(taken: Set<string>): string {
  for (;;) {
    const id = randomBytes(4).toString('hex');
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}
