import assert from "node:assert/strict";
import { isMemsyncError } from "../../src/core/errors.ts";

/** fn must throw a MemsyncError with code invalid_input (and, if given, a matching message). */
export function assertInvalid(fn: () => unknown, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(isMemsyncError(e), `expected a MemsyncError, got ${String(e)}`);
    assert.equal(e.code, "invalid_input");
    if (message) assert.match(e.message, message);
    return true;
  });
}
