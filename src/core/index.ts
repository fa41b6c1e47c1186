// The public core API: one import for the CLI, the extension and library users.
// src/core runs under plain Node (node:* and zod only) and never imports `vscode`.
export * from './schemas';
export * from './diagnostics';
export * from './jsonl';
export * from './load';
export * from './migrate';
export * from './ids';
export * from './blobs';
export * from './persist';
export * from './storage';
export * from './storage-file';
export * from './storage-memory';
export * from './rewrite';
export { assertNotLive, assertUnchanged, breadcrumbsNaming, backupPathFor, defaultBreadcrumbsDir, LIVE_WINDOW_MS, writeBackup } from './rewrite-guard';
export * from './tree';
export * from './context';
export * from './stats';
export * from './title';
export * from './cwd';
export * from './discovery';
export * from './document';
export * from './manager';
