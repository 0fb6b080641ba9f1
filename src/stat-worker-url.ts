// Where the stat worker's module is, from a module at the top of src/: run from source this is
// src/stat-worker.ts, and in the compiled binary (stat-worker.ts built as a second entry point,
// scripts/build.ts) the bundle keeps it at its root under the same name, where this module's code
// also lands, so one relative URL serves both. A module deeper in src/ would resolve it elsewhere
// in one of the two.
export const STAT_WORKER_URL = new URL("./stat-worker.ts", import.meta.url).href;
