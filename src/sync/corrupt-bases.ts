import fs from "node:fs";
import { LOCAL_DIR } from "../store/layout.ts";
import type { Codec } from "../store/codec.ts";
import { kindOfPath, mergeFileTexts } from "./merge-file.ts";
import { readBlobText } from "./objects.ts";

// A record file that does not parse is left alone by a pull (never rewritten), while the branch
// takes the other machine's version of it. Fixed later (by hand), the file still holds the edit
// made on top of the version before that pull: committed as it was, it silently undid the other
// machine's acknowledged change. So the pull notes, per such path, the version the file was
// written against (its base; .memsync/corrupt-bases.json, machine-local), and the commit that
// finds the file good again merges it, field by field, with the branch's version against that
// base, writing the merged text to the file and committing that. The first base noted for a path
// stays until the file is committed, restored or removed.

const FILE = `${LOCAL_DIR}/corrupt-bases.json`;

type Bases = Record<string, string | null>;

export function readCorruptBases(root: string): Bases {
  try {
    const v = JSON.parse(fs.readFileSync(`${root}/${FILE}`, "utf8")) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Bases) : {};
  } catch {
    return {};
  }
}

function write(root: string, bases: Bases): void {
  if (Object.keys(bases).length === 0) {
    fs.rmSync(`${root}/${FILE}`, { force: true });
    return;
  }
  fs.mkdirSync(`${root}/${LOCAL_DIR}`, { recursive: true });
  const tmp = `${root}/${FILE}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  const fd = fs.openSync(tmp, "w");
  try {
    fs.writeFileSync(fd, `${JSON.stringify(bases, null, 2)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, `${root}/${FILE}`);
}

/** A pull keeps these corrupt files while the branch moves their path from `before` (their base). */
export function rememberCorruptBases(root: string, kept: readonly { path: string; before: string | null }[]): void {
  const bases = readCorruptBases(root);
  let added = false;
  for (const k of kept) {
    if (Object.hasOwn(bases, k.path)) continue; // the earliest base is what the file was written on
    bases[k.path] = k.before;
    added = true;
  }
  if (added) write(root, bases);
}

export function forgetCorruptBases(root: string, paths: Iterable<string>): void {
  const bases = readCorruptBases(root);
  let removed = false;
  for (const p of paths) if (Object.hasOwn(bases, p) && delete bases[p]) removed = true;
  if (removed) write(root, bases);
}

/**
 * The text to commit for a kept path now good again: `text` merged with the branch's version
 * (`head`, a blob) against the base the pull noted; null when the merge leaves conflict markers
 * (the file is then committed as it is, as before).
 */
export async function mergeWithBranch(codec: Codec, gitdir: string, path: string, base: string | null, text: string, head: string | null): Promise<string | null> {
  if (head === null || head === base) return text; // the branch removed it (an edit wins), or never moved
  const [baseText, headText] = await Promise.all([base === null ? null : readBlobText(gitdir, base), readBlobText(gitdir, head)]);
  if (headText === null) return text;
  const merged = await mergeFileTexts(codec, kindOfPath(path), baseText, text, headText);
  return merged.clean ? merged.text : null;
}
