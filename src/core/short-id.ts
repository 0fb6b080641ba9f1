// A memory's short id, apart from history.ts's commit messages: a get's memory block shows it for a
// conflict (conflict-view.ts), and the settled get need not evaluate the messages (issue 16).

/** The last 8 hex digits: UUIDv7 ids made the same minute share their leading (time) digits. */
export const short = (id: string) => id.slice(-8);
