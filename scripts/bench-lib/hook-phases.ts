// A cold hook's CPU phase by phase (MEMSYNC_COLD_TRACE=1), for several prompt kinds and one or more
// binaries side by side: each round runs every binary on every prompt once, in a shuffled order,
// each binary on its own settled copy of the store; medians of each phase's CPU ms over the rounds.
// Phases a binary does not mark show as "–" (a binary's trace marks may differ: compare totals).
//
//   bun scripts/bench-lib/hook-phases.ts [--runs 15] [--store .bench/store-10000] [--cwd DIR] NAME=BIN...
//   (the payload's cwd, default this repository: a project no bench memory has, as coldstart.ts's)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { arg, numArg, positionals } from "./args.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const runs = numArg("--runs", 15);
const template = path.resolve(arg("--store", path.join(REPO, ".bench/store-10000")));
const cwd = path.resolve(arg("--cwd", REPO));
const bins = positionals(new Set(["--runs", "--store", "--cwd"])).map((a) => {
  const [name, bin] = a.split("=") as [string, string];
  return { name, bin: path.resolve(bin) };
});
if (bins.length === 0) {
  console.error("usage: hook-phases.ts [--runs N] [--store DIR] NAME=BIN...");
  process.exit(2);
}

export const PHASE_PROMPTS: Record<string, string> = {
  bench: "Why does the billing worker run out of connections during the nightly batch, and how did we fix the timeout?",
  reply: "yes, go on",
  instruction: "refactor the billing worker so it uses the new queue client",
  offtopic: "What's a good recipe for banana bread?",
  // a kind of thing ("database", "cache"): its trigger stands for the products of its categories
  kind: "which database did we pick for the session cache?",
  log: [
    "here's the log from the failed deploy, can you see what went wrong?",
    ...Array.from({ length: 40 }, (_, i) => `2026-11-29T10:${String(10 + (i % 50)).padStart(2, "0")}:0${i % 10}.123Z ${i % 7 === 0 ? "ERROR" : "INFO"} worker-${i % 4} [billing.queue] job ${1000 + i} ${i % 7 === 0 ? "failed: ECONNREFUSED 10.0.3.17:5432 (pool exhausted after 30000ms)" : "processed in " + (20 + i) + "ms"}`),
  ].join("\n"),
};

const W = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-hook-phases-"));
// each binary run from a copy written now, by plain writes: the same page-cache state for all (coldstart.ts freshCopy)
for (const b of bins) {
  const copy = path.join(W, `bin-${b.name}`);
  fs.writeFileSync(copy, fs.readFileSync(b.bin), { mode: 0o755 });
  b.bin = copy;
}
const stores = new Map<string, string>();
for (const { name, bin } of bins) {
  const store = path.join(W, `store-${name}`);
  spawnSync("cp", ["-a", template, store]);
  spawnSync(bin, ["--store", store, "status"]);
  spawnSync("sleep", ["2.1"]);
  spawnSync(bin, ["--store", store, "status"]);
  stores.set(name, store);
}
const env = { ...process.env, MEMSYNC_COLD_TRACE: "1", MEMSYNC_MACHINE: "phase-machine", HOME: W } as Record<string, string>;
// phases[binary][prompt][label] = CPU ms per run
const phases = new Map<string, Map<string, Map<string, number[]>>>();
const order = new Map<string, Map<string, string[]>>();
const shuffle = <T>(xs: T[]) => {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
};
const loads: number[] = [];
for (let r = 0; r < runs + 1; r++) {
  loads.push(os.loadavg()[0]!);
  const jobs = shuffle(bins.flatMap((b) => Object.keys(PHASE_PROMPTS).map((p) => ({ ...b, prompt: p }))));
  for (const job of jobs) {
    const payload = JSON.stringify({ session_id: `ph-${r}`, transcript_path: "/dev/null", cwd, hook_event_name: "UserPromptSubmit", prompt: PHASE_PROMPTS[job.prompt] });
    const out = spawnSync(job.bin, ["--store", stores.get(job.name)!, "hook", "UserPromptSubmit"], { input: payload, env, encoding: "utf8", cwd });
    if (r === 0) continue; // warmup
    const byPrompt = phases.get(job.name) ?? new Map();
    phases.set(job.name, byPrompt);
    const byLabel: Map<string, number[]> = byPrompt.get(job.prompt) ?? new Map();
    byPrompt.set(job.prompt, byLabel);
    const names = order.get(job.name) ?? new Map();
    order.set(job.name, names);
    const seen: string[] = [];
    for (const line of out.stderr.split("\n")) {
      const m = /^memsync cold-trace:\s+([\d.]+) cpu\s+[\d.]+ wall {2}(.*)$/.exec(line);
      if (!m) continue;
      const label = m[2]!;
      seen.push(label);
      byLabel.set(label, [...(byLabel.get(label) ?? []), Number(m[1])]);
    }
    if (!names.has(job.prompt)) names.set(job.prompt, seen);
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
console.log(`hook-phases: ${runs} rounds (+1 warmup), ${template}, load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}, ${new Date().toISOString()}`);
for (const prompt of Object.keys(PHASE_PROMPTS)) {
  const labels: string[] = [];
  for (const { name } of bins) for (const l of order.get(name)?.get(prompt) ?? []) if (!labels.includes(l)) labels.push(l);
  console.log(`\n#### ${prompt}: ${JSON.stringify(PHASE_PROMPTS[prompt]!.slice(0, 70))}${PHASE_PROMPTS[prompt]!.length > 70 ? "…" : ""}\n`);
  console.log(`| phase | ${bins.map((b) => b.name).join(" | ")} |`);
  console.log(`|---|${bins.map(() => "--:").join("|")}|`);
  for (const l of labels) {
    const cells = bins.map(({ name }) => {
      const xs = phases.get(name)?.get(prompt)?.get(l);
      return xs ? median(xs).toFixed(2) : "–";
    });
    console.log(`| ${l} | ${cells.join(" | ")} |`);
  }
}
fs.rmSync(W, { recursive: true, force: true });
