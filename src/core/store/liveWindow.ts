// How recent a file's last change must be for it to count as live: a writer may still be at it.
// Its own module so that readers (a dsh log's open turn) need not load the write guards.

/** A file modified within this many milliseconds counts as live. */
export const LIVE_WINDOW_MS = 5000;
