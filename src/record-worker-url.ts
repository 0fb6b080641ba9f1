// Where the record worker's module is (see stat-worker-url.ts: the same rule, the same reason).
export const RECORD_WORKER_URL = new URL("./record-worker.ts", import.meta.url).href;
