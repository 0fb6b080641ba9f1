// The HTTP API (`memsync serve`, issue 11) under autocannon on loopback, on a copy of the 10k
// benchmark store (scripts/bench's generator and seed): requests/s and p50/p99 latency of touch,
// save, recall and get, at a fixed 100 requests/s and at full speed; the server's CPU time per
// request (/proc/PID/stat); server start to first answer. Side by side in the same run, for
// ratios: a minimal Hono app on Bun.serve compiled the same way (api-floor.ts, the floor) taking
// the same requests, and the CLI's cold commands doing the same operations.
//
//   bun scripts/bench-lib/api-bench.ts [--size 10000] [--duration 10] [--connections 10] [--starts 20] [--runs 10] [--json]
//
// Prints Markdown (scripts/bench copies it into docs/benchmarks.md). Targets: recall p99 <= 15 ms
// and touch p99 <= 10 ms at 100 requests/s; sustained save >= 200/s; start <= 150 ms.

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { findHyperfine, loadAverage, measure, type Stat } from "./cold.ts";
import { ensureBenchStore, scratchCopy, settle } from "./generate.ts";
import { RECALL_PROMPTS } from "./recall-bench.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const BENCH_DIR = path.join(REPO, ".bench");
const BIN = path.join(REPO, "dist/memsync");
const FLOOR_SRC = path.join(import.meta.dirname, "api-floor.ts");
const FLOOR_BIN = path.join(BENCH_DIR, "api-floor");
const SEED = 20261121;

export const OPS = ["get", "recall", "touch", "save"] as const;
export type Op = (typeof OPS)[number];
export const TARGETS = { recallP99: 15, touchP99: 10, saveRate: 200, start: 150 };

/**
 * Requests of each operation before it is timed. A server runs for days: what it answers at a
 * steady rate is the figure, not its first requests (a fresh server's first ~1,000 recalls take
 * ~6 ms of CPU each while the JIT and its kept terms warm up, later ones ~4.3).
 */
