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
// is a 64-bit hash of the store's real path, and a folder too long for it means no warm path.

const SUN_PATH_MAX = 103;

/** The private folder's path (not checked, not made). */
function folderPath(vars: { XDG_RUNTIME_DIR?: string | undefined; TMPDIR?: string | undefined }): string {
  const uid = process.getuid?.() ?? 0;
  const runtime = vars.XDG_RUNTIME_DIR;
  const base = runtime && path.isAbsolute(runtime) ? runtime : vars.TMPDIR && path.isAbsolute(vars.TMPDIR) ? vars.TMPDIR : "/tmp";
  return path.join(base, `memsync-${uid}`);
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
  const dir = folderPath(vars);
  const socket = path.join(dir, socketName(realRoot));
  if (Buffer.byteLength(socket) > SUN_PATH_MAX) return null;
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
