import fs from "node:fs";
import path from "node:path";
import { invalidInput } from "../core/errors.ts";

// Files memsync writes for the user (export's files, promote's vault notes) go outside the store:
// inside it they would sit among the records (a note in memories/, a backup holding local
// memories) where a commit or a `git add` takes them. The check follows symbolic links, so a link
// from outside into the store (./out -> ~/.memsync/memories) is inside too.

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** Where a path really is: its deepest existing folder with every link followed, then the rest. */
function realTarget(p: string): string {
  const abs = path.resolve(p);
  let at = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(at), ...rest);
    } catch {
      const up = path.dirname(at);
      if (up === at) return abs;
      rest.unshift(path.basename(at));
      at = up;
    }
  }
}

export function isInsideStore(target: string, storeRoot: string): boolean {
  return inside(path.resolve(target), path.resolve(storeRoot)) || inside(realTarget(target), realTarget(storeRoot));
}

/** Refuse (invalid input, naming `field`) a target inside the store. */
export function refuseInsideStore(what: string, target: string, storeRoot: string, field: string): void {
  if (isInsideStore(target, storeRoot)) throw invalidInput(`${what}: ${target} is inside the store (${path.resolve(storeRoot)}); give a path outside it`, { fields: [field] });
}
