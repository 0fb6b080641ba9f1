import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { BIN } from "../helpers/env.ts";
import { slowness } from "../helpers/load.ts";
import { runChaos, SHORT_FORM } from "./harness.ts";
import { reportLines } from "./report.ts";

// The short form with a serve clone (serve-clone.ts): one local-path clone beside one whose tree a
// `memsync serve` keeps open, written to over HTTP while the CLI writes and syncs on the same tree,
// the server SIGKILLed or SIGTERMed and restarted every second or so. Every acknowledged (2xx)
// write must be on every clone after the final syncs, the server must agree with the files on
// what exists, and no 5xx may come from a server nobody was killing. A random seed each run
// (printed on failure; MEMSYNC_CHAOS_SEED repeats one).

const SLOW = slowness(4);

test("chaos: a serve clone written over HTTP beside CLI writes and syncs, its server killed and restarted: nothing acknowledged is lost", { timeout: Math.round(240_000 * SLOW) }, async () => {
  const seed = process.env.MEMSYNC_CHAOS_SEED ? Number(process.env.MEMSYNC_CHAOS_SEED) : undefined;
  const r = await runChaos({
    ...SHORT_FORM,
    localClones: 1,
    httpClones: 0,
    serveClones: 1,
    serveKillEverySeconds: 1.5,
    ops: 150,
    kills: 6,
    minOps: 30,
    minKills: 4,
    maxSeconds: 8,
    graceSeconds: Math.round(30 * SLOW),
    processTimeoutMs: Math.round(SHORT_FORM.processTimeoutMs! * SLOW),
    bin: BIN,
    keep: true,
    ...(seed !== undefined ? { seed } : {}),
  });
  if (process.env.MEMSYNC_CHAOS_KEEP !== "1") fs.rmSync(r.dir, { recursive: true, force: true });
  const report = reportLines(r).join("\n");
  if (process.env.MEMSYNC_CHAOS_VERBOSE === "1") console.log(report);
  assert.equal(r.failures.length, 0, `chaos run failed (seed ${r.options.seed}):\n${report}`);
  // the run did what it claims: HTTP writes acknowledged, the server killed and started again
  const s = r.serve[0]!;
  assert.ok(s.acknowledged >= 20, report);
  assert.ok(s.crashes + s.stops >= 1 && s.starts >= 2, report);
  assert.ok(s.agreementChecks >= 5 && s.finalCompared >= 5, report);
});
