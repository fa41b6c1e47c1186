// The reference (test-only, issue 23): `context`, `entries`, `tree` and `doctor` as the CLI printed
// an xcsh file from the whole-file document before every command asked the session engine. The
// engine's commands (src/cli/commands/read.ts) must print byte for byte what these print
// (test/unit/cliLazyRead.test.ts, test/unit/cliTreeLayout.test.ts). A dsh log is not the
// reference's business: it goes to the product's commands.
import type { BlobStore } from '../../src/core/formats/xcsh/blobs';
import type { TreeIndex } from '../../src/core/tree/tree';
import { escapeForTerminal } from '../../src/cli/terminalText';
import { CliError, UsageError, writeJson, type Io } from '../../src/cli/util';
import { parseFileCommand } from '../../src/cli/fileArgs';
import { entryPreview, type TreeRowJson } from '../../src/core/engine/xcsh/entryPreview';
import { BRANCH_FIRST, BRANCH_REST, checkedBlobStore, pathMarks, resolveImages, trunkIndex, xcshDoctorReport, type XcshDoctorFacts } from '../../src/core/engine/xcsh/lazy/xcshDocuments';
import { contextCommand, doctorCommand, entriesCommand, printDoctor, treeCommand, treeLineText, warnDiagnostics } from '../../src/cli/commands/read';
import { USAGE } from '../../src/cli/usage';
import type { TreeLine } from '../../src/core/engine/documents';
import { sessionReader } from '../../src/core/engine/openModel';
import { openSessionDocument, type SessionDocument } from './document';

/** The session document, with image references resolved from `--blobs <dir>` when given. */
async function openWithBlobs(file: string, blobs: string | boolean | undefined): Promise<{ doc: SessionDocument; store: BlobStore | undefined }> {
  const store = checkedBlobStore(blobs);
  return { doc: await openSessionDocument(file, store ? { blobs: store } : {}), store };
}

/** Options of another format, refused as the CLI's xcsh reader refuses them. */
function refuseDshOptions(values: Record<string, string | boolean | undefined>, usage: string): void {
  const foreign = sessionReader('xcsh').foreignOption('context', values);
  if (foreign) throw new UsageError(`${foreign}\n${usage}`);
}

function treeLine(lead: string, r: TreeRowJson): TreeLine {
  return { lead, id: r.id, preview: r.preview, ...(r.label !== undefined ? { label: r.label } : {}), ...(r.leaf ? { leaf: true as const } : {}) };
}

export async function referenceContext(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { leaf: { type: 'string' }, blobs: { type: 'string' }, at: { type: 'string' }, session: { type: 'string' }, pretty: { type: 'boolean' } }, USAGE.context, io);
  if (!args) return 0;
  const { values, file, format } = args;
  if (format === 'dsh') return contextCommand(argv, io);
  refuseDshOptions(values, USAGE.context);
  const { doc, store } = await openWithBlobs(file, values.blobs);
  let leaf: string | null | undefined = undefined;
  if (values.leaf === 'null') leaf = null;
  else if (typeof values.leaf === 'string') {
    if (!doc.tree.has(values.leaf)) throw new CliError(`no entry with id "${values.leaf}" (use --leaf null for the empty context)`, file, 0);
    leaf = values.leaf;
  }
  warnDiagnostics(io, file, doc.diagnostics);
  const ctx = doc.context(leaf);
  if (store) ctx.messages = await resolveImages(ctx.messages, store);
  writeJson(io, ctx, values.pretty === true);
  return 0;
}

export async function referenceEntries(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { blobs: { type: 'string' }, pretty: { type: 'boolean' } }, USAGE.entries, io);
  if (!args) return 0;
  const { values, file, format } = args;
  if (format === 'dsh') return entriesCommand(argv, io);
  const { doc } = await openWithBlobs(file, values.blobs);
  writeJson(io, { header: doc.loaded.header, entries: doc.loaded.entries, diagnostics: doc.diagnostics, leafId: doc.tree.defaultLeafId }, values.pretty === true);
  return 0;
}

/**
 * A linear run of entries and the branches after its last entry. Nesting grows with branch
 * points only, never with depth: a 1M-entry chain is one segment, so neither the text printer nor
 * JSON.stringify (which recurses) meets a million levels.
 */
interface Segment {
  entries: TreeRowJson[];
  children: Segment[];
}

