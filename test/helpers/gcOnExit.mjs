// Preloaded (`--import`) into a test process started with --expose-gc: collects garbage once the
// tests are done, so a FileHandle left open is finalised while the process is still there to say
// so ("Closing file descriptor N on garbage collection", DEP0137). Without it, whether the
// warning shows depends on whether the collector happened to run during the tests.
process.once('beforeExit', () => {
  globalThis.gc?.();
  // Finalisers run after the collection, on a later turn: give them one.
  setTimeout(() => globalThis.gc?.(), 50);
});
