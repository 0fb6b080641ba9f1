// Where one cold recall spends its CPU, by phase, at each store size: every run is a fresh
// process (this file again, with --one) that opens the bench store, recalls one prompt and prints
// the CPU (user + sys) spent in each store call recall makes; the parent prints the medians.
// Nothing is patched in src/: the store's methods are wrapped in the child only. Which phases
// grow from 1k to 50k is what issue 16's "recall flat with store size" has to cut.
//
//   bun scripts/bench-lib/recall-phases.ts [--sizes 1000,50000] [--runs 9]
//
// The stores are .bench/store-N (generated as recall-bench.ts makes them when missing).

import { spawnSync } from "node:child_process";
import os from "node:os";
import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import { arg } from "./args.ts";
import { statOf } from "./cold.ts";
import { ensureBenchStore } from "./generate.ts";
import { RECALL_PROMPTS } from "./recall-bench.ts";
import { reluctantJit } from "../../src/runtime/jit-policy.ts";
import { boundedFrom, boundedReady } from "../../src/store/impact-postings.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const SEED = 20261121;

/** The bench's three prompts and the paraphrase of the quiet re-measures. */
const PROMPTS: Record<string, string> = { ...RECALL_PROMPTS, paraphrase: "the db keeps dropping connections at night" };

/** The store calls recall makes, each its own phase; everything else in recall is "ranking". */
const CALLS = ["refresh", "countMatches", "countMatchesPassing", "searchWithTerms", "relationsOfTypeTo"] as const;
const PHASES = ["process start", "store open", "refresh", "counts", "search (BM25)", "relations", "ranking", "recall", "whole process"] as const;

type Phases = Record<(typeof PHASES)[number], number>;

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function one(dir: string, query: string): Promise<void> {
  // the JIT policy the binary's recall runs with (src/faces/cli/quick.ts isBrief): under the usual
  // one, compiler threads tier up the loops that grow with the store and count in every phase
  reluctantJit();
  const atStart = cpuMs();
  const { Store } = await import("../../src/store/store.ts");
  const { recall } = await import("../../src/ops/recall.ts");
  const spent: Record<string, number> = {};
  const proto = Store.prototype as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  for (const name of CALLS) {
    const call = proto[name]!;
    proto[name] = async function (this: unknown, ...a: unknown[]) {
      const t = cpuMs();
      try {
        return await call.apply(this, a);
      } finally {
        spent[name] = (spent[name] ?? 0) + cpuMs() - t;
      }
    };
  }
  const t0 = cpuMs();
  const store = await Store.open(dir);
  const t1 = cpuMs();
  await recall(store, { query });
  const t2 = cpuMs();
  store.close();
  const s = (k: string) => spent[k] ?? 0;
  const counts = s("countMatches") + s("countMatchesPassing");
  const out: Phases = {
    "process start": atStart,
    "store open": t1 - t0,
    refresh: s("refresh"),
    counts,
    "search (BM25)": s("searchWithTerms"),
    relations: s("relationsOfTypeTo"),
    ranking: t2 - t1 - s("refresh") - counts - s("searchWithTerms") - s("relationsOfTypeTo"),
    recall: t2 - t1,
    "whole process": cpuMs(),
  };
  console.log(JSON.stringify(out));
}

/**
 * A store large enough for recall's impact postings whose postings were never built (generated
 * stores are: a sync, gc or reindex builds them) answers a narrowed recall through FTS5 instead:
 * the short prompt's search at 50k ~9 ms against ~3 (branch recallflat34). Said, not fixed: the
 * store is the caller's.
 */
function warnUnbuiltPostings(dir: string): void {
  const db = new DatabaseSync(path.join(dir, ".memsync", "index.db"), { readOnly: true });
  try {
    const memories = (db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n;
    if (memories >= boundedFrom() && !boundedReady(db, memories)) console.error(`  ${dir}: recall's impact postings are not built (narrowed recalls take FTS5's path); \`memsync reindex --store ${dir}\` builds them`);
  } catch {
    // an index of another version: the child's open says what is wrong
  } finally {
    db.close();
  }
}

if (import.meta.main) {
  if (process.argv.includes("--one")) {
    await one(arg("--store", ""), arg("--query", ""));
  } else {
    const sizes = arg("--sizes", "1000,50000").split(",").map(Number);
    const runs = Number(arg("--runs", "9"));
    for (const size of sizes) {
      const dir = path.join(REPO, ".bench", `store-${size}`);
      await ensureBenchStore(dir, size, { fresh: false, seed: SEED, log: (l) => console.error(l) });
      warnUnbuiltPostings(dir);
    }
    const load0 = os.loadavg()[0]!;
    const got = new Map<string, Phases[]>();
    // rounds outermost, sizes alternating: both sizes see the same load
    for (let r = -1; r < runs; r++) {
      for (const [name, query] of Object.entries(PROMPTS)) {
        for (const size of sizes) {
          const child = spawnSync(process.execPath, [import.meta.filename, "--one", "--store", path.join(REPO, ".bench", `store-${size}`), "--query", query], { encoding: "utf8", env: { ...process.env, HOME: os.tmpdir() } });
          if (child.status !== 0) throw new Error(`recall-phases: the child failed: ${child.stderr.trim().split("\n").pop()}`);
          if (r >= 0) got.set(`${name} ${size}`, [...(got.get(`${name} ${size}`) ?? []), JSON.parse(child.stdout.trim().split("\n").pop()!) as Phases]);
        }
      }
    }
    console.log(`median CPU ms (user + sys) of ${runs} fresh processes per cell; load ${load0.toFixed(1)}-${os.loadavg()[0]!.toFixed(1)}`);
    console.log(`| phase | ${Object.keys(PROMPTS).map((n) => `${n} ${sizes.map((s) => `${s / 1000}k`).join(" / ")}`).join(" | ")} |`);
    console.log(`|--|${Object.keys(PROMPTS).map(() => "--").join("|")}|`);
    for (const phase of PHASES) {
      const cells = Object.keys(PROMPTS).map((name) => sizes.map((s) => statOf(got.get(`${name} ${s}`)!.map((p) => p[phase])).median.toFixed(1)).join(" / "));
      console.log(`| ${phase} | ${cells.join(" | ")} |`);
    }
  }
}
