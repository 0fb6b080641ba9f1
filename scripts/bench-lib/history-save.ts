// What journal texts cost a save (issue 10): cold `save` of two compiled binaries side by side on
// the same generated 10k store (each on its own scratch copy), with an empty compiled Bun program
// in the same hyperfine run as the yardstick. Prints hyperfine's table and the medians, and the
// size of the journal line a save appends.
//
//   bun scripts/bench-lib/history-save.ts BEFORE_BINARY AFTER_BINARY [runs]
//
// The store is .bench/store-10000 (made by scripts/bench, or here on first use: same generator,
// same seed). As in scripts/bench, each timed save follows 2.1 s of quiet (hyperfine --prepare):
// one save into a store nobody wrote to in the last seconds. A second run times back-to-back saves.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ensureBenchStore, scratchCopy, settle } from "./generate.ts";
import { emptyBun } from "./empty-bun.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const BENCH = path.join(REPO, ".bench");
const [before, after, runsArg] = process.argv.slice(2);
if (!before || !after) {
  console.error("usage: bun scripts/bench-lib/history-save.ts BEFORE_BINARY AFTER_BINARY [runs]");
  process.exit(2);
}
const runs = Number(runsArg ?? 30);
const store = path.join(BENCH, "store-10000");
await ensureBenchStore(store, 10_000, { fresh: false, seed: 20261121, log: console.log });
if (!fs.existsSync(path.join(store, ".memsync", "committed.json"))) {
  if (spawnSync(after, ["--store", store, "commit"], { stdio: "inherit" }).status !== 0) throw new Error("first commit failed");
}

// the yardstick: an empty program, compiled the way memsync is
const empty = emptyBun(BENCH, path.join(REPO, "node_modules/.bin/bun"));

const copies = { before: `${store}-before`, after: `${store}-after` };
for (const dst of Object.values(copies)) scratchCopy(store, dst);
for (const dst of Object.values(copies)) await settle(dst);

const load = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
function hyperfine(label: string, prepare: string | null): void {
  const json = path.join(BENCH, `history-save-${label}.json`);
  const args = ["-N", "--warmup", "2", "--runs", String(runs), "--export-json", json];
  if (prepare) args.push("--prepare", prepare);
  const text = "Benchmark note: prefer cursor pagination for list endpoints in the search API";
  args.push("-n", "empty-bun", empty);
  args.push("-n", "save-before", `${before} --store ${copies.before} save '${text}' --tag bench`);
  args.push("-n", "save-after", `${after} --store ${copies.after} save '${text}' --tag bench`);
  console.log(`\n${label} (load ${load()} at start)`);
  const r = spawnSync("hyperfine", args, { stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) throw new Error("hyperfine failed");
  const res = JSON.parse(fs.readFileSync(json, "utf8")).results as { command: string; median: number; mean: number; stddev: number; min: number }[];
  const ms = (x: number) => (x * 1000).toFixed(1);
  const base = res.find((x) => x.command === "empty-bun")!.median;
  for (const x of res) console.log(`  ${x.command.padEnd(12)} median ${ms(x.median)} ms  mean ${ms(x.mean)}  σ ${ms(x.stddev)}  min ${ms(x.min)}  ×empty ${(x.median / base).toFixed(2)}`);
  console.log(`  load at end ${load()}`);
}

hyperfine("quiet", "sleep 2.1");
hyperfine("burst", null);

const line = (dir: string) => {
  const lines = fs.readFileSync(path.join(dir, ".memsync", "journal.jsonl"), "utf8").trim().split("\n");
  return Buffer.byteLength(lines.at(-1)!);
};
console.log(`\njournal line of one save: before ${line(copies.before)} bytes, after ${line(copies.after)} bytes`);
