import fs from "node:fs";
import { randomHex, TEMP_SUFFIX } from "../store/atomic-write.ts";
import { trusted } from "../store/refresh.ts";
import { type Connectivity, checkConnectivity, refsToCheck } from "./connectivity.ts";

// status's object check, remembered. Objects are named by their content and never change; a
// repository that was whole stays whole until an object goes away. So a whole verdict is kept
// (machine-local, beside the index) with what it depends on: the commits the refs name, and the
// state of every place an object can live (each pack file's name, size and mtime; the mtime of the
// objects folder and of each objects/xx folder, which moves when a loose object is added or
// removed; alternates; ctimes too, which no one can set back). While all of that is as it was,
// the walk of some 257 trees and 13,000 blob lookups (at 10k memories) is skipped, as `git status`
// never does it. Any change (a commit, a pull, a repack, an object deleted by hand) means a full
// walk again. A state looked at within the racy window of its last change is not remembered (an
// object removed in the same clock tick could leave the times as they were): the store's rule
// for folders (store/refresh.ts `trusted`).

const FILE = "objects-checked.json";

interface Saved {
  key: string;
  result: Connectivity;
}

/** What the verdict depends on, as one string; null when a part changed too recently to trust. */
function stateKey(gitdir: string, refs: { ref: string; oid: string }[], nowMs: number): string | null {
  const parts: string[] = refs.map((r) => `${r.ref}=${r.oid}`);
  let settled = true;
  const note = (name: string, st: fs.Stats | undefined, withSize = false) => {
    if (!st) return void parts.push(`${name}:-`);
    for (const t of [st.mtimeMs, st.ctimeMs]) if (!trusted(Math.floor(t), nowMs)) settled = false;
    parts.push(`${name}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}${withSize ? `:${st.size}` : ""}`);
  };
  const objects = `${gitdir}/objects`;
  note("objects", fs.statSync(objects, { throwIfNoEntry: false }));
  let names: string[];
  try {
    names = fs.readdirSync(objects).sort();
  } catch {
    return null;
  }
  for (const n of names) {
    if (n === "pack") {
      note("pack", fs.statSync(`${objects}/pack`, { throwIfNoEntry: false }));
      for (const p of fs.readdirSync(`${objects}/pack`).sort()) note(`pack/${p}`, fs.statSync(`${objects}/pack/${p}`, { throwIfNoEntry: false }), true);
    } else if (n === "info") {
      note("alternates", fs.statSync(`${objects}/info/alternates`, { throwIfNoEntry: false }), true);
    } else if (/^[0-9a-f]{2}$/.test(n)) note(n, fs.statSync(`${objects}/${n}`, { throwIfNoEntry: false }));
  }
  return settled ? parts.join("\n") : null;
}

/** checkConnectivity, or its remembered whole verdict while nothing it depends on has changed. */
export async function checkConnectivityCached(gitdir: string, localDir: string, now: () => number = Date.now, remember = true): Promise<Connectivity> {
  const file = `${localDir}/${FILE}`;
  const startedAt = now();
  const refs = await refsToCheck(gitdir);
  const key = stateKey(gitdir, refs, startedAt);
  if (key !== null) {
    try {
      const saved = JSON.parse(fs.readFileSync(file, "utf8")) as Saved;
      if (saved.key === key) return saved.result;
    } catch {
      // none yet, or unreadable: walk
    }
  }
  const result = await checkConnectivity(gitdir);
  const whole = result.missing.length === 0 && result.broken_packs.length === 0 && result.damaged_refs.length === 0;
  // remembered only when the state did not move during the walk
  // (not on a store this process may only read: a verdict already there is still used)
  if (remember && whole && key !== null && stateKey(gitdir, refs, now()) === key) {
    try {
      // the store's temp name (store/atomic-write.ts): one a killed status leaves is reported, and removed by a later write
      const tmp = `${localDir}/.${FILE}.${randomHex(6)}${TEMP_SUFFIX}`;
      fs.writeFileSync(tmp, `${JSON.stringify({ key, result } satisfies Saved)}\n`);
      fs.renameSync(tmp, file);
    } catch {
      // a cache: not writing it only costs the next status its walk
    }
  }
  return result;
}
