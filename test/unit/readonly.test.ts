// Part C §1: no read path ever modifies a file. Hash every fixture before and after every reader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { readJsonlFile, readJsonlPrefix, parseJsonlLenient } from '../../src/core/formats/xcsh/jsonl';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { BlobStore } from '../../src/core/formats/xcsh/blobs';
import { FileSessionStorage } from '../reference/fileStorage';
import { fixtureFiles } from '../helpers/fixtures';

const hash = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

test('every read path leaves every fixture byte-identical (and its mtime unchanged)', async () => {
  const files = ['upstream', 'upstream-full', 'real-v3', 'dsh'].flatMap((d) => fixtureFiles(d));
  const store = new BlobStore('/nonexistent-loom-blobs');
  const storage = new FileSessionStorage();
  for (const f of files) {
    const before = hash(f);
    const mtime = statSync(f).mtimeMs;
    await readJsonlFile(f);
    await readJsonlPrefix(f);
    parseJsonlLenient(readFileSync(f));
    await loadSessionFile(f);
    await loadSessionFile(f, { blobs: store });
    await storage.readText(f);
    await storage.readTextPrefix(f, 4096);
    storage.statSync(f);
    assert.equal(hash(f), before, basename(f));
    assert.equal(statSync(f).mtimeMs, mtime, basename(f));
  }
});
