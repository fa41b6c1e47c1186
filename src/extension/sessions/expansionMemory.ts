// Which rows the user expanded outside a search. VS Code applies an item's collapsibleState only
// when its id is new to the tree and forgets the state of rows that leave it; a search shows its
// results under ids of its own (see searchMode.ts), so the rows expanded before it would come back
// collapsed. They are remembered here and created expanded again when the search is cleared.
import * as vscode from 'vscode';
import type { LoomNode } from './nodes';

export class ExpansionMemory {
  private readonly expanded = new Set<string>();

  /** Follows the user's expand/collapse clicks, except while `searching()` says a search shows. */
  track(treeView: vscode.TreeView<LoomNode>, searching: () => boolean): vscode.Disposable {
    return vscode.Disposable.from(
      treeView.onDidExpandElement((e) => {
        if (!searching()) this.expanded.add(e.element.id);
      }),
      treeView.onDidCollapseElement((e) => {
        if (!searching()) this.expanded.delete(e.element.id);
      }),
    );
  }

  has(id: string): boolean {
    return this.expanded.has(id);
  }
}
