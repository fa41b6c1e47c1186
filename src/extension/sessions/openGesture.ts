// How a click on a Sessions row opens the session editor, as VS Code's Explorer opens files: a
// single click opens a preview editor and leaves the focus in the view; a double click, or Enter,
// opens it pinned and moves the focus to the editor.
//
// VS Code hands that choice (preserveFocus, pinned) only to its own `vscode.open` command, which
// opens a file with whatever editor the associations pick. A row command of ours sees neither, so
// the gesture is read from what it does see: VS Code runs the row's command on the first click and
// again on the double click, so a second run on the same row within the double-click time is a
// double click; and Enter is our own keybinding, which marks the open that follows it as pinned.
// No `vscode` here: the rule is unit-tested under plain node.

/** How long after a click a second one on the same row still makes a double click (the usual OS default). */
export const DOUBLE_CLICK_MS = 500;
/** An Enter marks the row open it triggers: that open arrives within this time. */
const KEYBOARD_OPEN_MS = 1_000;

export type OpenMode = 'preview' | 'pinned';

export class OpenGesture {
  private last: { key: string; at: number } | undefined;
  private pinnedUntil = 0;

  /** Enter on a row: the open it triggers (through VS Code's list.select) is a pinned one. */
  keyboard(now: number): void {
    this.pinnedUntil = now + KEYBOARD_OPEN_MS;
  }

  /** A row's command ran for the row `key`: how to open what it shows. */
  decide(key: string, now: number): OpenMode {
    if (this.pinnedUntil > 0 && now <= this.pinnedUntil) {
      this.pinnedUntil = 0;
      this.last = undefined;
      return 'pinned';
    }
    const second = this.last !== undefined && this.last.key === key && now - this.last.at <= DOUBLE_CLICK_MS;
    // A double click is over after its second click: a third starts again with a preview.
    this.last = second ? undefined : { key, at: now };
    return second ? 'pinned' : 'preview';
  }
}

/** What `vscode.openWith` and friends take for a mode: a preview keeps the focus where it is. */
export function showOptionsOf(mode: OpenMode): { preview: boolean; preserveFocus: boolean } {
  return mode === 'preview' ? { preview: true, preserveFocus: true } : { preview: false, preserveFocus: false };
}
