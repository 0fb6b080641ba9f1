// The memory browser's server time at 50k memories (issue 13; target ≤ 100 ms for search and a
// memory page): dist/memsync serve on .bench/store-50000, asked over loopback for the search
// results fragment (what each keystroke asks), the whole search page, and a memory's page, one
// request at a time; each time is the client's, from the request to the last byte, so an upper
// bound of the server's. A memory's history (read from git after the page loads) is timed apart.
//
//   bun scripts/bench-lib/web-bench.ts [--size 50000] [--runs 20]
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

async function start(store: string): Promise<{ url: string; stop: () => void }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-webbench-"));
  const child = spawn(path.join(REPO, "dist/memsync"), ["--store", store, "serve", "--listen", "127.0.0.1:0"], { env: { ...process.env, HOME: home }, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on("close", (code) => reject(new Error(`serve exited ${code}`)));
  });
  return { url, stop: () => child.kill("SIGTERM") };
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

const dir = path.join(REPO, ".bench", `store-${SIZE}`);
fs.mkdirSync(path.dirname(dir), { recursive: true });
const { manifest } = await ensureBenchStore(dir, SIZE, { fresh: false, seed: SEED, log });
const ids = sampleIds(dir, RUNS);
const s = await start(dir);
try {
  const q = (words: string, extra = "") => `${s.url}/ui/results?q=${encodeURIComponent(words)}${extra}`;
  const cases: [string, (i: number) => string][] = [
    [`search fragment, "${manifest.common_query}" (${manifest.common_matches} matches)`, () => q(manifest.common_query)],
    [`search fragment, "${manifest.rare_query}" (${manifest.rare_matches} matches)`, () => q(manifest.rare_query)],
    ["search fragment, one word typed so far (\"co\")", () => q("co")],
    ["list fragment (no words: newest 50)", () => q("")],
    [`search page, "${manifest.common_query}"`, () => `${s.url}/ui?q=${encodeURIComponent(manifest.common_query)}`],
    ["memory page (20 memories through the store's history)", (i) => `${s.url}/ui/m/${ids[i % ids.length]}`],
    ["memory history fragment (git, after the page; no target)", (i) => `${s.url}/ui/m/${ids[i % ids.length]}/history`],
  ];
  for (const [, u] of cases) await timed(u(0)); // warm: the store opened, modules loaded
  console.log(`| request at ${manifest.memories.toLocaleString("en")} memories | p50 ms | p95 ms | max ms |`);
  console.log("| --- | ---: | ---: | ---: |");
  for (const [name, u] of cases) {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) times.push(await timed(u(i)));
    console.log(`| ${name} | ${pct(times, 50).toFixed(1)} | ${pct(times, 95).toFixed(1)} | ${Math.max(...times).toFixed(1)} |`);
  }
} finally {
  s.stop();
}
