import fs from "node:fs";
import path from "node:path";
import process from "node:process";

// Where a store's warm hook server listens (warm/server.ts): a Unix socket in a folder of this
// user's alone, named by the store. The folder is under XDG_RUNTIME_DIR (the user's own, made
// by the login) or the temp folder, checked without following a link: a directory, owned by
// this user, nobody else's to read or write. Anything else (a link, another owner, wider
// permissions) means no warm path: the hook runs in-process as it always did. Inside such a
// folder nobody else can place a link, so connecting by the name is safe.
//
// A socket's path must fit sun_path (108 bytes on Linux, 104 on macOS, with its NUL): the name
// is a 64-bit hash of the store's real path, and a base folder too long for it is passed over
// for the next (XDG_RUNTIME_DIR, then TMPDIR, then /tmp).

const SUN_PATH_MAX = 103;

/** The private folder's path (not checked, not made): the first base whose socket path fits sun_path. */
function folderPath(vars: { XDG_RUNTIME_DIR?: string | undefined; TMPDIR?: string | undefined }, name: string): string | null {
  const uid = process.getuid?.() ?? 0;
  for (const base of [vars.XDG_RUNTIME_DIR, vars.TMPDIR, "/tmp"]) {
    if (!base || !path.isAbsolute(base)) continue;
    const dir = path.join(base, `memsync-${uid}`);
    if (Buffer.byteLength(path.join(dir, name)) <= SUN_PATH_MAX) return dir;
  }
  return null;
}

/** Whether `dir` is a folder of this user's alone, looked at without following a link. */
function isPrivateFolder(dir: string): boolean {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st || !st.isDirectory()) return false;
  const uid = process.getuid?.();
  return (uid === undefined || st.uid === uid) && (st.mode & 0o077) === 0;
}

/** The store's socket name in its folder: a hash of its real path. */
export function socketName(realRoot: string): string {
  return `${Bun.hash(realRoot).toString(16).padStart(16, "0")}.sock`;
}

export interface Place {
  dir: string;
  socket: string;
}

/**
 * The store's socket, its folder checked (and made, 0700, when `make`); null when there is no
 * safe place for one (see the header). `realRoot`: the store folder's real path.
 */
export function warmPlace(realRoot: string, vars: { XDG_RUNTIME_DIR?: string | undefined; TMPDIR?: string | undefined }, make: boolean): Place | null {
  const name = socketName(realRoot);
  const dir = folderPath(vars, name);
  if (!dir) return null;
  const socket = path.join(dir, name);
  if (make) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST") return null;
    }
  }
  return isPrivateFolder(dir) ? { dir, socket } : null;
}

/** The store folder's real path, or null when it is not there (no store: no server). */
export function realStoreRoot(root: string): string | null {
  try {
    return fs.realpathSync(root);
  } catch {
    return null;
  }
}
