// What a file-editing tool call changed (issue 13, "Open Diff"): the before and after texts of an
// `edit` (pi / xcsh: {path, oldText, newText}; Claude-style {file_path, old_string, new_string};
// several `edits` in one call) or a `write` ({path, content}, against nothing), from its arguments.
/** Before and after of a file-editing tool call, from its arguments; null when it edits no file. */
export function toolCallDiff(name: string, args: Record<string, unknown>): { file: string; before: string; after: string } | null {
  const str = (k: string): string | undefined => (typeof args[k] === 'string' ? (args[k] as string) : undefined);
  const file = str('path') ?? str('file_path') ?? str('filePath') ?? str('file');
  if (!file) return null;
  const tool = name.toLowerCase();
  if (tool === 'write' || tool === 'create') {
    const content = str('content') ?? str('text');
    return content === undefined ? null : { file, before: '', after: content };
  }
  if (tool === 'edit' || tool === 'str_replace' || tool === 'multiedit') {
    const one = (o: Record<string, unknown>): [string, string] | null => {
      const oldText = o.oldText ?? o.old_string ?? o.old_str ?? o.oldString;
      const newText = o.newText ?? o.new_string ?? o.new_str ?? o.newString;
      return typeof oldText === 'string' && typeof newText === 'string' ? [oldText, newText] : null;
    };
    const edits = Array.isArray(args.edits) ? (args.edits as Record<string, unknown>[]).map(one).filter((e): e is [string, string] => e !== null) : [one(args)].filter((e): e is [string, string] => e !== null);
    if (edits.length === 0) return null;
    // several edits of one call: one hunk each, in order, with a separator line between
    const sep = '\n⋯\n';
    return { file, before: edits.map((e) => e[0]).join(sep), after: edits.map((e) => e[1]).join(sep) };
  }
  return null;
}
