import { MemsyncError } from "../core/errors.ts";

// Which build this is. scripts/build.ts defines MEMSYNC_EDITION ("main" or "edge"); run from
// source it is undefined, and that is the main build. The edge build leaves maintenance out.
//
// Code that must vanish from the edge binary writes the condition out on the defined name itself
// (`typeof MEMSYNC_EDITION === "string" && MEMSYNC_EDITION === "edge"`), where it is used: the
// bundler folds that while parsing, but does not fold a constant exported from here across the
// bundle. IS_EDGE is for behaviour, not for leaving code out.

declare const MEMSYNC_EDITION: string | undefined;

export const IS_EDGE = typeof MEMSYNC_EDITION === "string" && MEMSYNC_EDITION === "edge";

export type Edition = "main" | "edge";

export const EDITION: Edition = IS_EDGE ? "edge" : "main";

/** The refusal of a maintenance operation by the edge build (unavailable, exit 6). */
export function edgeRefusal(command: string): MemsyncError {
  return new MemsyncError(
    "unavailable",
    `${command} is maintenance, which this edge build (memsync-edge) leaves out: run it with the main build (memsync) on the store's maintainer machine`,
  );
}
