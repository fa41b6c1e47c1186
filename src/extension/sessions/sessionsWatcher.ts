// What redraws the Sessions tree without the user asking: session files changing on disk
// (watched per root, debounced, applied in one batch). Rows whose time text runs stale: rowClock.ts.
import * as path from 'node:path';
import * as vscode from 'vscode';

const WATCH_DEBOUNCE_MS = 300;

export class SessionsWatcher implements vscode.Disposable {
  private watchers: vscode.Disposable[] = [];
  private readonly pending = new Set<string>();
  private debounce: NodeJS.Timeout | undefined;

  /** `apply` receives the changed files (resolved paths) of one batch. */
  constructor(private readonly apply: (files: string[]) => Promise<void>) {}

  /** Watches the `.jsonl`, `.jsonl.zstd` and `.jsonl.zst` files under these roots (and no longer those of the previous ones). */
  watch(roots: readonly string[]): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = roots.map((root) => {
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), '**/*.{jsonl,jsonl.zstd,jsonl.zst}'));
      const on = (uri: vscode.Uri) => this.schedule(uri.fsPath);
      return vscode.Disposable.from(w, w.onDidChange(on), w.onDidCreate(on), w.onDidDelete(on));
    });
  }

  /** A file changed that the caller knows of (a write of ours): applied at once, with whatever is pending. */
  async changedNow(file: string): Promise<void> {
    this.pending.add(path.resolve(file));
    await this.flush();
  }

  dispose(): void {
    if (this.debounce) clearTimeout(this.debounce);
    for (const w of this.watchers) w.dispose();
  }

  private schedule(file: string): void {
    this.pending.add(path.resolve(file));
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.flush(), WATCH_DEBOUNCE_MS);
  }

  private async flush(): Promise<void> {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = undefined;
    const files = [...this.pending];
    this.pending.clear();
    await this.apply(files);
  }
}
