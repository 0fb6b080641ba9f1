import { Buffer } from "node:buffer";
import { randomHex } from "./atomic-write.ts";
import type { ReadHandle, StoreFs } from "./fs-port.ts";
import { JOURNAL_FILE, journalEntryOf } from "./journal.ts";
import { LOCAL_DIR } from "./layout.ts";

// The journal's uncommitted changes counted from its bytes: readJournal's count of entries other
// than "rescan" without parsing each (50k memories not yet committed are an 87 MB journal:
// readJournal took 0.5 s of CPU to parse it, this 35 ms to count it). The count is remembered in
// a machine-local cache keyed by the journal's identity and samples of its bytes, so a journal
// that only grew is counted from where the last count stopped (0.1 ms when nothing was added).

/** The cache of the last count (machine-local, rewritten whole; losing it costs one full count). */
export const JOURNAL_COUNT_FILE = `${LOCAL_DIR}/journal-count.json`;

const CHUNK = 1024 * 1024;
const SAMPLE = 64;
const OP = Buffer.from('{"op":"');
const RESCAN = Buffer.from('rescan"');
// a Buffer needle: Bun's Buffer.indexOf(10) searched a 16 MB journal for its newlines in 260 ms,
// this in 1 ms
const NL = Buffer.from("\n");
const CLOSE = 0x7d; // }

/** 1 for an entry other than "rescan", else 0: the line parsed alone. */
function parsedCount(text: string): number {
  const e = journalEntryOf(text);
  return e && e.op !== "rescan" ? 1 : 0;
}

/** The next place at or after `from` where buf holds `needle` (buf.length: nowhere). */
function nextOf(buf: Buffer, needle: Buffer | number, from: number): number {
  const i = buf.indexOf(needle, from);
  return i < 0 ? buf.length : i;
}

/**
 * Entries other than "rescan" among the whole lines of buf (each ending in a newline; bytes after
 * the last newline are not looked at), as readJournal would count them, most without parsing. A
 * line memsync appends is JSON.stringify of an entry whose first key is op, so it begins
 * {"op":", holds that sequence nowhere else (a quote inside a string is escaped) and ends with }.
 * A line torn by a crash and continued by the next append holds it twice; a block a crash left
 * zeroed holds NUL bytes; those and any line out of that frame are parsed alone. (What lies
 * inside a framed line is not checked: a line in the frame that no memsync wrote, invalid
 * inside, would be counted where readJournal skips it.)
 */
export function countWholeLines(buf: Buffer): number {
  let n = 0;
  // where the next {"op":" after a line's start, and the next NUL, are: found once for all lines
  let op = -1;
  let nul = -1;
  for (let s = 0; ; ) {
    const e = buf.indexOf(NL, s);
    if (e < 0) return n;
    if (e > s) {
      if (op <= s) op = nextOf(buf, OP, s + 1);
      if (nul < s) nul = nextOf(buf, 0, s);
      const framed = e - s > OP.length && buf[e - 1] === CLOSE && buf.compare(OP, 0, OP.length, s, s + OP.length) === 0 && op >= e && nul >= e;
      if (!framed) n += parsedCount(buf.toString("utf8", s, e));
      else if (buf.compare(RESCAN, 0, RESCAN.length, s + OP.length, s + OP.length + RESCAN.length) !== 0) n++;
    }
    s = e + 1;
  }
}

