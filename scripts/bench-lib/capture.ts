// Capture quality (precision, recall, type, entities on the labelled corpus: capture-quality.ts)
// and speed: a prompt is read on every UserPromptSubmit, so extraction must cost next to
// nothing. In-process, on the source under Bun: extraction per prompt over the capture corpus
// (tests/core/data/capture-corpus.json) and over longer composed prompts (several paragraphs,
// a code block, a pasted log), the 50,000-character worst cases, the record-level redaction of a
// long memory; then the compiled binary, cold, for `capture` that stores nothing and that stores.
//
//   bun scripts/bench-lib/capture.ts [--reps 200] [--runs 30]

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { extractCaptures } from "../../src/core/capture/extract.ts";
import { createMemory } from "../../src/core/records.ts";
import { captureQuality, qualityTable } from "./capture-quality.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const BIN = path.join(REPO, "dist/memsync");

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
}

export interface Dist {
  n: number;
  median: number;
  p95: number;
  max: number;
  mean: number;
}

function dist(xs: number[]): Dist {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { n: s.length, median: q(0.5), p95: q(0.95), max: s[s.length - 1]!, mean: s.reduce((a, b) => a + b, 0) / s.length };
}

/** The median of reps timed calls of fn, in ms. */
function timeOne(fn: () => void, reps: number): number {
  const ms: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    fn();
    ms.push(performance.now() - t0);
  }
  return dist(ms).median;
}

function corpusPrompts(): string[] {
  const file = path.join(REPO, "tests/core/data/capture-corpus.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { cases: { text: string }[] }).cases.map((c) => c.text);
}

/** Longer prompts as people write them: several statements, a code block, a log, questions. */
function composedPrompts(base: string[]): string[] {
  const code = "```ts\nexport async function handler(req: Request) {\n  const rows = await db.query('select * from orders limit 50 offset $1', [req.offset]);\n  return Response.json(rows);\n}\n```";
  const log = Array.from({ length: 20 }, (_, i) => `2026-11-21T10:00:${String(i).padStart(2, "0")}Z ERROR pool exhausted (waiting=${i})`).join("\n");
  const out: string[] = [];
  for (let i = 0; i < 40; i++) {
    const pick = (k: number) => base[(i * 7 + k * 13) % base.length]!;
    out.push([pick(0), pick(1), code, pick(2), log, pick(3), pick(4), "Can you look into this and tell me what you think?"].join("\n\n"));
  }
  return out;
}

function worstCases(): Record<string, string> {
  const fill = (unit: string) => unit.repeat(Math.ceil(50_000 / unit.length)).slice(0, 50_000);
  return {
    "50k prose": fill("We decided to use Redis for caching because it is fast, but it needs memory. "),
    "50k one sentence of clauses": fill("let's use redis because it is fast, but not over memcached and "),
    "50k code": fill("const x = require('y');\n"),
    "50k log": fill("2026-11-21T10:00:00Z ERROR connection refused\n"),
    "50k base64": fill("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODkw"),
  };
}

export interface CaptureBench {
  corpus: Dist & { prompts: number; avgChars: number };
  composed: Dist & { prompts: number; avgChars: number };
  worst: Record<string, number>;
  redactRecord50k: number;
  cold: Record<string, Dist>;
}

export function measureCapture(reps: number, runs: number): CaptureBench {
  const base = corpusPrompts();
  const composed = composedPrompts(base);
  for (const p of [...base, ...composed]) extractCaptures(p); // warm the JIT, build the alias index
  const avg = (xs: string[]) => Math.round(xs.reduce((a, b) => a + b.length, 0) / xs.length);
  const corpus = { ...dist(base.map((p) => timeOne(() => extractCaptures(p), reps))), prompts: base.length, avgChars: avg(base) };
  const comp = { ...dist(composed.map((p) => timeOne(() => extractCaptures(p), Math.max(10, reps / 4)))), prompts: composed.length, avgChars: avg(composed) };
  const worst: Record<string, number> = {};
  for (const [k, v] of Object.entries(worstCases())) worst[k] = timeOne(() => extractCaptures(v), 5);
  const long = `Deployment notes. ${"The staging cluster runs on Hetzner; the token is ghp_0123456789abcdefghijABCDEFGHIJ012345. ".repeat(500)}`.slice(0, 50_000);
  const redactRecord50k = timeOne(() => createMemory({ content: long }, "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d", { now: 1, machine: null, user: null }), 10);

  const cold: Record<string, Dist> = {};
  if (fs.existsSync(BIN)) {
    const store = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "memsync-bench-capture-")), "store");
    spawnSync(BIN, ["init", store]);
    const env = { ...process.env, MEMSYNC_MACHINE: "bench" };
    const cases: Record<string, string[]> = {
      "--version (start-up alone)": ["--version"],
      "capture, nothing to store": ["--store", store, "capture", "Can you look at the failing test in the auth module?"],
      "capture --dry-run": ["--store", store, "capture", "--dry-run", base[0]!],
      "capture, stores one": ["--store", store, "capture", base[0]!],
      "capture, hook payload": ["--store", store, "capture"],
    };
    const payload = JSON.stringify({ session_id: "s", cwd: REPO, hook_event_name: "UserPromptSubmit", prompt: base[1] });
    for (const [k, argv] of Object.entries(cases)) {
      const ms: number[] = [];
      for (let i = 0; i < runs + 2; i++) {
        const t0 = performance.now();
        const r = spawnSync(BIN, argv, { env, input: k.includes("hook") ? payload : "", stdio: ["pipe", "ignore", "ignore"] });
        if (r.status !== 0) throw new Error(`${k} exited ${r.status}`);
        if (i >= 2) ms.push(performance.now() - t0);
      }
      cold[k] = dist(ms);
    }
    fs.rmSync(path.dirname(store), { recursive: true, force: true });
  }
  return { corpus, composed: comp, worst, redactRecord50k, cold };
}

const f = (n: number) => (n < 1 ? n.toFixed(3) : n.toFixed(1));

if (import.meta.main) {
  // quality first (labelled corpus, tests/fixtures/capture-corpus.jsonl), then speed
  console.log("capture quality on the labelled corpus (tune: looked at while tuning; holdout: never)");
  console.log(qualityTable(captureQuality()));
  console.log("");
  const r = measureCapture(arg("--reps", 200), arg("--runs", 30));
  const row = (name: string, d: Dist) => `${name.padEnd(34)} median ${f(d.median)} ms   p95 ${f(d.p95)} ms   max ${f(d.max)} ms   mean ${f(d.mean)} ms`;
  console.log(`in-process extraction per prompt (Bun ${Bun.version}, ${os.cpus()[0]?.model ?? "cpu"})`);
  console.log(row(`corpus (${r.corpus.prompts} prompts, ~${r.corpus.avgChars} chars)`, r.corpus));
  console.log(row(`composed (${r.composed.prompts}, ~${r.composed.avgChars} chars)`, r.composed));
  for (const [k, v] of Object.entries(r.worst)) console.log(`${k.padEnd(34)} ${f(v)} ms`);
  console.log(`${"createMemory, 50k content w/ secrets".padEnd(34)} ${f(r.redactRecord50k)} ms`);
  if (Object.keys(r.cold).length) console.log("\ncompiled binary, cold process (spawn to exit)");
  for (const [k, d] of Object.entries(r.cold)) console.log(row(k, d));
}
