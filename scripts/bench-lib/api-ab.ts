// Builds of `memsync serve` side by side in one run (issues 11-12: a change to request speed,
// measured before/after on the same loaded machine): each on its own copy of the 10k benchmark
// store, the same requests to each in alternation, so load changes hit both alike. Per operation:
// p50/p99 at a fixed 100 requests/s and at full speed, and the server's CPU ms per request
// (/proc/PID/stat); start to the first answer of GET /v1/health and of a get; MCP tools/call
// (search, recall, get, save over /mcp; open_nodes over /mcp/memory) p50/p99 and CPU per call.
//
//   bun scripts/bench-lib/api-ab.ts --side NAME=BIN --side NAME=BIN [...] [--floor] [--duration 5] [--starts 6] [--calls 200] [--warm 500] [--ops get,recall,touch,save]
//
// --floor: the floor of api-bench.ts (a minimal Hono app compiled the same way, api-floor.ts) as
// one more side, taking the same HTTP requests; it has no MCP, so its MCP cells are empty.
// --warm: requests of each operation to each server before it is timed (api-bench.ts WARM_REQUESTS).
//
// Prints Markdown. The store comes from .bench/store-10000 (made by scripts/bench if missing).

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { bodyMaker, cannon, check, cpuMs, ensureFloor, OPS, type Op, type Run, sampleIds, startServer, WARM_REQUESTS } from "./api-bench.ts";
import { loadAverage } from "./cold.ts";
import { ensureBenchStore, scratchCopy, settle } from "./generate.ts";
import { RECALL_PROMPTS } from "./recall-bench.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const BENCH_DIR = path.join(REPO, ".bench");
const log = (line: string) => console.error(`[ab ${new Date().toISOString().slice(11, 19)}] ${line}`);

function opt(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const num = (name: string, d: number) => Number(opt(name) ?? d);
const given = process.argv.flatMap((a, i) => (a === "--side" ? [process.argv[i + 1] ?? ""] : []));
if (given.length < 2 || given.some((v) => !v.includes("="))) throw new Error("give two or more --side NAME=BIN");
const SIDES = given.map((v) => ({ name: v.slice(0, v.indexOf("=")), bin: path.resolve(v.slice(v.indexOf("=") + 1)) }));
if (process.argv.includes("--floor")) SIDES.push({ name: "floor", bin: ensureFloor() });
const hasMcp = (name: string) => !(process.argv.includes("--floor") && name === "floor");
const A = SIDES[0]!;
const duration = num("--duration", 5);
const starts = num("--starts", 6);
const calls = num("--calls", 200);
const warm = num("--warm", WARM_REQUESTS);
const ops = (opt("--ops") ?? OPS.join(",")).split(",") as Op[];
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]! : Number.NaN;
};
const f = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x.toFixed(1)) : "–");

const src = path.join(BENCH_DIR, "store-10000");
await ensureBenchStore(src, 10_000, { fresh: false, seed: 20261121, log });
if (!fs.existsSync(path.join(src, ".memsync", "committed.json"))) {
  log("first commit of the generated store");
  spawnSync(A.bin, ["--store", src, "commit"], { stdio: "ignore" });
}
const home = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-ab-home-"));
const ids = sampleIds(src);
const sides = SIDES.map((s, i) => ({ ...s, store: path.join(BENCH_DIR, `ab-${i}`) }));
for (const s of sides) {
  scratchCopy(src, s.store);
  await settle(s.store);
}
const loadStart = loadAverage();
const t0 = performance.now();

// start-up, alternating
const startFirst: Record<string, { health: number[]; get: number[] }> = Object.fromEntries(SIDES.map((s) => [s.name, { health: [], get: [] }]));
for (let i = 0; i <= starts; i++) {
  for (const s of sides) {
    const h = await startServer(s.name, [s.bin, "--store", s.store, "serve"], home);
    await h.stop();
    const g = await startServer(s.name, [s.bin, "--store", s.store, "serve"], home, { path: "get", body: JSON.stringify({ ids: [ids[0]] }) });
    await g.stop();
    if (i === 0) continue;
    startFirst[s.name]!.health.push(h.firstMs);
    startFirst[s.name]!.get.push(g.firstMs);
  }
}
log("starts done");

