// Re-judge a kept chaos run (scripts/chaos --keep, or a failed run's folder) with today's checker:
// the data checks (checkEffects) over ops.jsonl and the clones as they are on disk. A checker mended
// after a run can then say whether that run's finding was the checker's or the code's, without
// replaying the run (a seed does not replay timings). Repository checks (fsck, status) are not rerun.
//
//   npx bun scripts/chaos-recheck.ts /dev/shm/e6/memsync-chaos-PRLXNc
// Exits 0 when every data check passes, 1 on a finding, 2 on a folder that is not a chaos run.

import fs from "node:fs";
import path from "node:path";
import { checkEffects, readState } from "../tests/chaos/checks.ts";
import type { OpRecord } from "../tests/chaos/harness.ts";

const dir = process.argv[2];
const opsFile = dir ? path.join(dir, "ops.jsonl") : "";
if (!dir || !fs.existsSync(opsFile)) {
  console.error(`chaos-recheck: ${dir ? `no ops.jsonl in ${dir}` : "usage: chaos-recheck.ts RUN_DIR"}`);
  process.exit(2);
}
const records: OpRecord[] = fs
  .readFileSync(opsFile, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l) as OpRecord);
const indexes = fs
  .readdirSync(dir)
  .map((n) => /^clone-(\d+)$/.exec(n)?.[1])
  .filter((n): n is string => n !== undefined)
  .map(Number)
  .sort((a, b) => a - b);
if (indexes.length === 0) {
  console.error(`chaos-recheck: no clone-N folders in ${dir}`);
  process.exit(2);
}
// the harness numbers clones from 0 with no gaps; a gap would misname every finding after it
if (indexes.some((n, i) => n !== i)) {
  console.error(`chaos-recheck: clone folders are not clone-0..clone-${indexes.length - 1} in ${dir}`);
  process.exit(2);
}
const states = indexes.map((i) => readState(path.join(dir, `clone-${i}`)));
const broken = new Set(indexes.filter((i) => records.filter((r) => r.phase === "final" && r.clone === i).at(-1)?.code !== 0));
const notes: string[] = [];
const failures = checkEffects(
  indexes.map((i) => `clone-${i}`),
  states,
  records,
  broken,
  notes,
);
for (const n of notes) console.log(`note: ${n}`);
for (const f of failures) console.log(`FAIL ${f.check}: ${f.message}`);
console.log(`${records.length} records, ${indexes.length} clones${broken.size ? ` (${broken.size} whose last final sync failed)` : ""}: ${failures.length === 0 ? "every data check passes" : `${failures.length} finding(s)`}`);
process.exit(failures.length === 0 ? 0 : 1);
