import fs from "node:fs";
import { mergeRecordTexts } from "../../../ops/merge-file.ts";
import { writeErr } from "../../../runtime/host.ts";

// `memsync merge-driver %O %A %B %P [%L]`, as git calls it: %O the base (empty when both sides
// added the file), %A ours, which receives the result, %B theirs, %P the path in the repo, %L the
// conflict marker size. Exit 0 when the merge is clean, 1 when the file needs a person; never
// above 128 (git treats that as the driver crashing). Bad arguments are a usage error (2).

export const USAGE = "usage: memsync merge-driver <base %O> <ours %A> <theirs %B> [path %P] [marker size %L]";

function read(path: string): string | null {
  try {
    return fs.readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

export async function mergeDriver(args: string[]): Promise<number> {
  const [basePath, oursPath, theirsPath, repoPath] = args;
  if (!basePath || !oursPath || !theirsPath) {
    writeErr(`memsync: ${USAGE}\n`);
    return 2;
  }
  const ours = read(oursPath);
  const theirs = read(theirsPath);
  if (ours === null || theirs === null) {
    writeErr(`memsync: merge-driver cannot read ${ours === null ? oursPath : theirsPath}\n`);
    return 1; // git keeps both versions in its index; the file is left for a person
  }
  try {
    const result = await mergeRecordTexts(repoPath, read(basePath), ours, theirs);
    fs.writeFileSync(oursPath, result.text);
    if (!result.clean) writeErr(`memsync: ${repoPath ?? oursPath}: not a memsync record; merged as text with conflict markers\n`);
    return result.clean ? 0 : 1;
  } catch (e) {
    writeErr(`memsync: merge-driver failed on ${repoPath ?? oursPath}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
