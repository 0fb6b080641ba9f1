// Whether two memsync binaries give the same answers to hooks (issue 16's cold-start work changes
// how, never what): the hook's exit code, stdout and stderr for each prompt, and the store's record
// files at the end, compared with ids and times taken out. Each binary runs every prompt in turn on
// its own copy of a store (the statements among them are captured, as a session would). The
// prompts: coldstart.ts's, "yes, go on", texts of the capture corpus's tune sets and queries of the
// recall corpus's tune batches (never a held-out set).
//
//   bun scripts/bench-lib/hook-same.ts BEFORE_BIN AFTER_BIN STORE LABEL [N_CAPTURE=80] [N_RECALL=80]
//   (e.g. STORE = .bench/store-10000, as coldstart.ts made it; work copies in /tmp/memsync-hook-same-LABEL)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { CORPUS_QUERIES } from "../../tests/fixtures/recall-corpus/queries.ts";

const [before, after, template, label] = process.argv.slice(2).map((a, i) => (i < 3 ? path.resolve(a) : a)) as [string, string, string, string];
const W = `/tmp/memsync-hook-same-${label}`;
fs.rmSync(W, { recursive: true, force: true });
fs.mkdirSync(W, { recursive: true });
const capture = fs.readFileSync(path.join(import.meta.dirname, "../../tests/fixtures/capture-corpus.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { text: string; set?: string; split?: string })
  .filter((r) => (r.set ?? "").startsWith("tune") || (r.set === undefined && r.split === "tune"));
const recallQs = CORPUS_QUERIES.filter((q) => q.split === "tune" && (q.batch === undefined || q.batch.startsWith("tune")));
const every = <T>(xs: T[], n: number) => xs.filter((_, i) => i % Math.max(1, Math.floor(xs.length / n)) === 0).slice(0, n);
const prompts = [
  "Why does the billing worker run out of connections during the nightly batch, and how did we fix the timeout?",
  "yes, go on",
  ...every(capture, Number(process.argv[6] ?? 80)).map((r) => r.text),
  ...every(recallQs, Number(process.argv[7] ?? 80)).map((q) => q.q),
];
const env = { ...process.env, HOME: W, MEMSYNC_MACHINE: "eq-machine" } as Record<string, string>;
for (const k of Object.keys(env)) if (k.startsWith("MEMSYNC_") && k !== "MEMSYNC_MACHINE") delete env[k];
const run = (bin: string, args: string[], input = "") => spawnSync(bin, args, { input, env, encoding: "utf8", cwd: W });
const norm = (s: string) =>
  s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>").replace(/\b[0-9a-f]{8}\b/g, "<id8>").replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, "<time>");
const stores: Record<string, string> = {};
const outs: Record<string, string[]> = {};
for (const [name, bin] of [["before", before], ["after", after]] as const) {
  const store = `${W}/store-${name}`;
  spawnSync("cp", ["-a", template, store]);
  run(bin, ["--store", store, "status"]);
  spawnSync("sleep", ["2.1"]);
  run(bin, ["--store", store, "status"]);
  stores[name] = store;
  outs[name] = prompts.map((prompt) => {
    const r = run(bin, ["--store", store, "hook", "UserPromptSubmit"], JSON.stringify({ session_id: "eq", transcript_path: "/dev/null", cwd: W, hook_event_name: "UserPromptSubmit", prompt }));
    return `${r.status}\n${norm(r.stdout)}\n${norm(r.stderr)}`;
  });
}
let differ = 0;
let withContext = 0;
for (let i = 0; i < prompts.length; i++) {
  if (outs.before![i] !== outs.after![i]) differ++;
  if (outs.after![i]!.includes("additionalContext")) withContext++;
}
// the record files (not .memsync/ nor .git), each normalized: ids and times out, key order kept
const TIME_KEY = /(?:_at|_used|^at)$/;
const clean = (v: unknown, key = ""): unknown =>
  Array.isArray(v) ? v.map((x) => clean(x)) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, TIME_KEY.test(k) ? "<t>" : clean(x, k)])) : typeof v === "string" ? norm(v) : v;
function records(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const rel = path.relative(root, p);
      if (rel === ".memsync" || rel === ".git") continue;
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".json")) {
        const text = fs.readFileSync(p, "utf8");
        let body: string;
        try {
          body = JSON.stringify(clean(JSON.parse(text)));
        } catch {
          body = norm(text);
        }
        out.push(`${norm(path.dirname(rel)).replace(/\/[0-9a-f]{2}$/, "/<shard>")} ${body}`);
      }
    }
  };
  walk(root);
  return out.sort();
}
const rb = records(stores.before!);
const ra = records(stores.after!);
const sameRecords = rb.length === ra.length && rb.every((x, i) => x === ra[i]);
if (differ > 0 || !sameRecords) process.exitCode = 1;
console.log(`${label}: ${prompts.length} prompts (${withContext} answered with context), hook output differs on ${differ}; record files ${rb.length} / ${ra.length}, ${sameRecords ? "identical" : "DIFFER"} (ids and times aside)`);
if (!sameRecords) {
  const sb = new Set(rb);
  console.log(ra.filter((x) => !sb.has(x)).length, "after-only records");
}
fs.rmSync(W, { recursive: true, force: true });
