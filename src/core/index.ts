// The public core API: one import for the CLI, the extension and library users.
// src/core runs under plain Node (node:* and zod only) and never imports `vscode`.
export * from './formats/xcsh/schemas';
export * from './diagnostics';
export * from './formats/xcsh/jsonl';
export * from './formats/xcsh/load';
export * from './formats/xcsh/migrate';
export * from './formats/xcsh/ids';
export * from './formats/xcsh/blobs';
export * from './formats/xcsh/persist';
export * from './store/storage';
export * from './store/fileStorage';
export * from './store/memoryStorage';
export * from './store/rewrite';
export { applyEditsToValue, editRecord, RecordEditError, type RecordEdit } from './store/recordEdit';
export { uneditableRecords, UnsafeRecordEditError, type UnkeptRecord } from './store/recordRewrite';
export { auditSessionBytes } from './formats/xcsh/byteAudit';
export { assertFingerprint, assertNoOtherWriters, assertNotLive, assertUnchanged, breadcrumbsNaming, backupPathFor, defaultBreadcrumbsDir, LIVE_WINDOW_MS, writeBackup } from './store/rewriteGuard';
export { findStaleTempFiles, findTempFiles, removeStaleTempFiles, STALE_TEMP_AGE_MS, tempFileDiagnostics, type TempFile } from './store/tempFiles';
export { processesWritingTo, type OpenWriter } from './store/openWriters';
export { writeTargetRefusal } from './store/writeTarget';
export * from './tree/tree';
export * from './formats/xcsh/context';
export * from './formats/xcsh/stats';
export * from './formats/xcsh/title';
export * from './formats/xcsh/cwd';
export * from './discovery/discovery';
export * from './formats/xcsh/manager';
