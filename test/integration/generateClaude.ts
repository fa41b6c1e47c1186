// `node out/test/generateClaude.js <file> <bytes>`: writes a big Claude Code transcript (copies of a
// real one, bench/agentGenerate.ts) in a process of its own, for the suite's big-transcript test.
import { join } from 'node:path';
import { generateClaudeTranscript } from '../../bench/agentGenerate';

const [file, bytes] = process.argv.slice(2);
if (!file || !bytes) throw new Error('usage: generateClaude.js <file> <bytes>');
// This bundle runs from out/test/: the real transcript it copies is in the repository's fixtures.
generateClaudeTranscript(file, Number(bytes), join(__dirname, '..', '..', 'test', 'fixtures', 'claude-code', 'spotter', '258c7280-ae70-4798-800f-63464d01a85d.jsonl'));
