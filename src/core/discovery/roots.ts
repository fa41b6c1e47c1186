// Where each agent keeps its sessions by default: paths only, nothing read. Its own module so that
// what needs only the roots (a CLI search) does not load the listing and its format readers.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { dshSessionsRoot } from '../formats/dsh/paths';
import { codexHomeDir } from '../formats/codex/sessionIndex';

/** `$CLAUDE_CONFIG_DIR`, or `~/.claude` (A.1). */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return env.CLAUDE_CONFIG_DIR && env.CLAUDE_CONFIG_DIR !== '' ? env.CLAUDE_CONFIG_DIR : join(home, '.claude');
}

/** Claude Code's sessions folder: `<config dir>/projects`. */
export function claudeProjectsRoot(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return join(claudeConfigDir(env, home), 'projects');
}

/** Codex's rollout folders: `<codex home>/sessions` and `<codex home>/archived_sessions`. */
export function codexSessionRoots(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string[] {
  const h = codexHomeDir(env, home);
  return [join(h, 'sessions'), join(h, 'archived_sessions')];
}

/** The agents whose own session folders are listed by default. */
export const BUILT_IN_ROOTS = ['xcsh', 'dsh', 'claude', 'codex'] as const;
export type BuiltInRoot = (typeof BUILT_IN_ROOTS)[number];
/** Which built-in roots are on (a missing key is on). */
export type BuiltInRoots = Partial<Record<BuiltInRoot, boolean>>;

/**
 * `~/.xcsh/agent/sessions`, plus `~/.omp/agent/sessions`, `~/.pi/agent/sessions` and dsh's
 * `~/.dsh/sessions` (or `$DSH_HOME/sessions`), Claude Code's `~/.claude/projects` (or
 * `$CLAUDE_CONFIG_DIR/projects`) and Codex's `~/.codex/sessions` and `~/.codex/archived_sessions`
 * (or under `$CODEX_HOME`) when present. `enabled` turns agents off (`{ claude: false }`).
 */
export function defaultSessionRoots(home: string = homedir(), env: NodeJS.ProcessEnv = process.env, enabled: BuiltInRoots = {}): string[] {
  const on = (a: BuiltInRoot): boolean => enabled[a] !== false;
  const roots: string[] = [];
  if (on('xcsh')) {
    roots.push(join(home, '.xcsh', 'agent', 'sessions'));
    for (const alt of ['.omp', '.pi']) {
      const p = join(home, alt, 'agent', 'sessions');
      if (existsSync(p)) roots.push(p);
    }
  }
  const optional = [...(on('dsh') ? [dshSessionsRoot(env, home)] : []), ...(on('claude') ? [claudeProjectsRoot(env, home)] : []), ...(on('codex') ? codexSessionRoots(env, home) : [])];
  for (const p of optional) if (existsSync(p)) roots.push(p);
  return roots;
}

/** A session file name: `.jsonl` (xcsh, pi, raw dsh, Claude Code, Codex), `.jsonl.zstd` (dsh's default) or `.jsonl.zst` (a compressed Codex rollout). */
export function isSessionFileName(name: string): boolean {
  return name.endsWith('.jsonl') || name.endsWith('.jsonl.zstd') || name.endsWith('.jsonl.zst');
}