export const WARM_REQUESTS = 500;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const n = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} takes a positive number`);
  return n;
}

const log = (line: string) => console.error(`[api ${new Date().toISOString().slice(11, 19)}] ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Nearest-rank percentile of sorted values. */
function pct(sorted: number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

// --- the servers -------------------------------------------------------------------------------

/** The floor, compiled with scripts/build.ts's flags; rebuilt when its source is newer. */
export function ensureFloor(): string {
  if (fs.existsSync(FLOOR_BIN) && fs.statSync(FLOOR_BIN).mtimeMs >= fs.statSync(FLOOR_SRC).mtimeMs) return FLOOR_BIN;
  log("compiling the floor (api-floor.ts)");
  const r = spawnSync(process.execPath, ["build", "--compile", "--bytecode", "--format=esm", "--minify", "--splitting", "--sourcemap=none", FLOOR_SRC, "--outfile", FLOOR_BIN], { cwd: REPO, stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error("could not compile the floor");
  return FLOOR_BIN;
}

export function serverEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("MEMSYNC_")) env[k] = v;
  return { ...env, HOME: home, MEMSYNC_MACHINE: "bench-host" };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Running {
  name: string;
  url: string;
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Start a server (argv without --listen) and time spawn → listening line and spawn → first 200 of
 * the probe, polled every millisecond: GET /v1/health (the store's status), or a get of one memory.
 */
export async function startServer(name: string, argv: string[], home: string, probe: { path: string; body?: string } = { path: "health" }): Promise<Running & { listenMs: number; firstMs: number }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(argv[0]!, [...argv.slice(1), "--listen", `127.0.0.1:${port}`], { env: serverEnv(home), cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  let listenMs = Number.NaN;
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) => child.on("close", (code) => ((exited = code), resolve())));
  child.stdout!.on("data", (d) => {
    out += d;
    if (Number.isNaN(listenMs) && /listening on http/.test(out)) listenMs = performance.now() - t0;
  });
  child.stderr!.on("data", (d) => (err += d));
  let firstMs = Number.NaN;
  while (Number.isNaN(firstMs)) {
    if (exited !== undefined) throw new Error(`${name} exited ${exited} before answering: ${err.trim().slice(0, 500)}`);
    if (performance.now() - t0 > 60_000) {
      child.kill("SIGKILL");
      throw new Error(`${name} did not answer /v1/${probe.path} within 60 s`);
    }
    try {
      const r = await fetch(`${url}/v1/${probe.path}`, probe.body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: probe.body });
      await r.arrayBuffer();
      if (r.status === 200) firstMs = performance.now() - t0;
      else throw new Error(`${name}: /v1/${probe.path} answered ${r.status}`);
    } catch (e) {
      if (e instanceof Error && e.message.includes("answered")) {
        child.kill("SIGKILL");
        throw e;
      }
      await sleep(1); // not listening yet
    }
  }
  const stop = async () => {
    if (exited === undefined) child.kill("SIGTERM");
    await exit;
  };
  return { name, url, child, pid: child.pid!, stop, listenMs, firstMs };
}

// --- the requests ------------------------------------------------------------------------------

/**
 * 200 memory ids to spread touch and get over, evenly through the store's history (ids are time
 * ordered), so flat and sharded ones in their proportion: a write re-checks the folder it wrote
 * in, and the flat folder holds ~900 files where a shard holds ~35.
 */
export function sampleIds(store: string): string[] {
  const all = fs
    .readdirSync(path.join(store, "memories"), { recursive: true })
    .map(String)
    .filter((n) => n.endsWith(".json"))
    .map((n) => path.basename(n, ".json"))
    .sort();
  const step = Math.max(1, Math.floor(all.length / 200));
  return all.filter((_, i) => i % step === 0).slice(0, 200);
}

/** The JSON body of the k-th request of an operation. */
export function bodyMaker(op: Op, ids: string[], tag: string): (k: number) => string {
  switch (op) {
    case "get":
      return (k) => JSON.stringify({ ids: [ids[k % ids.length]] });
    case "touch":
      return (k) => JSON.stringify({ ids: [ids[k % ids.length]] });
    case "recall":
      return () => JSON.stringify({ query: RECALL_PROMPTS.prompt });
    case "save":
      return (k) => JSON.stringify({ memory: { content: `API benchmark note ${tag}-${k}: prefer cursor pagination for list endpoints of the orders API`, tags: ["bench"] } });
  }
}

/** utime + stime of a process, in ms. */
const TICK_MS = 1000 / (Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100);
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * TICK_MS; // fields 14 and 15 of proc(5), after pid and comm
}
function rssMiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

export interface Run {
  completed: number;
  non2xx: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  cpuPerReq: number;
  load: number | undefined;
}

let counter = 0;

/** One autocannon run; latency percentiles from every 2xx response's own time (not autocannon's integer-ms histogram). */
export async function cannon(s: Running, op: Op, make: (k: number) => string, o: { duration?: number; amount?: number; connections: number; rate?: number }): Promise<Run> {
  const lat: number[] = [];
  let non2xx = 0;
  const cpu0 = cpuMs(s.pid);
  const t0 = performance.now();
  const inst = autocannon({
    url: s.url,
    connections: o.connections,
    ...(o.duration ? { duration: o.duration } : {}),
    ...(o.amount ? { amount: o.amount } : {}),
    // percentiles come from the responses below; autocannon's correction for coordinated
    // omission would add made-up samples to its own histogram only
    ...(o.rate ? { overallRate: o.rate, ignoreCoordinatedOmission: true } : {}),
    timeout: 60,
    requests: [{ method: "POST", path: `/v1/${op}`, headers: { "content-type": "application/json" }, setupRequest: (req) => ({ ...req, body: make(counter++) }) }],
  });
  inst.on("response", (_c, status, _b, ms) => {
    if (status >= 200 && status < 300) lat.push(ms);
    else non2xx++;
  });
  const res = await inst;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuMs(s.pid) - cpu0;
  lat.sort((a, b) => a - b);
  const completed = lat.length + non2xx;
  return { completed, non2xx, errors: res.errors, seconds, rps: lat.length / seconds, p50: pct(lat, 0.5), p90: pct(lat, 0.9), p99: pct(lat, 0.99), max: lat.at(-1) ?? Number.NaN, cpuPerReq: cpu / Math.max(1, completed), load: loadAverage() };
}

/** One request by fetch: it must answer 200 (a benchmark of errors would measure nothing). */
export async function check(s: Running, op: Op, body: string): Promise<void> {
  const r = await fetch(`${s.url}/v1/${op}`, { method: "POST", headers: { "content-type": "application/json" }, body });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${s.name}: POST /v1/${op} answered ${r.status}: ${text.slice(0, 300)}`);
}

// --- the run -----------------------------------------------------------------------------------

export interface ApiBenchResult {
  date: string;
  /** The commit dist/memsync was built from (its working tree may differ: see scripts/bench's ensureBinary). */
  commit: string;
  machine: string;
  loadAtStart: number | undefined;
  loadAtEnd: number | undefined;
  duration: number;
  connections: number;
  store: { size: number; memories: number; relations: number };
  start: Record<"memsync" | "floor", { listen: number[]; first: number[]; firstGet: number[] }>;
  rate: Record<Op, Record<"memsync" | "floor", Run>>;
  full: Record<Op, Record<"memsync" | "floor", Run>>;
  rss: Record<"memsync" | "floor", number>;
  cli: Record<Op, Stat>;
  seconds: number;
}

export async function measureApi(o: { size: number; duration: number; connections: number; starts: number; runs: number }): Promise<ApiBenchResult> {
  const SIZE = o.size;
  const T0 = performance.now();
  const loadAtStart = loadAverage();
  if (!fs.existsSync(BIN)) throw new Error("dist/memsync is missing: npm run build (scripts/bench builds it when needed)");
  fs.mkdirSync(BENCH_DIR, { recursive: true });
  const src = path.join(BENCH_DIR, `store-${SIZE}`);
  const { manifest } = await ensureBenchStore(src, SIZE, { fresh: false, seed: SEED, log });
  // as scripts/bench does: the generated store is committed once, so copies start clean
  if (!fs.existsSync(path.join(src, ".memsync", "committed.json"))) {
    log("first commit of the generated store");
    const r = spawnSync(BIN, ["--store", src, "commit"], { stdio: "ignore" });
    if (r.status !== 0) throw new Error(`memsync commit of ${src} failed`);
  }
  const floor = ensureFloor();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-api-bench-home-"));
  const ids = sampleIds(src);
  const tag = Date.now().toString(36);

  // the CLI first, on its own copy, before any server runs
  const cliStore = path.join(BENCH_DIR, `api-cli-${SIZE}`);
  scratchCopy(src, cliStore);
  await settle(cliStore);
  const hf = findHyperfine();
  const jsonDir = path.join(BENCH_DIR, "hyperfine");
  fs.mkdirSync(jsonDir, { recursive: true });
  const on = (...rest: string[]) => [BIN, "--store", cliStore, ...rest];
  const cliCases: Record<Op, string[]> = {
    get: on("get", ids[0]!),
    recall: on("recall", RECALL_PROMPTS.prompt),
    touch: on("touch", ids[1]!),
    save: on("save", "API benchmark note saved by the CLI: prefer cursor pagination for list endpoints of the orders API", "--tag", "bench"),
  };
  const cli = {} as Record<Op, Stat>;
  for (const op of OPS) {
    cli[op] = measure({ key: `api-cli-${op}`, argv: cliCases[op] }, { runs: o.runs, warmup: 2, hyperfine: hf, jsonDir });
    log(`cli ${op}: median ${cli[op].median.toFixed(1)} ms, CPU ${((cli[op].user ?? Number.NaN) + (cli[op].system ?? Number.NaN)).toFixed(1)} ms`);
  }
  fs.rmSync(cliStore, { recursive: true, force: true });

  // the servers' store: another copy, settled
  const apiStore = path.join(BENCH_DIR, `api-${SIZE}`);
  scratchCopy(src, apiStore);
  await settle(apiStore);
  const argvOf = { memsync: [BIN, "--store", apiStore, "serve"], floor: [floor] };

  // start-up, alternating the two so load changes hit both alike
  const start: ApiBenchResult["start"] = { memsync: { listen: [], first: [], firstGet: [] }, floor: { listen: [], first: [], firstGet: [] } };
  const getProbe = { path: "get", body: JSON.stringify({ ids: [ids[0]] }) };
  for (let i = 0; i < o.starts + 1; i++) {
    for (const name of ["memsync", "floor"] as const) {
      const s = await startServer(name, argvOf[name], home);
      await s.stop();
      if (i === 0) continue; // one untimed round: page cache
      start[name].listen.push(s.listenMs);
      start[name].first.push(s.firstMs);
      // every other round, also to the first answer of a get: the server's start without the status health runs
      if (i % 2) {
        const g = await startServer(name, argvOf[name], home, getProbe);
        await g.stop();
        start[name].listen.push(g.listenMs);
        start[name].firstGet.push(g.firstMs);
      }
    }
  }
  log(`start: memsync median ${pct([...start.memsync.first].sort((a, b) => a - b), 0.5).toFixed(1)} ms, floor ${pct([...start.floor.first].sort((a, b) => a - b), 0.5).toFixed(1)} ms`);

  const servers = { memsync: await startServer("memsync", argvOf.memsync, home), floor: await startServer("floor", argvOf.floor, home) };
  const rate = {} as ApiBenchResult["rate"];
  const full = {} as ApiBenchResult["full"];
  let rss = { memsync: Number.NaN, floor: Number.NaN };
  try {
    // reads first, then writes: touch rewrites existing memories, save adds thousands
    for (const op of OPS) {
      const make = bodyMaker(op, ids, tag);
      rate[op] = {} as Record<"memsync" | "floor", Run>;
      full[op] = {} as Record<"memsync" | "floor", Run>;
      for (const name of ["memsync", "floor"] as const) {
        const s = servers[name];
        await check(s, op, make(counter++));
        await cannon(s, op, make, { amount: WARM_REQUESTS, connections: 1 }); // warm-up
        // autocannon's overallRate is a quota per connection per second: one connection keeps the
        // requests one at a time (several would arrive together at each second's start)
        rate[op][name] = await cannon(s, op, make, { duration: o.duration, connections: 1, rate: 100 });
        full[op][name] = await cannon(s, op, make, { duration: o.duration, connections: o.connections });
        const r = rate[op][name];
        const f = full[op][name];
        log(`${op} ${name}: 100/s p50 ${r.p50.toFixed(2)} p99 ${r.p99.toFixed(2)} ms (${r.rps.toFixed(0)}/s, ${r.non2xx} non-2xx); full ${f.rps.toFixed(0)}/s p99 ${f.p99.toFixed(1)} ms, CPU ${f.cpuPerReq.toFixed(2)} ms/req`);
      }
    }
  } finally {
    rss = { memsync: rssMiB(servers.memsync.pid), floor: rssMiB(servers.floor.pid) };
    await servers.memsync.stop();
    await servers.floor.stop();
  }
  fs.rmSync(apiStore, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    commit: spawnSync("git", ["log", "-1", "--format=%h %s"], { cwd: REPO, encoding: "utf8" }).stdout?.trim().slice(0, 100) || "unknown",
    machine: `${os.cpus()[0]?.model ?? "cpu"}, ${os.availableParallelism()} cores, Bun ${Bun.version}, autocannon 9.0.0`,
    loadAtStart,
    loadAtEnd: loadAverage(),
    duration: o.duration,
    connections: o.connections,
    store: { size: SIZE, memories: manifest.memories, relations: manifest.relations },
    start,
    rate,
    full,
    rss,
    cli,
    seconds: (performance.now() - T0) / 1000,
  };
}

// --- the report --------------------------------------------------------------------------------

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "–");
const f2 = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x.toFixed(1)) : "–");
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(1)}×` : "–");
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

export function apiMarkdown(r: ApiBenchResult): string {
  const out: string[] = [];
  const sm = sorted(r.start.memsync.first);
  const sf = sorted(r.start.floor.first);
  const met = (ok: boolean, text: string) => (ok ? `met (${text})` : `**not met** (${text})`);
  const load = (x: number | undefined) => (x === undefined ? "?" : x.toFixed(1));
  out.push(
    `Measured ${r.date}, memsync at commit ${r.commit.replace(/^(\S+) (.*)$/, "$1 ($2)")}, on ${r.machine}; 1-minute load average ${load(r.loadAtStart)} at the start, ${load(r.loadAtEnd)} at the end${Math.max(r.loadAtStart ?? 0, r.loadAtEnd ?? 0) > 4 ? " (a loaded machine: absolute figures are inflated and noisy; the ratios to the floor, measured alongside, say more)" : ""}. The run took ${f1(r.seconds)} s.`,
  );
  out.push("");
  out.push(`Targets (on the store of ${r.store.memories.toLocaleString("en")} memories${r.store.size === 10_000 ? "" : "; the targets are for 10k"}):`);
  out.push("");
  out.push("| target | measured | |");
  out.push("|---|--:|---|");
  const rr = r.rate.recall.memsync;
  const rt = r.rate.touch.memsync;
  const fs_ = r.full.save.memsync;
  out.push(`| recall p99 ≤ ${TARGETS.recallP99} ms at 100 requests/s | ${f2(rr.p99)} ms | ${met(rr.p99 <= TARGETS.recallP99, `floor ${f2(r.rate.recall.floor.p99)} ms`)} |`);
  out.push(`| touch p99 ≤ ${TARGETS.touchP99} ms at 100 requests/s | ${f2(rt.p99)} ms | ${met(rt.p99 <= TARGETS.touchP99, `floor ${f2(r.rate.touch.floor.p99)} ms`)} |`);
  out.push(`| sustained save ≥ ${TARGETS.saveRate}/s (full speed, ${r.connections} connections, ${r.duration} s) | ${f1(fs_.rps)}/s | ${met(fs_.rps >= TARGETS.saveRate, `floor ${f1(r.full.save.floor.rps)}/s`)} |`);
  out.push(`| start ≤ ${TARGETS.start} ms (spawn → first 200 from GET /v1/health, median of ${sm.length}) | ${f1(pct(sm, 0.5))} ms | ${met(pct(sm, 0.5) <= TARGETS.start, `p90 ${f1(pct(sm, 0.9))} ms; floor ${f1(pct(sf, 0.5))} ms; to the first get instead: ${f1(pct(sorted(r.start.memsync.firstGet), 0.5))} ms`)} |`);
  out.push("");

  out.push(`At a fixed 100 requests/s (autocannon \`overallRate: 100\`, 1 connection, ${r.duration} s); latency of each 2xx response in ms:`);
  out.push("");
  out.push("| op | memsync p50 | p90 | p99 | max | req/s | CPU ms/req | floor p50 | floor p99 | floor CPU ms/req | p50 ÷ floor | CPU ÷ floor |");
  out.push("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
  for (const op of OPS) {
    const m = r.rate[op].memsync;
    const f = r.rate[op].floor;
    out.push(`| ${op} | ${f2(m.p50)} | ${f2(m.p90)} | ${f2(m.p99)} | ${f2(m.max)} | ${f1(m.rps)}${m.non2xx + m.errors ? ` (${m.non2xx} non-2xx, ${m.errors} errors)` : ""} | ${f2(m.cpuPerReq)} | ${f2(f.p50)} | ${f2(f.p99)} | ${f2(f.cpuPerReq)} | ${ratio(m.p50, f.p50)} | ${ratio(m.cpuPerReq, f.cpuPerReq)} |`);
  }
  out.push("");
  out.push(`At full speed (${r.connections} connections, ${r.duration} s):`);
  out.push("");
  out.push("| op | memsync req/s | p50 | p99 | CPU ms/req | floor req/s | floor p50 | floor p99 | floor CPU ms/req | req/s: floor ÷ memsync |");
  out.push("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
  for (const op of OPS) {
    const m = r.full[op].memsync;
    const f = r.full[op].floor;
    out.push(`| ${op} | ${f1(m.rps)}${m.non2xx + m.errors ? ` (${m.non2xx} non-2xx, ${m.errors} errors)` : ""} | ${f2(m.p50)} | ${f2(m.p99)} | ${f2(m.cpuPerReq)} | ${f1(f.rps)} | ${f2(f.p50)} | ${f2(f.p99)} | ${f2(f.cpuPerReq)} | ${ratio(f.rps, m.rps)} |`);
  }
  out.push("");
  out.push(`Memory after the runs (VmRSS): memsync serve ${f1(r.rss.memsync)} MiB, floor ${f1(r.rss.floor)} MiB.`);
  out.push("");
  out.push(`Start-up, memsync and the floor alternating (ms): ${sm.length} starts each to the first answer of GET /v1/health, ${r.start.memsync.firstGet.length} more to the first answer of POST /v1/get (one memory); the listening line over all of them:`);
  out.push("");
  out.push("| | spawn → listening line, median | p90 | spawn → first 200 from GET /v1/health, median | p90 | min | max | spawn → first 200 from POST /v1/get, median | p90 |");
  out.push("|---|--:|--:|--:|--:|--:|--:|--:|--:|");
  for (const name of ["memsync", "floor"] as const) {
    const l = sorted(r.start[name].listen);
    const h = sorted(r.start[name].first);
    const g = sorted(r.start[name].firstGet);
    out.push(`| ${name === "memsync" ? `\`memsync serve\` (${r.store.memories.toLocaleString("en")} memories)` : "floor (Hono hello-world)"} | ${f1(pct(l, 0.5))} | ${f1(pct(l, 0.9))} | ${f1(pct(h, 0.5))} | ${f1(pct(h, 0.9))} | ${f1(h[0] ?? Number.NaN)} | ${f1(h.at(-1) ?? Number.NaN)} | ${f1(pct(g, 0.5))} | ${f1(pct(g, 0.9))} |`);
  }
  out.push("");
  out.push("The CLI doing the same operations, each a new process of `dist/memsync` (cold, hyperfine), beside the API at 100 requests/s:");
  out.push("");
  out.push("| op | CLI median wall ms | CLI CPU ms (user + system) | API p50 ms | API CPU ms/req | wall: CLI ÷ API | CPU: CLI ÷ API |");
  out.push("|---|--:|--:|--:|--:|--:|--:|");
  for (const op of OPS) {
    const c = r.cli[op];
    const cpu = (c.user ?? Number.NaN) + (c.system ?? Number.NaN);
    const a = r.rate[op].memsync;
    out.push(`| ${op} | ${f1(c.median)} | ${f1(cpu)} | ${f2(a.p50)} | ${f2(a.cpuPerReq)} | ${ratio(c.median, a.p50)} | ${ratio(cpu, a.cpuPerReq)} |`);
  }
  out.push("");
  return out.join("\n");
}

if (import.meta.main) {
  const r = await measureApi({ size: arg("--size", 10_000), duration: arg("--duration", 10), connections: arg("--connections", 10), starts: arg("--starts", 20), runs: arg("--runs", 10) });
  fs.writeFileSync(path.join(BENCH_DIR, "api.json"), `${JSON.stringify(r, null, 2)}\n`);
  if (process.argv.includes("--json")) console.log(JSON.stringify(r, null, 2));
  else console.log(apiMarkdown(r));
}
