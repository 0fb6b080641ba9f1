import fs from "node:fs";
import path from "node:path";

// Moving a local ref so that a kill at any instant leaves either the old value or the new one:
// the value goes to a temp file in .git itself (never under refs/, where git would list a left-over
// temp as a branch), is fsynced, and renamed over the ref. isomorphic-git's writeRef writes the
// ref file in place, which a kill can leave empty. Local refs are moved only under the store's
// write lock, so memsync processes never race here.

export function writeRefAtomic(gitdir: string, ref: string, oid: string): void {
  if (!/^[0-9a-f]{40}$/.test(oid)) throw new Error(`refusing to write ${ref}: ${oid} is not an object id`);
  const file = path.join(gitdir, ref);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(gitdir, `memsync-ref-${process.pid}-${Math.random().toString(36).slice(2)}.tmp`);
  const fd = fs.openSync(tmp, "wx");
  try {
    fs.writeSync(fd, `${oid}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}