const servers = await Promise.all(sides.map((s) => startServer(s.name, [s.bin, "--store", s.store, "serve"], home, { path: "get", body: JSON.stringify({ ids: [ids[0]] }) })));
const rate: Record<string, Record<string, Run>> = {};
const full: Record<string, Record<string, Run>> = {};
const mcp: Record<string, Record<string, { p50: number; p99: number; cpu: number }>> = {};
const tag = Date.now().toString(36);
let k = 0;
try {
  for (const op of ops) {
    const make = bodyMaker(op, ids, tag);
    rate[op] = {};
    full[op] = {};
    for (const s of servers) {
      await check(s, op, make(k++));
      await cannon(s, op, make, { amount: warm, connections: 1 });
    }
    for (const s of servers) rate[op][s.name] = await cannon(s, op, make, { duration, connections: 1, rate: 100 });
    for (const s of servers) full[op][s.name] = await cannon(s, op, make, { duration, connections: 10 });
    log(`${op}: ${servers.map((s) => `${s.name} p99 ${f(rate[op]![s.name]!.p99)} ms, full ${f(full[op]![s.name]!.rps)}/s`).join("; ")}`);
  }
  // MCP tools/call over /mcp (the memsync profile) and /mcp/memory, one call at a time
  const tools: [string, string, (i: number) => Record<string, unknown>][] = [
    ["/mcp", "search", () => ({ query: RECALL_PROMPTS.short })],
    ["/mcp", "recall", () => ({ query: RECALL_PROMPTS.prompt })],
    ["/mcp", "get", (i) => ({ ids: [ids[i % ids.length]] })],
    ["/mcp", "save", (i) => ({ memory: { content: `MCP benchmark note ${tag}-${i}: retry the flaky upload with backoff`, tags: ["bench"] } })],
    // the memory profile's graph of 50 entities (made by the first call, as mcp-http.ts makes it)
    ["/mcp/memory", "open_nodes", (i) => ({ names: [`E${i % 50}`, `E${(i * 7) % 50}`] })],
  ];
  const graph = { entities: Array.from({ length: 50 }, (_, i) => ({ name: `E${i}`, entityType: "bench", observations: [`o${i}`] })) };
  for (const s of servers) mcp[s.name] = {};
  for (const [p, tool, args] of tools) {
    for (const s of servers.filter((x) => hasMcp(x.name))) {
      const c = new Client({ name: "ab", version: "1" });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${s.url}${p}`)));
      if (tool === "open_nodes") await c.callTool({ name: "create_entities", arguments: graph });
      const first = await c.callTool({ name: tool, arguments: args(0) });
      if (first.isError) throw new Error(`${s.name} ${tool}: ${JSON.stringify(first.content).slice(0, 300)}`);
      for (let i = 0; i < 10; i++) await c.callTool({ name: tool, arguments: args(i) });
      const times: number[] = [];
      const cpu0 = cpuMs(s.pid);
      for (let i = 0; i < calls; i++) {
        const t = performance.now();
        await c.callTool({ name: tool, arguments: args(i) });
        times.push(performance.now() - t);
      }
      mcp[s.name]![tool] = { p50: pct(times, 0.5), p99: pct(times, 0.99), cpu: (cpuMs(s.pid) - cpu0) / calls };
      await c.close();
    }
    log(`mcp ${tool}: ${servers.filter((x) => hasMcp(x.name)).map((s) => `${s.name} p99 ${f(mcp[s.name]![tool]!.p99)}`).join("; ")}`);
  }
} finally {
  for (const s of servers) await s.stop();
  for (const s of sides) fs.rmSync(s.store, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
}

const names = SIDES.map((s) => s.name);
const cells = (fn: (n: string) => string) => names.map(fn).join(" | ");
const out: string[] = [];
out.push(`${new Date().toISOString().slice(0, 16)}Z, ${os.cpus()[0]?.model ?? "cpu"}, ${os.availableParallelism()} cores; 1-minute load ${loadStart?.toFixed(1)} at the start, ${loadAverage()?.toFixed(1)} at the end; ${((performance.now() - t0) / 1000).toFixed(0)} s. ${names.join(", ")} alternate, each on its own copy of the 10k store.`);
out.push("");
out.push(`| | ${names.join(" | ")} |`);
out.push(`|---|${names.map(() => "--:").join("|")}|`);
out.push(`| start → first GET /v1/health, median of ${starts} (ms) | ${cells((n) => f(pct(startFirst[n]!.health, 0.5)))} |`);
out.push(`| start → first POST /v1/get, median of ${starts} (ms) | ${cells((n) => f(pct(startFirst[n]!.get, 0.5)))} |`);
const bad = (r: Run) => (r.non2xx + r.errors ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : "");
for (const op of ops) {
  const r = rate[op]!;
  const u = full[op]!;
  out.push(`| ${op} at 100/s: p50 / p99 ms, CPU ms/req | ${cells((n) => `${f(r[n]!.p50)} / ${f(r[n]!.p99)}, ${f(r[n]!.cpuPerReq)}${bad(r[n]!)}`)} |`);
  out.push(`| ${op} full speed (10 connections): req/s, p99 ms, CPU ms/req | ${cells((n) => `${f(u[n]!.rps)}, ${f(u[n]!.p99)}, ${f(u[n]!.cpuPerReq)}${bad(u[n]!)}`)} |`);
}
for (const tool of Object.keys(mcp[A.name] ?? {})) {
  out.push(`| MCP tools/call ${tool}: p50 / p99 ms, CPU ms/call | ${cells((n) => (hasMcp(n) ? `${f(mcp[n]![tool]!.p50)} / ${f(mcp[n]![tool]!.p99)}, ${f(mcp[n]![tool]!.cpu)}` : "–"))} |`);
}
console.log(out.join("\n"));
