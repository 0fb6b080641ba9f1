import fs from "node:fs";
import { LOCAL_DIR } from "../store/layout.ts";
import type { Connectivity } from "../sync/connectivity.ts";

// The git side of a store's health for `status`: the bounded connectivity check (see
// sync/connectivity.ts; its whole verdict remembered while no object can have gone, see
// sync/connectivity-cache.ts) and the reasons it gives for calling the store degraded.

/** What the connectivity check found, without the refs it walked. */
export type GitObjects = Omit<Connectivity, "refs">;

export async function gitObjectsHealth(root: string, remember = true): Promise<{ objects: GitObjects | null; reasons: string[] }> {
  if (!fs.existsSync(`${root}/.git/HEAD`)) return { objects: null, reasons: [] };
  const { summarizeMissing } = await import("../sync/connectivity.ts");
  const { checkConnectivityCached } = await import("../sync/connectivity-cache.ts");
  const { refs: _, ...objects } = await checkConnectivityCached(`${root}/.git`, `${root}/${LOCAL_DIR}`, Date.now, remember);
  const reasons: string[] = [];
  const n = objects.missing.length;
  if (n) reasons.push(`${n} git object${n === 1 ? " is" : "s are"} missing: ${summarizeMissing(objects.missing)} (run: memsync doctor --repair)`);
  if (objects.broken_packs.length) reasons.push(`unusable git pack files: ${objects.broken_packs.join(", ")} (run: memsync doctor --repair)`);
  for (const ref of objects.damaged_refs) {
    reasons.push(`git ref ${ref} names no commit (its file was cut short)${ref.startsWith("refs/remotes/") ? " (run: memsync doctor --repair)" : ""}`);
  }
  return { objects, reasons };
}
