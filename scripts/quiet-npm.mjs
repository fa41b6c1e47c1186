// Filters `npm ci`'s output (stdin → stdout) for .ci/run: the one warning we expect and have explained —
// @sqlite.org/sqlite-wasm declares `engines.node >= 22` for its browser builds while the Node build we load runs
// on Node 20 (README, "Dependencies, and why each") — becomes one line. Any other EBADENGINE block, and every
// other line, passes through unchanged.
import { createInterface } from 'node:readline';

const EXPECTED = "'@sqlite.org/sqlite-wasm@";
let block = [];
const flush = () => {
  if (block.length === 0) return;
  if (block.some((l) => l.includes(EXPECTED))) {
    console.log('npm ci: @sqlite.org/sqlite-wasm asks for Node >= 22 (its browser builds); the Node build Session Loom loads runs on Node 20 — expected, see README "Dependencies".');
  } else {
    for (const l of block) console.log(l);
  }
  block = [];
};

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.startsWith('npm warn EBADENGINE')) {
    block.push(line);
    if (line.trim() === 'npm warn EBADENGINE }') flush();
    continue;
  }
  flush();
  console.log(line);
}
flush();
