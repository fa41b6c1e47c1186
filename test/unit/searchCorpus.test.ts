// The search benchmark's generated corpus (bench/searchCorpus.ts) stays close to real sessions in
// what a full-text index's cost follows: distinct words, postings (distinct words per entry) and
// words per MB, measured on the same bytes of the real fixtures. A generator whose vocabulary runs
// away (a fresh identifier or hash per use) would make the build benchmark measure no user's disk.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateSearchCorpus, vocabularyStats } from '../../bench/searchCorpus';
import { fixtureFiles } from '../helpers/fixtures';

test('the generated search corpus has the vocabulary of the real sessions, never an easier one', async () => {
  const realFiles = [...fixtureFiles('upstream-full'), ...fixtureFiles('real-v3')];
  const real = await vocabularyStats(realFiles);
  const dir = mkdtempSync(join(tmpdir(), 'loom-corpus-'));
  try {
    const bytes = realFiles.reduce((n, f) => n + statSync(f).size, 0);
    const corpus = generateSearchCorpus({ dir, sessions: 12, bytes, projects: 3 });
    const gen = await vocabularyStats(corpus.files.map((f) => f.path));
    const ratio = (k: keyof typeof gen) => gen[k] / real[k];
    const say = `real ${JSON.stringify(real)}, generated ${JSON.stringify(gen)}`;
    assert.ok(ratio('distinct') > 0.8 && ratio('distinct') < 1.25, `distinct words within 20%: ${say}`);
    // Postings are what the index's build pays for: never fewer than the real sessions'.
    assert.ok(ratio('postingsPerMb') >= 1 && ratio('postingsPerMb') < 1.5, `postings per MB at least the real ones, below 1.5×: ${say}`);
    assert.ok(ratio('wordsPerMb') >= 1 && ratio('wordsPerMb') < 1.3, `words per MB at least the real ones, below 1.3×: ${say}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
