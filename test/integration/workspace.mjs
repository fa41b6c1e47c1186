// Builds the world the extension sees in integration tests: a fake home with an xcsh sessions
// tree made of the real-session fixtures of test/fixtures (copied byte-exact) and the hostile samples of
// samples/sessions (the XSS one among them), an empty blob store, and a `workspace/` folder that
// VS Code opens. The demo has a world of its own: samples/demo/world.mjs.
//
//   <tmp>/home/.xcsh/agent/sessions/--Users-badlogic-workspaces-pi-mono--/<ts>_<id>.jsonl   upstream-full
//   <tmp>/home/.xcsh/agent/sessions/--Users-badlogic-workspaces-pi-mono--/pi-*.v1.*.jsonl   upstream excerpts
//   <tmp>/home/.xcsh/agent/sessions/--home-user-tmp--/…                                      real-v3
//   <tmp>/home/.xcsh/agent/sessions/<dir>/…                                                  samples/sessions/<dir>
//   <tmp>/home/.xcsh/agent/sessions/<dir>/<session>/<id>.jsonl                               its subagent sessions
//   <tmp>/home/.xcsh/agent/blobs/
//   <tmp>/workspace/
//   <tmp>/home/.claude/projects/…, <tmp>/home/.codex/…                                      test/helpers/agentHome.mjs
//   <tmp>/home/session-loom-test-manifest.json                                               what went where
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAgentHome } from '../helpers/agentHome.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');
/** The real-session fixtures, shipped in the repository (each folder's README says where every file comes from). */
export const fixturesDir = path.join(repoRoot, 'test', 'fixtures');
export const samplesDir = path.join(repoRoot, 'samples', 'sessions');

/** Session-dir name as xcsh derives it from a cwd (spec, "Layout on disk"). */
export function encodeCwd(cwd) {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

/**
 * `<timestamp>_<sessionId>.jsonl` as xcsh names new sessions, taken from the header.
 * Files without a usable header (real-v3's gjc-01 lost its first line) keep their name.
 */
function sessionFileName(file) {
  const firstLine = readFileSync(file, 'utf8').split('\n', 1)[0];
  try {
    const header = JSON.parse(firstLine);
    if (header?.type === 'session' && typeof header.id === 'string' && typeof header.timestamp === 'string') {
      return `${header.timestamp.replace(/[:.]/g, '-')}_${header.id}.jsonl`;
    }
  } catch {
    // not a header: keep the fixture's own name
  }
  return path.basename(file);
}

function jsonlIn(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl') || f.endsWith('.jsonl.zstd'))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * Creates `<tmpDir>/home` and `<tmpDir>/workspace` and returns their paths plus a
 * manifest of every session file (project dir → [{ file, source }]).
 */
export function buildTestHome(tmpDir) {
  if (!existsSync(fixturesDir)) {
    throw new Error(`The real-session fixtures are missing: ${fixturesDir} does not exist (restore them with git checkout -- test/fixtures).`);
  }
  const home = path.join(tmpDir, 'home');
  const agentDir = path.join(home, '.xcsh', 'agent');
  const sessionsDir = path.join(agentDir, 'sessions');
  const blobsDir = path.join(agentDir, 'blobs');
  const workspaceDir = path.join(tmpDir, 'workspace');
  for (const d of [sessionsDir, blobsDir, workspaceDir]) mkdirSync(d, { recursive: true });

  /** @type {Record<string, { file: string, source: string }[]>} */
  const projects = {};
  const place = (projectDir, source, name, subDir = '') => {
    const dir = path.join(sessionsDir, projectDir, subDir);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, name);
    if (existsSync(file)) throw new Error(`Two fixtures map to ${file}`);
    copyFileSync(source, file);
    chmodSync(file, 0o644); // a checkout may leave the fixtures read-only; Session Loom never writes a read-only file
    (projects[projectDir] ??= []).push({ file, source });
  };

  const piMono = encodeCwd('/Users/badlogic/workspaces/pi-mono');
  // The excerpts share session ids with the full files, so they keep their fixture names.
  for (const f of jsonlIn(path.join(fixturesDir, 'upstream-full'))) place(piMono, f, sessionFileName(f));
  for (const f of jsonlIn(path.join(fixturesDir, 'upstream'))) place(piMono, f, path.basename(f));

  const homeUserTmp = encodeCwd('/home/user/tmp');
  for (const f of jsonlIn(path.join(fixturesDir, 'real-v3'))) place(homeUserTmp, f, sessionFileName(f));

  // The project's own samples (samples/sessions/<project-dir>/<file>, or loose files).
  if (existsSync(samplesDir)) {
    for (const entry of readdirSync(samplesDir).sort()) {
      const p = path.join(samplesDir, entry);
      if (statSync(p).isDirectory()) {
        for (const f of jsonlIn(p)) place(entry, f, path.basename(f));
        // Subagent sessions: <session file without .jsonl>/<id>.jsonl (spec Part B §13).
        for (const sub of readdirSync(p).sort()) {
          const subDir = path.join(p, sub);
          if (!statSync(subDir).isDirectory()) continue;
          for (const f of jsonlIn(subDir)) place(entry, f, path.basename(f), sub);
        }
      } else if (entry.endsWith('.jsonl') || entry.endsWith('.jsonl.zstd')) {
        place(encodeCwd('/samples'), p, entry);
      }
    }
  }

  // The demo's workspace sits inside this repository (.vscode-test/demo): keep the git
  // extension from offering to open the parent repository on top of the view. View title
  // actions normally appear only under the mouse; tests click them and screenshots show them.
  mkdirSync(path.join(workspaceDir, '.vscode'), { recursive: true });
  const settings = { 'git.openRepositoryInParentFolders': 'never', 'workbench.view.alwaysShowHeaderActions': true };
  writeFileSync(path.join(workspaceDir, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
  writeFileSync(path.join(workspaceDir, 'README.md'), '# Session Loom test workspace\n\nSessions live in the fake home: `~/.xcsh/agent/sessions`.\n');
  // deepseek-harness logs under ~/.dsh/sessions (a default root once it exists) and a dsh store.
  const dsh = JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'test', 'helpers', 'dshWorld.ts'), home], { cwd: repoRoot, encoding: 'utf8' }),
  );
  // Claude Code under ~/.claude/projects and Codex under ~/.codex (default roots once they exist):
  // test/helpers/agentHome.mjs says which fixture goes where.
  const agents = buildAgentHome(home);
  const result = { home, sessionsDir, blobsDir, workspaceDir, fixturesDir, projects, dsh, agents };
  writeFileSync(path.join(home, 'session-loom-test-manifest.json'), JSON.stringify(result, null, 2) + '\n');
  return result;
}
