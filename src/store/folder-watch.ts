// Linux's inotify, read without waiting: which watched folders had an entry added, removed or
// renamed (or an attribute changed) since the last look. A long-running process (serve, mcp)
// uses it to skip the quick refresh's stat of every record folder when no folder changed
// (store/refresh-watch.ts). The kernel queues an event inside the change's own system call, so a
// change that finished before a request was sent is in the queue when the request reads it; a
// read of an empty queue is one system call (~1 µs) where the stats were ~500.
// Only under Bun on Linux (bun:ffi and glibc); anywhere else there is no watch and every refresh
// stats the folders as before.

/** One event: the watch, what happened (inotify's mask) and the entry's name ("" for the folder itself). */
export interface WatchEvent {
  wd: number;
  mask: number;
  name: string;
}

export interface FolderWatch {
  /** Watch a folder (again: the same watch); false when it cannot be watched (gone, the watch limit reached). */
  add(path: string, parentOnly: boolean): number | null;
  /**
   * The watches with events since the last call; `gone`: those whose folder was removed or moved
   * away (to be watched again by path); `overflow`: the queue overflowed, anything may have changed.
   */
  drain(): { events: WatchEvent[]; gone: Set<number>; overflow: boolean };
  close(): void;
}

// <sys/inotify.h>
const IN_ATTRIB = 0x4;
const IN_CLOSE_WRITE = 0x8;
const IN_MOVED_FROM = 0x40;
const IN_MOVED_TO = 0x80;
const IN_CREATE = 0x100;
const IN_DELETE = 0x200;
const IN_DELETE_SELF = 0x400;
const IN_MOVE_SELF = 0x800;
const IN_Q_OVERFLOW = 0x4000;
const IN_IGNORED = 0x8000;
const IN_ONLYDIR = 0x1000000;
const IN_DONT_FOLLOW = 0x2000000;
const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;
/** A record folder: anything that moves its mtime, an attribute, a file written in place, the folder itself going. */
const RECORDS_MASK = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW;
/** A folder above the record folders: only entries coming and going (a record folder made or removed). */
const PARENT_MASK = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW;

type Libc = {
  inotify_init1(flags: number): number;
  inotify_add_watch(fd: number, path: unknown, mask: number): number;
  read(fd: number, buf: unknown, n: number): number | bigint;
  close(fd: number): number;
};

let libc: { fns: Libc; ptr: (b: Uint8Array) => unknown } | null | undefined;

/** libc through bun:ffi, once; null where that is not available (Deno, not Linux, no glibc). */
async function loadLibc(): Promise<typeof libc> {
  if (libc !== undefined) return libc;
  libc = null;
  if (process.platform !== "linux" || typeof (globalThis as { Bun?: unknown }).Bun === "undefined") return libc;
  try {
    const ffi = await import("bun:ffi");
    const T = ffi.FFIType;
    const lib = ffi.dlopen("libc.so.6", {
      inotify_init1: { args: [T.i32], returns: T.i32 },
      inotify_add_watch: { args: [T.i32, T.ptr, T.u32], returns: T.i32 },
      read: { args: [T.i32, T.ptr, T.u64], returns: T.i64 },
      close: { args: [T.i32], returns: T.i32 },
    });
    libc = { fns: lib.symbols as unknown as Libc, ptr: (b) => ffi.ptr(b) };
  } catch {
    libc = null;
  }
  return libc;
}

/** A new watch, or null where there is none (see the header). */
export async function openFolderWatch(): Promise<FolderWatch | null> {
  const c = await loadLibc();
  if (!c) return null;
  const fd = c.fns.inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return null;
  const buf = new Uint8Array(64 * 1024);
  const view = new DataView(buf.buffer);
  const bufPtr = c.ptr(buf);
  const decoder = new TextDecoder();
  let open = true;
  return {
    add(path, parentOnly) {
      if (!open) return null;
      const wd = c.fns.inotify_add_watch(fd, c.ptr(Buffer.from(`${path}\0`)), parentOnly ? PARENT_MASK : RECORDS_MASK);
      return wd < 0 ? null : wd;
    },
    drain() {
      const events: WatchEvent[] = [];
      const gone = new Set<number>();
      let overflow = !open;
      while (open) {
        const n = Number(c.fns.read(fd, bufPtr, buf.length));
        if (n <= 0) break; // -1: EAGAIN, the queue is empty
        for (let at = 0; at + 16 <= n; at += 16 + view.getUint32(at + 12, true)) {
          const wd = view.getInt32(at, true);
          const mask = view.getUint32(at + 4, true);
          if (mask & IN_Q_OVERFLOW || wd < 0) overflow = true;
          else {
            const len = view.getUint32(at + 12, true);
            let end = at + 16;
            while (end < at + 16 + len && buf[end] !== 0) end++;
            events.push({ wd, mask, name: end > at + 16 ? decoder.decode(buf.subarray(at + 16, end)) : "" });
            if (mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) gone.add(wd);
          }
        }
      }
      return { events, gone, overflow };
    },
    close() {
      if (!open) return;
      open = false;
      c.fns.close(fd);
    },
  };
}