function buildSegments(tree: TreeIndex): Segment[] {
  const make = (): Segment => ({ entries: [], children: [] });
  const roots: Segment[] = [];
  const work: { seg: Segment; id: string }[] = [];
  for (const r of tree.roots) {
    const seg = make();
    roots.push(seg);
    work.push({ seg, id: r });
  }
  while (work.length > 0) {
    const { seg, id: start } = work.pop()!;
    let id: string | null = start;
    while (id !== null) {
      const e = tree.get(id)!;
      const row: Segment['entries'][number] = { id, type: e.type, line: tree.lineOf(id), preview: entryPreview(e) };
      const label = tree.labels.get(id);
      if (label !== undefined) row.label = label;
      if (id === tree.defaultLeafId) row.leaf = true;
      seg.entries.push(row);
      const kids = tree.children(id);
      if (kids.length === 1) id = kids[0]!.id;
      else {
        for (const k of kids) {
          const child = make();
          seg.children.push(child);
          work.push({ seg: child, id: k.id });
        }
        id = null;
      }
    }
  }
  return roots;
}

/**
 * The text tree (layout in treeText.ts): a segment's rows on one prefix; after a fork, the side
 * branches one level under it, then the trunk (the child on the path to the default leaf, else
 * the last) on the fork point's own prefix.
 */
function printSegments(io: Io, tree: TreeIndex, roots: Segment[]): void {
  const leafId = tree.defaultLeafId;
  const onPath = pathMarks(tree.entries.length, leafId === null ? -1 : tree.indexOf(leafId), (i) => tree.parentAt(i));
  const stack: { seg: Segment; first: string; rest: string }[] = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ seg: roots[i]!, first: '', rest: '' });
  let buf = '';
  while (stack.length > 0) {
    const { seg, first, rest } = stack.pop()!;
    const newTree = roots.indexOf(seg) > 0;
    seg.entries.forEach((r, i) => {
      buf += treeLineText({ ...treeLine(i === 0 ? first : rest, r), ...(newTree && i === 0 ? { newTree: true as const } : {}) });
      if (buf.length > 1 << 16) {
        io.out(buf);
        buf = '';
      }
    });
    const kids = seg.children;
    if (kids.length === 0) continue;
    const trunk = trunkIndex(
      kids.map((k) => tree.indexOf(k.entries[0]!.id)),
      onPath,
    );
    // Popped in file order: the side branches, then the trunk.
    stack.push({ seg: kids[trunk]!, first: rest, rest });
    for (let i = kids.length - 1; i >= 0; i--) if (i !== trunk) stack.push({ seg: kids[i]!, first: rest + BRANCH_FIRST, rest: rest + BRANCH_REST });
  }
  io.out(buf);
}

export async function referenceTree(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { json: { type: 'boolean' }, session: { type: 'string' }, pretty: { type: 'boolean' } }, USAGE.tree, io);
  if (!args) return 0;
  const { values, file, format } = args;
  if (format === 'dsh') return treeCommand(argv, io);
  refuseDshOptions(values, USAGE.tree);
  const doc = await openSessionDocument(file);
  const roots = buildSegments(doc.tree);
  if (values.json) {
    writeJson(io, { defaultLeafId: doc.tree.defaultLeafId, roots }, values.pretty === true);
  } else {
    warnDiagnostics(io, file, doc.diagnostics);
    if (doc.loaded.stat?.size === 0) io.err(`${escapeForTerminal(file)}: empty file (0 bytes): no session in it yet\n`);
    printSegments(io, doc.tree, roots);
  }
  return 0;
}


async function doctorFacts(file: string, blobs: string | boolean | undefined): Promise<XcshDoctorFacts> {
  const { doc } = await openWithBlobs(file, blobs);
  const l = doc.loaded;
  return { onDisk: l.stat !== null, empty: l.stat?.size === 0, readOnlyReason: l.readOnlyReason, version: l.header ? l.originalVersion : null, entries: l.entries.length, diagnostics: doc.diagnostics };
}

export async function referenceDoctor(argv: string[], io: Io): Promise<number> {
  const args = await parseFileCommand(argv, { json: { type: 'boolean' }, blobs: { type: 'string' }, session: { type: 'string' }, pretty: { type: 'boolean' } }, USAGE.doctor, io);
  if (!args) return 0;
  const { values, file, format } = args;
  if (format === 'dsh') return doctorCommand(argv, io);
  refuseDshOptions(values, USAGE.doctor);
  return printDoctor(io, file, await xcshDoctorReport(file, await doctorFacts(file, values.blobs)), values.json === true, values.pretty === true);
}