function readAt(h: ReadHandle, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = h.read(buf.subarray(got), position + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/**
 * A line longer than a chunk, from `start` (which `first`, a chunk without a newline, begins):
 * its count and the offset after its newline (-1: no newline before `to`, a torn last line).
 */
function countLongLine(h: ReadHandle, start: number, to: number, first: Buffer): { n: number; end: number } {
  let framed = first.compare(OP, 0, OP.length, 0, OP.length) === 0 && first.indexOf(OP, 1) === -1 && first.indexOf(0) === -1;
  const rescan = first.compare(RESCAN, 0, RESCAN.length, OP.length, OP.length + RESCAN.length) === 0;
  // each chunk after the first begins with the last bytes of the one before, so a {"op":" that
  // straddles two chunks is still found
  const overlap = OP.length - 1;
  for (let pos = start + first.length - overlap; pos < to; ) {
    const buf = readAt(h, pos, Math.min(CHUNK, to - pos));
    if (buf.length <= overlap) return { n: 0, end: -1 };
    const nl = buf.indexOf(NL, overlap);
    const upTo = nl < 0 ? buf.length : nl;
    if (framed) {
      const op = buf.indexOf(OP);
      const nul = buf.indexOf(0, overlap);
      if ((op !== -1 && op < upTo) || (nul !== -1 && nul < upTo)) framed = false;
    }
    if (nl >= 0) {
      const end = pos + nl + 1;
      if (framed && buf[nl - 1] === CLOSE) return { n: rescan ? 0 : 1, end };
      // out of the frame: this one line parsed alone, as readJournal would
      return { n: parsedCount(readAt(h, start, end - 1 - start).toString("utf8")), end };
    }
    pos += buf.length - overlap;
  }
  return { n: 0, end: -1 };
}

/** The whole lines of [from, to) (from: a line's start): their count and the offset after the last. */
function countLines(h: ReadHandle, from: number, to: number): { count: number; end: number } {
  let count = 0;
  let lineStart = from;
  while (lineStart < to) {
    const buf = readAt(h, lineStart, Math.min(CHUNK, to - lineStart));
    if (buf.length === 0) break;
    const last = buf.lastIndexOf(NL);
    // the line the chunk ends in is read again from its start by the next read
    if (last >= 0) {
      count += countWholeLines(buf.subarray(0, last + 1));
      lineStart += last + 1;
      continue;
    }
    if (lineStart + buf.length >= to) break; // a torn last line
    const long = countLongLine(h, lineStart, to, buf);
    if (long.end < 0) break;
    count += long.n;
    lineStart = long.end;
  }
  return { count, end: lineStart };
}

const JSON_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The bytes after the last newline (a torn append, or a write not finished): readJournal counts them if they parse. */
function tailCount(h: ReadHandle, from: number, to: number): number {
  if (to <= from) return 0;
  const end = readAt(h, Math.max(from, to - SAMPLE), Math.min(SAMPLE, to - from));
  let i = end.length - 1;
  while (i >= 0 && JSON_SPACE.has(end[i]!)) i--;
  // an entry is a JSON object: its text ends with } (JSON's spaces aside)
  if (i >= 0 && end[i] !== CLOSE) return 0;
  if (i < 0 && to - from <= SAMPLE) return 0;
  return parsedCount(readAt(h, from, to - from).toString("utf8"));
}

interface CountCache {
  ino: number;
  birth: number;
  /** The offset after the last whole line counted. */
  size: number;
  count: number;
  /** base64 of the journal's first bytes and of those before `size` (up to SAMPLE each). */
  head: string;
  tail: string;
}

function readCache(fs: StoreFs, root: string): CountCache | null {
  try {
    const c = JSON.parse(fs.readText(`${root}/${JOURNAL_COUNT_FILE}`)) as Partial<CountCache> | null;
    const nums = [c?.ino, c?.birth, c?.size, c?.count];
    if (!c || !nums.every((x) => typeof x === "number" && Number.isFinite(x) && x >= 0)) return null;
    if (!Number.isInteger(c.size) || !Number.isInteger(c.count) || typeof c.head !== "string" || typeof c.tail !== "string") return null;
    return c as CountCache;
  } catch {
    return null; // missing, unreadable or not ours: counted from the start
  }
}

function samples(h: ReadHandle, size: number): { head: string; tail: string } {
  const head = readAt(h, 0, Math.min(SAMPLE, size)).toString("base64");
  const tail = readAt(h, Math.max(0, size - SAMPLE), Math.min(SAMPLE, size)).toString("base64");
  return { head, tail };
}

/**
 * Where the cached count still holds: the same file (inode and birth time) that only grew since,
 * its first bytes and those before the counted offset unchanged. A commit replaces the journal
 * (a new file, though its inode number may be reused) or removes it; any doubt counts again.
 */
function cachedStart(h: ReadHandle, st: { ino: number; birth: number; size: number }, c: CountCache | null): { from: number; count: number } {
  const none = { from: 0, count: 0 };
  if (!c || c.ino !== st.ino || c.birth !== st.birth || c.size > st.size) return none;
  const now = samples(h, c.size);
  return now.head === c.head && now.tail === c.tail ? { from: c.size, count: c.count } : none;
}

function writeCache(fs: StoreFs, root: string, c: CountCache): void {
  const path = `${root}/${JOURNAL_COUNT_FILE}`;
  // a temp name of the store's kind (status reports one a killed process left); no fsync: a
  // cache lost to a crash is counted again
  const tmp = `${root}/${LOCAL_DIR}/.journal-count.json.${randomHex(6)}.tmp`;
  try {
    fs.writeNew(tmp, JSON.stringify(c));
    fs.rename(tmp, path);
  } catch {
    try {
      fs.unlink(tmp);
    } catch {
      // not made
    }
    // a read-only or full disk: the next status counts again
  }
}

/**
 * Journaled changes not yet committed: readJournal(fs, root).filter((e) => e.op !== "rescan").length,
 * read from the bytes appended since the last count where the cache still holds.
 */
export function countJournal(fs: StoreFs, root: string, remember = true): number {
  const h = fs.openRead(`${root}/${JOURNAL_FILE}`);
  if (!h) return 0;
  try {
    const st = h.stat();
    if (!st.isFile) return 0;
    const cache = readCache(fs, root);
    const start = cachedStart(h, st, cache);
    const { count, end } = countLines(h, start.from, st.size);
    const total = start.count + count;
    // (a store this process may only read: counted, not remembered)
    if (remember && (!cache || end !== start.from || start.from !== cache.size)) {
      writeCache(fs, root, { ino: st.ino, birth: st.birth, size: end, count: total, ...samples(h, end) });
    }
    return total + tailCount(h, end, st.size);
  } finally {
    h.close();
  }
}
