// A full refresh (status, commit, reindex) must find an edit made in place, which leaves its
// folder's mtime as it was, so it stats every record file, as `git status` lstats every path in
// git's index. What it compares those stats with need not be 13,000 rows loaded from SQLite:
// in a folder whose listing cannot have changed (its mtime is the one recorded, and trusted), the
// names are the index's names and each name keeps its inode, so the folder is unchanged exactly
// when every file's (mtime, size) is. Sums of the stamps, kept per folder by triggers on the
// index's files table on one side (dirSumsSchema) and made while statting on the other, tell that: an edit moves the sum of mtimes (whole, kept exact
// in two parts) or of sizes, and edits that cancel each other there (an mtime set back by one
// file's copy with -p and forward by another's edit, by the same millisecond) still move a mixed
// sum of (inode, mtime, size) terms. A folder whose sums differ, or that holds a racily clean or a
// duplicate file, is compared row by row as before. Every term stays below 2^53, so the sums are
// the same integers in SQLite and in a double.

import { RACY_FINE_MS, RACY_MS } from "./racy.ts";

/** A prime below 2^26: a product of two residues stays below 2^52. */
const P = 67_108_859;
const HIGH = 1_048_576; // 2^20: an mtime in ms split into its high and low parts, each summed exactly
/** For folder-scan.ts, which writes addStamp's terms out in its loop. */
export { HIGH as MTIME_SPLIT, P as MIXED_PRIME };

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

/** One row's terms as SQL over a row alias (`NEW`, `OLD`, a table): the same integers addStamp adds. */
function termsSql(r: string): { mtimeHigh: string; mtimeLow: string; size: string; mixed: string; unsure: string } {
  return {
    mtimeHigh: `${r}.mtime / ${HIGH}`,
    mtimeLow: `${r}.mtime % ${HIGH}`,
    size: `${r}.size`,
    mixed: `((((${r}.mtime % ${P}) * 1021 + (${r}.size % ${P})) % ${P}) * (((${r}.ino % ${P}) * 7919 + 1) % ${P})) % ${P}`,
    // mirrors refresh.ts: a row not trusted (`trusted(mtime, indexed_at)` false) or a duplicate
    unsure: `(CASE WHEN ${r}.problem LIKE 'duplicate%' OR ${r}.indexed_at - ${r}.mtime <= (CASE WHEN ${r}.mtime % 1000 = 0 THEN ${RACY_MS} ELSE ${RACY_FINE_MS} END) THEN 1 ELSE 0 END)`,
  };
}

/**
 * The sums per folder and kind, kept by triggers on the files table (index version 8), so a full
 * refresh reads one small row per folder instead of summing the whole files table (~40 ms of a
 * status's CPU at 10k, growing with the store). A row whose count falls to 0 is dropped.
 */
export function dirSumsSchema(): string {
  // made when asked (an index's creation or upgrade), not at module load: see indexCountsSchema
  const add = (r: string) => {
    const t = termsSql(r);
    return `INSERT INTO dir_sums(kind, dir, n, mtime_high, mtime_low, size, mixed, unsure)
    VALUES (${r}.kind, ${r}.dir, 1, ${t.mtimeHigh}, ${t.mtimeLow}, ${t.size}, ${t.mixed}, ${t.unsure})
    ON CONFLICT(kind, dir) DO UPDATE SET n = n + 1, mtime_high = mtime_high + excluded.mtime_high, mtime_low = mtime_low + excluded.mtime_low,
      size = size + excluded.size, mixed = mixed + excluded.mixed, unsure = unsure + excluded.unsure;`;
  };
  const remove = (r: string) => {
    const t = termsSql(r);
    return `UPDATE dir_sums SET n = n - 1, mtime_high = mtime_high - ${t.mtimeHigh}, mtime_low = mtime_low - ${t.mtimeLow},
      size = size - ${t.size}, mixed = mixed - ${t.mixed}, unsure = unsure - ${t.unsure} WHERE kind = ${r}.kind AND dir = ${r}.dir;
    DELETE FROM dir_sums WHERE kind = ${r}.kind AND dir = ${r}.dir AND n = 0;`;
  };
  return `
CREATE TABLE IF NOT EXISTS dir_sums (
  kind TEXT NOT NULL, dir TEXT NOT NULL, n INTEGER NOT NULL, mtime_high INTEGER NOT NULL, mtime_low INTEGER NOT NULL,
  size INTEGER NOT NULL, mixed INTEGER NOT NULL, unsure INTEGER NOT NULL, PRIMARY KEY (kind, dir)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS files_sums_insert AFTER INSERT ON files BEGIN
  ${add("NEW")}
END;
CREATE TRIGGER IF NOT EXISTS files_sums_delete AFTER DELETE ON files BEGIN
  ${remove("OLD")}
END;
CREATE TRIGGER IF NOT EXISTS files_sums_update AFTER UPDATE OF dir, kind, mtime, size, ino, indexed_at, problem ON files BEGIN
  ${remove("OLD")}
  ${add("NEW")}
END;`;
}

/** The sums made again from the files table (an upgrade to version 8; a check of the triggers). */
export function dirSumsFromFiles(): string {
  const t = termsSql("f");
  return `SELECT f.kind AS kind, f.dir AS dir, count(*) AS n, sum(${t.mtimeHigh}) AS mtime_high, sum(${t.mtimeLow}) AS mtime_low,
  sum(${t.size}) AS size, sum(${t.mixed}) AS mixed, sum(${t.unsure}) AS unsure FROM files f GROUP BY f.kind, f.dir`;
}

/** One kind's sums per folder (bound parameter: the kind), in StampSums' names. */
export const FOLDER_SUMS_SQL = "SELECT dir, n, mtime_high AS mtimeHigh, mtime_low AS mtimeLow, size, mixed, unsure FROM dir_sums WHERE kind = ?";
