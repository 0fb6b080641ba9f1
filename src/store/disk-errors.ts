// Telling a disk that refuses writes (full, read-only, no permission) from a fault in memsync:
// the first is "unavailable" (exit 6) with a plain line, never "internal error". No imports, so
// the CLI can map any error without loading the store.

/** Errors that mean the disk or its permissions refuse writes, not that memsync is wrong. */
const REFUSING_DISK: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
};

/**
 * A one-line "unavailable" message for a write the disk refused (full, read-only, no
 * permission), from a file system error or SQLite's words for the same; null for anything else.
 */
export function diskRefusal(e: unknown): string | null {
  if (!(e instanceof Error)) return null;
  const { code, path } = e as { code?: string; path?: string };
  if (code && REFUSING_DISK[code]) {
    const verb = code === "EACCES" || code === "EPERM" ? "cannot use" : "cannot write";
    return `${verb} ${path ?? "the store's files"}: ${REFUSING_DISK[code]} (${code})`;
  }
  if (/database or disk is full|SQLITE_FULL/i.test(e.message)) return `cannot write the index: no space left on the device (SQLITE_FULL)`;
  if (/attempt to write a readonly database|SQLITE_READONLY|unable to open database file|SQLITE_CANTOPEN/i.test(e.message)) {
    return `cannot write the index: the file system is read-only or not writable (${e.message})`;
  }
  return null;
}

/**
 * A one-line "unavailable" message for the derived index failing under a command (damaged, or
 * replaced by another process's recovery at that moment) where the command could not recover
 * itself: nothing is lost (the records are the truth), and running it again rebuilds or reopens.
 */
export function indexFailure(e: unknown): string | null {
  if (!(e instanceof Error)) return null;
  if (!/database disk image is malformed|file is not a database|disk I\/O error|SQLITE_IOERR|SQLITE_CORRUPT|SQLITE_NOTADB/i.test(e.message)) return null;
  return `the local index failed under this command (${e.message}); run it again, or rebuild the index with \`memsync reindex\``;
}
