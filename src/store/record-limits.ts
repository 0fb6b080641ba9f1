import { invalidInput } from "../core/errors.ts";
import { MAX_JSON_DEPTH, jsonDeeperThan } from "../core/model/validate.ts";
import type { RecordKind } from "./layout.ts";

/** The largest record memsync writes, in bytes of its canonical JSON (README: Limits). */
export const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * Refuse a record too large or too deeply nested to write. Checked on the canonical text every
 * write path produces (save, update, capture, relate ...), before any file changes: input nested
 * 10,000 deep once became a 200 MB record and index.
 */
export function refuseUnwritable(kind: RecordKind, id: string, json: string): void {
  // a UTF-8 byte is at most 3 per UTF-16 unit: short text needs no encoding to be measured
  if (json.length > MAX_RECORD_BYTES / 3) {
    const bytes = new TextEncoder().encode(json).length;
    if (bytes > MAX_RECORD_BYTES) throw invalidInput(`${kind} ${id} would be ${bytes} bytes; a record is at most ${MAX_RECORD_BYTES} bytes (1 MiB)`, { id });
  }
  if (jsonDeeperThan(json, MAX_JSON_DEPTH)) throw invalidInput(`${kind} ${id} nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels`, { id });
}
