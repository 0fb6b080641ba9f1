// The memory browser's server time at 50k memories (issue 13; target ≤ 100 ms for search and a
// memory page): dist/memsync serve on .bench/store-50000, asked over loopback for the search
// results fragment (what each keystroke asks), the whole search page, and a memory's page, one
// request at a time; each time is the client's, from the request to the last byte, so an upper
// bound of the server's. A memory's history (read from git after the page loads) is timed apart.
//
//   bun scripts/bench-lib/web-bench.ts [--size 50000] [--runs 20] [--bin path/to/memsync]...
//
// Each --bin is measured in turn on the same store, its rows side by side (a "before" build
// beside the current one); none: dist/memsync.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBenchStore } from "./generate.ts";

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const SEED = 20261121;
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const SIZE = arg("size", 50_000);
const RUNS = arg("runs", 20);
const log = (s: string) => process.stderr.write(`${s}\n`);

function sampleIds(store: string, n: number): string[] {
  const dir = path.join(store, "memories");
  const files: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith(".json")) files.push(e.name.slice(0, -5));
    else if (e.isDirectory()) for (const f of fs.readdirSync(path.join(dir, e.name))) if (f.endsWith(".json")) files.push(f.slice(0, -5));
  }
  files.sort();
  return Array.from({ length: n }, (_, i) => files[Math.floor((i * files.length) / n)]!);
}

/** The server process's CPU time so far (user + system), from /proc: clock ticks of 10 ms. */
function cpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return (Number(rest[11]) + Number(rest[12])) * 10;
}

async function start(store: string, bin: string): Promise<{ url: string; pid: number; stop: () => void }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-webbench-"));
  const child = spawn(bin, ["--store", store, "serve", "--listen", "127.0.0.1:0"], { env: { ...process.env, HOME: home }, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on("close", (code) => reject(new Error(`serve exited ${code}`)));
  });
  return { url, pid: child.pid!, stop: () => child.kill("SIGTERM") };
}

async function timed(url: string): Promise<number> {
  const t0 = performance.now();
  const r = await fetch(url);
  await r.text();
  if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
  return performance.now() - t0;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

const bins = process.argv.flatMap((a, i) => (a === "--bin" ? [path.resolve(process.argv[i + 1]!)] : []));
if (bins.length === 0) bins.push(path.join(REPO, "dist/memsync"));

const dir = path.join(REPO, ".bench", `store-${SIZE}`);
fs.mkdirSync(path.dirname(dir), { recursive: true });
const { manifest } = await ensureBenchStore(dir, SIZE, { fresh: false, seed: SEED, log });
const ids = sampleIds(dir, RUNS);
// every binary serves the same store at once; each request is asked of each in turn, so a change
// of the machine's load falls on all of them alike
const servers = await Promise.all(bins.map((b) => start(dir, b)));
try {
  const q = (words: string) => `/ui/results?q=${encodeURIComponent(words)}`;
  const cases: [string, (i: number) => string][] = [
    ["floor: a static file (/ui/static/app.css)", () => "/ui/static/app.css"],
    [`search fragment, "${manifest.common_query}" (${manifest.common_matches} matches)`, () => q(manifest.common_query)],
    [`search fragment, "${manifest.rare_query}" (${manifest.rare_matches} matches)`, () => q(manifest.rare_query)],
    ["search fragment, one word typed so far (\"co\")", () => q("co")],
    ["list fragment (no words: newest 50)", () => q("")],
    [`search page, "${manifest.common_query}"`, () => `/ui?q=${encodeURIComponent(manifest.common_query)}`],
    ["memory page (20 memories through the store's history)", (i) => `/ui/m/${ids[i % ids.length]}`],
    ["memory history fragment (git, after the page; no target)", (i) => `/ui/m/${ids[i % ids.length]}/history`],
    ["graph around a memory", (i) => `/ui/graph?id=${ids[i % ids.length]}`],
    ["forget preview, one project (about 1/14 of the store)", () => "/ui/forget?project=billing-service"],
    ["forget preview, type fact, created before 30d", () => "/ui/forget?type=fact&before=30d"],
    ["conflicts page (memories keeping texts of a content conflict)", () => "/ui/conflicts"],
  ];
  for (const [, u] of cases) for (const sv of servers) await timed(sv.url + u(0)); // warm: the store opened, modules loaded
  const head = bins.map((b) => path.relative(REPO, b) || b);
  // wall time (client side, an upper bound of the server's) and the server process's CPU time per
  // request (from /proc, 10 ms ticks summed over the runs): on a loaded machine the CPU time is
  // what the request costs, the wall time also how long it waited for a core
  console.log(`| request at ${manifest.memories.toLocaleString("en")} memories | ${head.map((h) => `${h} p50 ms | p95 ms | CPU ms/req`).join(" | ")} |${bins.length > 1 ? " p50 ratio | CPU ratio (last/first) |" : ""}`);
  console.log(`| --- |${" ---: | ---: | ---: |".repeat(bins.length)}${bins.length > 1 ? " ---: | ---: |" : ""}`);
  for (const [name, u] of cases) {
    const times: number[][] = servers.map(() => []);
    const cpu = servers.map(() => 0);
    for (let i = 0; i < RUNS; i++)
      for (const [k, sv] of servers.entries()) {
        const c0 = cpuMs(sv.pid);
        times[k]!.push(await timed(sv.url + u(i)));
        cpu[k]! += cpuMs(sv.pid) - c0;
      }
    const p50 = times.map((t) => pct(t, 50));
    const per = cpu.map((c) => c / RUNS);
    const ratio = bins.length > 1 ? ` ${(p50[p50.length - 1]! / p50[0]!).toFixed(2)}x | ${per[0] ? `${(per[per.length - 1]! / per[0]).toFixed(2)}x` : "—"} |` : "";
    console.log(`| ${name} | ${times.map((t, k) => `${pct(t, 50).toFixed(1)} | ${pct(t, 95).toFixed(1)} | ${per[k]!.toFixed(1)}`).join(" | ")} |${ratio}`);
  }
} finally {
  for (const sv of servers) sv.stop();
}
