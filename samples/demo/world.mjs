// The world `npm run demo` opens: a fake home with realistic agent sessions (several projects, a
// long session with a compaction, an abandoned branch, labels and a subagent, images that resolve
// from the blob store, a v1 session to migrate, a damaged one to repair) and a workspace whose
// README walks through what to try. The integration tests keep their own world
// (test/integration/workspace.mjs: real fixtures and hostile samples such as the XSS one).
//
//   <dir>/home/.xcsh/agent/sessions/--<cwd>--/<timestamp>_<id>.jsonl
//   <dir>/home/.xcsh/agent/sessions/--<cwd>--/<timestamp>_<id>/<subagent id>.jsonl
//   <dir>/home/.xcsh/agent/blobs/<sha256>
//   <dir>/session-loom-demo/              the workspace VS Code opens (README.md)
//
// Times are laid out back from `now` (sessions from minutes to weeks ago), so rows read "40 min
// ago", "yesterday". To add sessions of another agent (a dsh reader is coming), add a project
// module to PROJECTS: each gets the context below and writes what it likes under `home`.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dotfiles } from './projects/dotfiles.mjs';
import { recipeSite } from './projects/recipeSite.mjs';
import { weatherCli } from './projects/weatherCli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The demo's projects, in no particular order (the view sorts them by their newest session). */
export const PROJECTS = [weatherCli, recipeSite, dotfiles];

/** Session-dir name as xcsh derives it from a cwd (spec, "Layout on disk"). */
function encodeCwd(cwd) {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

/**
 * Builds the demo world under `dir` and returns where things are, in the shape of the tests'
 * buildTestHome: { home, sessionsDir, blobsDir, workspaceDir, projects: { dir → [{ file }] } }.
 */
export function buildDemoHome(dir, { now = Date.now() } = {}) {
  const home = path.join(dir, 'home');
  const sessionsDir = path.join(home, '.xcsh', 'agent', 'sessions');
  const blobsDir = path.join(home, '.xcsh', 'agent', 'blobs');
  const workspaceDir = path.join(dir, 'session-loom-demo');
  for (const d of [sessionsDir, blobsDir, workspaceDir]) mkdirSync(d, { recursive: true });

  /** @type {Record<string, { file: string }[]>} */
  const projects = {};
  const write = (file, text, mtimeMs) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    const t = new Date(mtimeMs);
    utimesSync(file, t, t);
    const project = path.relative(sessionsDir, file).split(path.sep)[0];
    (projects[project] ??= []).push({ file });
    return file;
  };
  const fileOf = (builder) => path.join(sessionsDir, encodeCwd(builder.cwd), builder.fileName());
  const ctx = {
    now,
    home,
    sessionsDir,
    /** Stores image bytes in the blob store (named by their SHA-256) and returns the reference. */
    blob(bytes) {
      const hash = createHash('sha256').update(bytes).digest('hex');
      writeFileSync(path.join(blobsDir, hash), bytes);
      return `blob:sha256:${hash}`;
    },
    /** A session built with SessionBuilder, in its project's folder. */
    session(builder, { mtimeMs }) {
      return write(fileOf(builder), builder.jsonl(), mtimeMs);
    },
    /** A subagent session: `<parent file without .jsonl>/<id>.jsonl` (spec Part B §13). */
    subagent(parent, builder, { mtimeMs }) {
      return write(path.join(fileOf(parent).replace(/\.jsonl$/, ''), `${builder.id}.jsonl`), builder.jsonl(), mtimeMs);
    },
    /** Any file text in the folder of the project `cwd` (v1 and damaged sessions are written by hand). */
    file(cwd, name, text, { mtimeMs }) {
      return write(path.join(sessionsDir, encodeCwd(cwd), name), text, mtimeMs);
    },
  };
  for (const p of PROJECTS) p.write(ctx);

  // The demo's workspace sits inside this repository (.vscode-test/demo): keep the git extension
  // from offering to open the parent repository; show view title actions without a hover.
  mkdirSync(path.join(workspaceDir, '.vscode'), { recursive: true });
  const settings = { 'git.openRepositoryInParentFolders': 'never', 'workbench.view.alwaysShowHeaderActions': true, 'workbench.startupEditor': 'readme' };
  writeFileSync(path.join(workspaceDir, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
  copyFileSync(path.join(here, 'README.md'), path.join(workspaceDir, 'README.md'));
  const result = { home, sessionsDir, blobsDir, workspaceDir, projects };
  writeFileSync(path.join(dir, 'demo-manifest.json'), JSON.stringify(result, null, 2) + '\n');
  return result;
}
