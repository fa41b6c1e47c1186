// The words a user interface shows for a dsh log's state (the extension passes vscode.l10n.t).
import { english, type Translate } from '../../l10n';
import type { DshLogState } from './types';

/** A short label: "Complete", "Open", "Interrupted", "Torn", "Corrupt". */
export function dshStateLabel(state: DshLogState, l10nT: Translate = english): string {
  switch (state) {
    case 'complete':
      return l10nT('Complete');
    case 'open':
      return l10nT('Open');
    case 'interrupted':
      return l10nT('Interrupted');
    case 'torn':
      return l10nT('Torn');
    case 'corrupt':
      return l10nT('Corrupt');
  }
}

/** One plain sentence saying what the state means for what is shown. */
export function dshStateDescription(state: DshLogState, l10nT: Translate = english): string {
  switch (state) {
    case 'complete':
      return l10nT('Every turn is closed and every record was read.');
    case 'open':
      return l10nT('The last turn is still open and the file changed moments ago: dsh may still be writing it.');
    case 'interrupted':
      return l10nT('The last turn was never closed: the closing events shown last are synthetic, applied in memory as dsh would on resume, and never written.');
    case 'torn':
      return l10nT('The end of the log is an incomplete write: it was dropped, as dsh drops it; everything before it is shown.');
    case 'corrupt':
      return l10nT('dsh would refuse to load this log: only the readable part before the problem is shown, read-only.');
  }
}
