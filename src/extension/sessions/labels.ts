// How rows name things at the default sidebar width (issue 14): the words that tell rows apart
// come first, the rest goes to the description. No `vscode` here (unit-tested under plain node).
import * as os from 'node:os';

/**
 * A project row shows the last part of its path first ("pi-mono"), then its count and the folder
 * it is in ("11 sessions · ~/workspaces"): the full path left no room for what tells projects apart.
 */
export function projectLabelParts(label: string, home: string = os.homedir()): { name: string; where: string } {
  const trimmed = label.length > 1 ? label.replace(/[\\/]+$/, '') : label;
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  if (cut < 0 || trimmed.length === 1) return { name: trimmed, where: '' };
  const dir = cut === 0 ? trimmed.slice(0, 1) : trimmed.slice(0, cut);
  const underHome = home !== '' && home !== '/' && (dir === home || dir.startsWith(`${home}/`));
  return { name: trimmed.slice(cut + 1), where: underHome ? `~${dir.slice(home.length)}` : dir };
}
