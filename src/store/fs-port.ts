import fs from "node:fs";
import { renameNoReplace } from "./rename-noreplace.ts";
import { writeAtomicVia } from "./atomic-write.ts";
import { type FileCreator, threadedCreator } from "./parallel-create.ts";

// The store reaches the disk only through this port, so another backing (a browser build over
// IndexedDB, a test double that injects faults) can stand in. It is synchronous on purpose:
// measured on Bun, an awaited stat costs ~40 µs against ~3 µs for statSync, and a refresh stats
// hundreds of folders.

export interface FileStat {
  /** Modification time in whole milliseconds (the precision every runtime reports alike). */
  mtime: number;
  size: number;
  ino: number;
  isDir: boolean;
  isFile: boolean;
}

export interface DirEntry {
  name: string;
  isDir: boolean;
  isFile: boolean;
  /** A symbolic link (isDir and isFile are then false: memsync never follows one when listing). */
  isLink: boolean;
}

/** A file opened for reads by position (the journal, counted a chunk at a time). */
export interface ReadHandle {
  /** The open file's own stat (a rename over its path meanwhile is not seen); birth: its birth time in ms, 0 where unknown. */
  stat(): FileStat & { birth: number };
  /** Bytes read into buf from the file's position (fewer at its end). */
  read(buf: Uint8Array, position: number): number;
  close(): void;
}

export interface StoreFs {
  readText(path: string): string;
  /** null when nothing is at the path. */
  openRead(path: string): ReadHandle | null;
  /** Write and fsync a new file; fails if it exists (temp names are unique). */
  writeNewDurable(path: string, text: string): void;
  /** Write a new file without fsync (made durable later, with others: see syncAll); fails if it exists. */
  writeNew(path: string, text: string): void;
  /** fsync an existing file. */
  fsyncFile(path: string): void;
  /**
   * Make every file written on the file system holding `path` durable at once (syncfs); false
   * when this backing cannot, and the caller must fsync file by file.
   */
  syncAll(path: string): boolean;
  rename(from: string, to: string): void;
  /** A second name for an existing file (a hard link: no data copied, so it works on a full disk). */
  link(existing: string, alias: string): void;
  unlink(path: string): void;
  /**
   * Remove a file without waiting for it (off the calling thread where the backing can): for a
   * leftover no one reads, which a failure leaves for the next cleanup of old temp files.
   */
  unlinkSoon(path: string): void;
  /** rename, but never over something at `to`: false (nothing moved) when `to` exists or `from` does not. */
  renameNoReplace(from: string, to: string): boolean;
  /** Remove an empty folder; false when it is not empty or not there. */
  rmdirIfEmpty(path: string): boolean;
  mkdirp(path: string): void;
  readdir(path: string): DirEntry[];
  /** A folder's entry names alone (cheaper than readdir where lstat follows for each name anyway). */
  readdirNames(path: string): string[];
  /** null when nothing is at the path. */
  stat(path: string): FileStat | null;
  /** A folder's mtime alone (ms, as stat gives it); null when no folder is at the path. */
  folderMtime(path: string): number | null;
  /** The entry itself, a symbolic link not followed; null when nothing is at the path. */
  lstat(path: string): (FileStat & { isLink: boolean }) | null;
  /** Whether the path itself is a symbolic link (false when nothing is there). */
  isLink(path: string): boolean;
  /** Bytes free for writes on the file system holding the path; null when unknown. */
  freeBytes(path: string): number | null;
  /** Make a folder's entries (a rename, an unlink) durable. */
  fsyncDir(path: string): void;
  /** Append to a file (made if missing) and fsync it. */
  appendDurable(path: string, text: string): void;
  /**
   * Where the backing can: new files made off the calling thread (a bulk write's, without fsync;
   * parallel-create.ts). Absent: the caller writes them one by one.
   */
  parallelCreator?(): FileCreator;
}

