// Runs one step of `npm test` / `npm run check` and says what it is doing: a line before
// (what runs) and a line after (how long it took, or how it failed). tsc and eslint print
// nothing when all is well, so without these lines a clean run sits silent for half a minute.
//
//   node scripts/step.mjs <name> <command> [args…]
//
// The command runs with the caller's stdio and PATH (npm puts node_modules/.bin on it); the
// exit code is the command's.
import { spawn } from 'node:child_process';

const [name, command, ...args] = process.argv.slice(2);
if (!name || !command) {
  console.error('usage: node scripts/step.mjs <name> <command> [args…]');
  process.exit(2);
}

const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
console.log(`[${name}] ${[command, ...args].join(' ')}`);
const child = spawn(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
child.on('error', (err) => {
  console.error(`[${name}] could not start ${command}: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (code === 0) console.log(`[${name}] ok (${seconds()})`);
  else console.error(`[${name}] failed (${signal ?? `exit ${code}`}) after ${seconds()}`);
  process.exit(code ?? 1);
});
