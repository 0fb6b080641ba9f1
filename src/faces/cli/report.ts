import { isMemsyncError, MemsyncError, oneLine } from "../../core/errors.ts";
import { coded } from "../../ops/catalogue/errors.ts";
import { writeErr, writeOut } from "../../runtime/host.ts";
import type { CommandResult } from "./result.ts";

// How a command's outcome reaches the terminal: its output, or its error as one line on stderr
// (and as JSON on stdout with --json), with the error's exit code. Shared by the parser's path
// (main.ts) and the quick one (quick.ts), so both answer alike.

/** Print a command's result; its exit code. */
export function printResult(result: CommandResult): number {
  if (result.stdout) writeOut(result.stdout);
  if (result.stderr) writeErr(result.stderr);
  return result.exitCode ?? 0;
}

/** Print an error as the CLI says errors; its exit code. */
export function report(e: unknown, asJson: boolean): number {
  let err: MemsyncError;
  if (isMemsyncError(e)) err = e;
  else if (e instanceof Error && e.name === "CACError") err = new MemsyncError("usage", `${e.message} (see memsync --help)`);
  else err = coded(e); // a full or read-only disk is unavailable, not a bug (ops/catalogue/errors.ts)
  // a message never repeats the program's name after the prefix
  writeErr(`memsync: ${oneLine(err.message).replace(/^memsync:?\s+/, "")}\n`);
  if (asJson) writeOut(`${JSON.stringify({ error: { code: err.code, message: err.message } })}\n`);
  return err.exitCode;
}
