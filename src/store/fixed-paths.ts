import { KIND_DIR, LOCAL_DIR, LOCAL_KIND_DIR, LOCAL_RECORDS, META_FILE } from "./layout.ts";

// The files a store keeps at fixed places, and the index's schema version, in a module of their
// own: a plain get reads the index without the Store (store/settled-index.ts) and must not load
// the modules that define them (store.ts, journal.ts, bulk-write.ts, redo.ts, index-db.ts).

export const INDEX_FILE = `${LOCAL_DIR}/index.db`;
export const LOCK_FILE = `${LOCAL_DIR}/lock`;
export const JOURNAL_FILE = `${LOCAL_DIR}/journal.jsonl`;
/** A bulk write in progress (bulk-write.ts). */
export const BULK_MARKER = `${LOCAL_DIR}/bulk-write.json`;
/** Writes durable only in the journal so far (redo.ts). */
export const REDO_MARKER = `${LOCAL_DIR}/redo.json`;
/** A pull's checkout under way, or left by a killed one for the next sync to finish (sync/checkout.ts). */
export const CHECKOUT_INTENT = `${LOCAL_DIR}/checkout.json`;

/** The index's schema version (PRAGMA user_version); index-db.ts migrates or rebuilds any other. */
export const INDEX_VERSION = 12;

/**
 * The paths a store writes at fixed places. None may be a symbolic link: a write through one
 * would land outside the store (issue 9: a linked shard folder made save write elsewhere, a
 * linked journal was appended to elsewhere). Shard folders and record files are looked at by
 * the transaction that writes into them (StoreTx.freshen, StoreTx.read).
 */
export const FIXED_PATHS = [LOCAL_DIR, INDEX_FILE, LOCK_FILE, JOURNAL_FILE, META_FILE, KIND_DIR.memory, KIND_DIR.relation, LOCAL_RECORDS, LOCAL_KIND_DIR.memory, LOCAL_KIND_DIR.relation] as const;
