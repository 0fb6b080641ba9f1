// A full refresh (status, commit, reindex) must find an edit made in place, which leaves its
// folder's mtime as it was, so it stats every record file, as `git status` lstats every path in
// git's index. What it compares those stats with need not be 13,000 rows loaded from SQLite:
// in a folder whose listing cannot have changed (its mtime is the one recorded, and trusted), the
// names are the index's names and each name keeps its inode, so the folder is unchanged exactly
// when every file's (mtime, size) is. Sums of the stamps, made by SQLite per folder on one side
// and while statting on the other, tell that: an edit moves the sum of mtimes (whole, kept exact
// in two parts) or of sizes, and edits that cancel each other there (an mtime set back by one
// file's copy with -p and forward by another's edit, by the same millisecond) still move a mixed
// sum of (inode, mtime, size) terms. A folder whose sums differ, or that holds a racily clean or a
// duplicate file, is compared row by row as before. Every term stays below 2^53, so the sums are
// the same integers in SQLite and in a double.

import { RACY_FINE_MS, RACY_MS } from "./racy.ts";

/** A prime below 2^26: a product of two residues stays below 2^52. */
const P = 67_108_859;
const HIGH = 1_048_576; // 2^20: an mtime in ms split into its high and low parts, each summed exactly

export interface StampSums {
  /** Record files (names ending .json that are files, temp files left out). */
  n: number;
  mtimeHigh: number;
  mtimeLow: number;
  size: number;
  mixed: number;
  /** Rows a plain stat compare cannot settle (racily clean, or set aside as a duplicate). */
  unsure: number;
}

export const emptySums = (): StampSums => ({ n: 0, mtimeHigh: 0, mtimeLow: 0, size: 0, mixed: 0, unsure: 0 });

/** One file's mixed term: the same integer as MIXED_SQL gives for its row. */
export function mixedTerm(mtime: number, size: number, ino: number): number {
  const a = ((mtime % P) * 1021 + (size % P)) % P;
  const b = ((ino % P) * 7919 + 1) % P;
  return (a * b) % P;
}

export function addStamp(sums: StampSums, mtime: number, size: number, ino: number): void {
  sums.n++;
  sums.mtimeHigh += Math.trunc(mtime / HIGH);
  sums.mtimeLow += mtime % HIGH;
  sums.size += size;
  sums.mixed += mixedTerm(mtime, size, ino);
}

export function sameSums(disk: StampSums, indexed: StampSums | undefined): boolean {
  const x = indexed ?? emptySums();
  return x.unsure === 0 && disk.n === x.n && disk.mtimeHigh === x.mtimeHigh && disk.mtimeLow === x.mtimeLow && disk.size === x.size && disk.mixed === x.mixed;
}

const MIXED_SQL = `((((mtime % ${P}) * 1021 + (size % ${P})) % ${P}) * (((ino % ${P}) * 7919 + 1) % ${P})) % ${P}`;

/**
 * The files table's sums per folder for one kind (bound parameter: the kind). `unsure` mirrors
 * refresh.ts: a row not trusted (`trusted(mtime, indexed_at)` false) or a duplicate.
 */
export const FOLDER_SUMS_SQL = `SELECT dir, count(*) AS n, sum(mtime / ${HIGH}) AS mtimeHigh, sum(mtime % ${HIGH}) AS mtimeLow,
  sum(size) AS size, sum(${MIXED_SQL}) AS mixed,
  sum(CASE WHEN problem LIKE 'duplicate%' OR indexed_at - mtime <= (CASE WHEN mtime % 1000 = 0 THEN ${RACY_MS} ELSE ${RACY_FINE_MS} END) THEN 1 ELSE 0 END) AS unsure
  FROM files NOT INDEXED WHERE kind = ? GROUP BY dir`;
