import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { BIN } from "../helpers/env.ts";
import { slowness } from "../helpers/load.ts";
import { runChaos, SHORT_FORM } from "./harness.ts";
import { reportLines } from "./report.ts";

// The short form of the chaos run (scripts/chaos is the long one): 2 clones over a local path and
// 1 over smart HTTP, a few hundred random operations with syncs overlapping writes, same-instant
// touch bursts and SIGKILLed syncs, commits and deletes, and the main build's maintenance on the
// first clone (consolidate --apply, split, gc, gc --archive; killed too); then every acknowledged
// effect must be on
// every clone, the clones identical, fsck and status clean. A random seed each run (printed on
// failure; MEMSYNC_CHAOS_SEED repeats one).

// How much slower than a quiet machine this one is now (1 to 4): runnable processes per core. At
// load 30 on 2 cores a sync can take over a minute and 70 s hold only ~40 operations and 9 kills
// (measured), so the time to reach the minimums, the time a process may take before it counts as
// hung and the test's own timeout stretch by this factor. What is checked does not change, and a
// quiet machine runs exactly as before (10 s of chaos, 60 s per process).
const SLOW = slowness(4);

// its own timeout: up to 55 s of chaos on a quiet machine (10 s, more only to reach the minimums),
// with the set-up and the final syncs; stretched like the rest on a loaded one
test("chaos: 3 clones, a few hundred operations, syncs killed at random, nothing acknowledged is lost", { timeout: Math.round(300_000 * SLOW) }, async () => {
  const seed = process.env.MEMSYNC_CHAOS_SEED ? Number(process.env.MEMSYNC_CHAOS_SEED) : undefined;
  const slow = { graceSeconds: Math.round(SHORT_FORM.graceSeconds! * SLOW), processTimeoutMs: Math.round(SHORT_FORM.processTimeoutMs! * SLOW) };
  const r = await runChaos({ ...SHORT_FORM, ...slow, bin: BIN, keep: true, ...(seed !== undefined ? { seed } : {}) });
  const keep = process.env.MEMSYNC_CHAOS_KEEP === "1";
  if (!keep) fs.rmSync(r.dir, { recursive: true, force: true });
  const report = reportLines(r).join("\n");
  if (process.env.MEMSYNC_CHAOS_VERBOSE === "1") console.log(report);
  assert.equal(r.failures.length, 0, `chaos run failed (seed ${r.options.seed}):\n${report}`);
  // the run did what it claims: kills happened, writes were acknowledged on every clone
  assert.ok(r.records.filter((x) => x.killed).length >= SHORT_FORM.minKills!, report);
  for (const c of r.clones) assert.ok(r.records.some((x) => x.clone === c.index && x.phase === "chaos" && x.code === 0 && x.kind === "touch"), `${c.name} acknowledged no touch`);
});
