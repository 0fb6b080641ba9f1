import { isMemsyncError, MemsyncError } from "../../core/errors.ts";
import { diskRefusal, indexFailure } from "../../store/disk-errors.ts";

// Every failure of an operation as a MemsyncError with a code; each face maps codes to its own
// form (exit codes in the CLI, HTTP statuses in the API).

/** Any failure as a MemsyncError: a full or read-only disk, or a failing index, is unavailable; anything else internal. */
export function coded(e: unknown): MemsyncError {
  if (isMemsyncError(e)) return e;
  const disk = diskRefusal(e);
  if (disk) return new MemsyncError("unavailable", disk);
  const index = indexFailure(e);
  if (index) return new MemsyncError("unavailable", index);
  return new MemsyncError("internal", `internal error: ${e instanceof Error ? e.message : String(e)}`);
}
