// What a tool's result can show in a text editor of its own (issue 13):
// - `resultDiff`: the diff a tool result carries in `details.diff` (the agent's `edit` tool writes
//   numbered lines, ` 12|kept`, `-13|removed`, `+13|added`, ` 1|...` for skipped lines; a unified
//   diff's `@@` hunks are read too) as the before and after texts of the changed region, for VS
//   Code's diff editor;
// - `outputDocName`: the name of a read-only document holding a tool's output, whose extension
//   lets VS Code pick the language: the file a `read` (or `cat`, `head`…) showed, `.diff` for
//   `git diff`/`git show`, else `.log` (VS Code's log grammar marks errors, warnings and times).

/** Before and after of the lines a diff shows; null when the text is no diff we can read. */
export function resultDiff(diff: string): { before: string; after: string } | null {
  const before: string[] = [];
  const after: string[] = [];
  let changes = 0;
  let seen = 0;
  for (const line of diff.split('\n')) {
    if (line === '' || line.startsWith('--- ') || line.startsWith('+++ ') || line.startsWith('diff ') || line.startsWith('index ')) continue;
    if (line.startsWith('@@')) {
      if (seen > 0) {
        before.push('⋯');
        after.push('⋯');
      }
      continue;
    }
    const numbered = /^([ +-])\s*\d+\|(.*)$/.exec(line);
    const [mark, text] = numbered ? [numbered[1]!, numbered[2]!] : [line[0]!, line.slice(1)];
    if (numbered && mark === ' ' && text === '...') {
      before.push('⋯');
      after.push('⋯');
      continue;
    }
    if (mark === '-') {
      before.push(text);
      changes++;
    } else if (mark === '+') {
      after.push(text);
      changes++;
    } else if (mark === ' ') {
      before.push(text);
      after.push(text);
    } else return null; // not a diff line
    seen++;
  }
  return changes > 0 ? { before: before.join('\n'), after: after.join('\n') } : null;
}

const PATH_ARGS = ['path', 'file_path', 'filePath', 'file'];
/** Commands that print a file: the file names the output's language. */
const PRINTS_FILE = /^(cat|head|tail|less|more|bat|nl|sed\s+-n\s+\S+)\s/;

function baseName(p: string): string {
  return p.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '';
}

/** A file name for a tool's output document (the name's extension picks its language). */
export function outputDocName(toolName: string | null, args: Record<string, unknown> | null, command: string | null): string {
  const tool = (toolName ?? '').toLowerCase();
  if (args && (tool === 'read' || tool === 'view' || tool === 'open' || tool === 'cat')) {
    for (const k of PATH_ARGS) if (typeof args[k] === 'string' && baseName(args[k] as string).includes('.')) return baseName(args[k] as string);
  }
  const cmd = (command ?? (args && typeof args.command === 'string' ? args.command : '') ?? '').trim();
  if (/^git\s+(diff|show|log\s+-p)\b/.test(cmd) || /^diff\s/.test(cmd)) return 'output.diff';
  if (PRINTS_FILE.test(cmd) && !/[|;&>]/.test(cmd)) {
    const last = cmd.split(/\s+/).pop() ?? '';
    const name = baseName(last.replace(/^['"]|['"]$/g, ''));
    if (/\.[A-Za-z0-9]+$/.test(name)) return name;
  }
  return 'output.log';
}
