// inotify's event bits a write of a record file makes in its folder (<sys/inotify.h>), in a
// module of their own: the store names them for its watch (refresh-watch.ts) without loading the
// watch itself, which only a long-running process does.
export const EV = { CLOSE_WRITE: 0x8, MOVED_FROM: 0x40, MOVED_TO: 0x80, CREATE: 0x100, DELETE: 0x200 } as const;

/** Every bit of EV. */
export const OWN_BITS = EV.CLOSE_WRITE | EV.MOVED_FROM | EV.MOVED_TO | EV.CREATE | EV.DELETE;
