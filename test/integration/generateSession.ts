// `node out/test/generateSession.js <file> <entries>`: writes a bench session (bench/generate.ts)
// in a process of its own, so the integration suite's event-loop measurements in the extension
// host do not count the generator's garbage collection.
import { generateSession } from '../../bench/generate';

const [file, entries] = process.argv.slice(2);
if (!file || !entries) throw new Error('usage: generateSession.js <file> <entries>');
generateSession(file, Number(entries));