function isNotFound(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

let syncFs: ((path: string) => boolean) | undefined;

/** Load what nodeFs.syncAll needs (a child process module most commands never use). */
export async function loadSyncAll(): Promise<void> {
  syncFs ??= (await import("./sync-fs.ts")).syncFileSystem;
}

function writeSynced(path: string, flags: "wx" | "a", text: string): void {
  const fd = fs.openSync(path, flags, 0o644);
  // an append that fails (a full disk) is cut back, so no torn line is left for the next
  // append to run on into
  let size: number | undefined;
  try {
    if (flags === "a") size = fs.fstatSync(fd).size;
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
    // a file this append made (the journal, after a commit emptied it): its name must survive a
    // crash too, as its line may be the only durable copy of a write (store/redo.ts)
    if (size === 0) fsyncFolder(path.slice(0, path.lastIndexOf("/")) || ".");
  } catch (e) {
    if (size !== undefined) {
      try {
        fs.ftruncateSync(fd, size);
      } catch {
        // nothing more to do: a reader skips a torn last line
      }
    }
    throw e;
  } finally {
    fs.closeSync(fd);
  }
}

function fsyncFolder(p: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(p, "r");
    fs.fsyncSync(fd);
  } catch {
    // some filesystems refuse fsync on a folder; the rename itself is still atomic
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function openRead(p: string): ReadHandle | null {
  let fd: number;
  try {
    fd = fs.openSync(p, "r");
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
  return {
    stat() {
      const s = fs.fstatSync(fd);
      return { mtime: Math.floor(s.mtimeMs), size: s.size, ino: s.ino, isDir: s.isDirectory(), isFile: s.isFile(), birth: s.birthtimeMs || 0 };
    },
    read: (buf, position) => fs.readSync(fd, buf, 0, buf.length, position),
    close: () => fs.closeSync(fd),
  };
}

/** stat or lstat's answer; undefined when nothing is at the path (ENOTDIR: a file where a folder was expected). */
function statsOf(call: (p: string, o: { throwIfNoEntry: false }) => fs.Stats | undefined, p: string): fs.Stats | undefined {
  try {
    return call(p, { throwIfNoEntry: false });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

export const nodeFs: StoreFs = {
  readText: (p) => fs.readFileSync(p, "utf8"),
  openRead,
  writeNewDurable: (p, text) => writeSynced(p, "wx", text),
  writeNew: (p, text) => fs.writeFileSync(p, text, { flag: "wx", mode: 0o644 }),
  fsyncFile(p) {
    const fd = fs.openSync(p, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  syncAll: (p) => syncFs?.(p) ?? false,
  rename: (a, b) => fs.renameSync(a, b),
  link: (a, b) => fs.linkSync(a, b),
  unlink: (p) => fs.unlinkSync(p),
  unlinkSoon: (p) => void fs.promises.unlink(p).catch(() => {}),
  renameNoReplace,
  rmdirIfEmpty(p) {
    try {
      fs.rmdirSync(p);
      return true;
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "ENOTEMPTY" || code === "EEXIST" || isNotFound(e)) return false;
      throw e;
    }
  },
  mkdirp: (p) => void fs.mkdirSync(p, { recursive: true }),
  readdir: (p) =>
    fs.readdirSync(p, { withFileTypes: true }).map((d) => ({ name: d.name, isDir: d.isDirectory(), isFile: d.isFile(), isLink: d.isSymbolicLink() })),
  readdirNames: (p) => fs.readdirSync(p),
  lstat(p) {
    const s = statsOf(fs.lstatSync, p);
    if (!s) return null;
    return { mtime: Math.floor(s.mtimeMs), size: s.size, ino: s.ino, isDir: s.isDirectory(), isFile: s.isFile(), isLink: s.isSymbolicLink() };
  },
  stat(p) {
    // plain (not bigint) stat: about 15% cheaper, and a full refresh stats every record file.
    // mtime is whole milliseconds; every stat memsync compares comes from here, so they agree.
    const s = statsOf(fs.statSync, p);
    if (!s) return null;
    return { mtime: Math.floor(s.mtimeMs), size: s.size, ino: s.ino, isDir: s.isDirectory(), isFile: s.isFile() };
  },
  folderMtime(p) {
    // a quick refresh stats every shard folder of a kind (475 at 10k for a get) and needs only
    // this: building stat's whole answer was about a third of each such stat's cost (issue 16)
    const s = statsOf(fs.statSync, p);
    return s?.isDirectory() ? Math.floor(s.mtimeMs) : null;
  },
  isLink(p) {
    try {
      return fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  },
  freeBytes(p) {
    try {
      const s = fs.statfsSync(p);
      return s.bavail * s.bsize;
    } catch {
      return null;
    }
  },
  appendDurable: (p, text) => writeSynced(p, "a", text),
  fsyncDir: fsyncFolder,
  parallelCreator: () =>
    threadedCreator((dir, temp, name, text) => {
      writeAtomicVia(nodeFs, dir, temp, name, text, false);
      return nodeFs.stat(`${dir}/${name}`);
    }),
};
