// Packed history (issue 16): the size of a store's .git against a native `git clone` of the same
// history, and a pull over smart HTTP on a clone that has fetched many times, before and after.
//
//   bun scripts/bench-lib/packs.ts [--sizes 10000,50000] [--commits 50] [--touches 0] [--bin AFTER]
//                                  [--before BEFORE] [--fetches 80] [--rounds 5] [--parts size,http]
//
// size: a CortexGraph source imported and committed, then --commits saves each committed on its
// own (loose objects, as everyday use leaves them), then --touches commits of a busy store (each
// touches two memories and commits: a new version of their files and folders); .git measured (apparent bytes and disk blocks),
// then `memsync repack --all` (timed), measured again, against `git clone --no-local` of the store
// (git's own pack-objects, with deltas); fsck --strict and verify-pack on the result.
// http: a hub served by native git http-backend; clone A writes (save + sync), clone B pulls after
// each of --fetches writes (one fetched pack each), all with the BEFORE binary; B is then copied,
// and each of --rounds rounds times one sync of B by BEFORE and of its copy by AFTER (the first
// AFTER sync repacks, reported apart).

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startGitHttpServer } from "../../tests/helpers/git-http-server.ts";
import { generate } from "./cortexgraph-source.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : dflt;
};
const sizes = opt("sizes", "10000,50000").split(",").map(Number);
const commits = Number(opt("commits", "50"));
const touches = Number(opt("touches", "0"));
const after = path.resolve(opt("bin", path.join(REPO, "dist/memsync")));
const before = path.resolve(opt("before", after));
const fetches = Number(opt("fetches", "80"));
const rounds = Number(opt("rounds", "5"));
const parts = opt("parts", "size,http").split(",");
const ENV = { ...process.env, MEMSYNC_MACHINE: "bench", GIT_AUTHOR_NAME: "bench", GIT_AUTHOR_EMAIL: "bench@bench", GIT_COMMITTER_NAME: "bench", GIT_COMMITTER_EMAIL: "bench@bench" };

function run(cmd: string, argv: string[], cwd?: string): { seconds: number; stdout: string } {
  const t0 = performance.now();
  const p = spawnSync(cmd, argv, { cwd, env: ENV, encoding: "utf8", maxBuffer: 1 << 26 });
  const seconds = (performance.now() - t0) / 1000;
  if (p.status !== 0) throw new Error(`${cmd} ${argv.join(" ")}: ${p.stderr}`);
  return { seconds, stdout: p.stdout };
}

/** run(), without blocking this process (the HTTP server below lives in it). */
function runAsync(cmd: string, argv: string[], cwd?: string): Promise<{ seconds: number; stdout: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd, env: ENV });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve({ seconds: (performance.now() - t0) / 1000, stdout }) : reject(new Error(`${cmd} ${argv.join(" ")}: ${stderr}`))));
  });
}

/** Apparent bytes and bytes of disk blocks under a folder. */
function du(dir: string): { bytes: number; disk: number } {
  const b = Number(run("du", ["-s", "-b", dir]).stdout.split("\t")[0]);
  const k = Number(run("du", ["-s", "-B1", dir]).stdout.split("\t")[0]);
  return { bytes: b, disk: k };
}
const mib = (n: number) => (n / 1048576).toFixed(1);
const objects = (repo: string) => {
  const o = run("git", ["count-objects", "-v"], repo).stdout;
  const n = (k: string) => Number(o.match(new RegExp(`^${k}: (\\d+)$`, "m"))![1]);
  return `${n("count")} loose + ${n("in-pack")} in ${n("packs")} pack${n("packs") === 1 ? "" : "s"}`;
};

// each line printed as it comes (a long run interrupted still leaves what it measured)
const out = { push: (...lines: string[]) => console.log(lines.join("\n")) };
out.push(...[`Load average at the start: ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")} (1/5/15 min), ${os.cpus().length} cores.`, ""]);

if (parts.includes("size")) {
  out.push("| store | state | objects | .git apparent MiB | .git on disk MiB | objects/ on disk MiB | vs native clone (.git on disk) | time s |", "|---|---|---|--:|--:|--:|--:|--:|");
  for (const size of sizes) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-bench-packs-"));
    const src = path.join(root, "src");
    fs.mkdirSync(src);
    generate(src, size, Math.round(size * 0.3), 20261124 + size);
    const store = path.join(root, "store");
    run(after, ["init", store]);
    run(after, ["--store", store, "import", "cortexgraph", src]);
    run(after, ["--store", store, "commit"]);
    // everyday commits afterwards (no automatic repack meanwhile: measured as memsync leaves them)
    run("git", ["config", "gc.auto", "0"], store);
    for (let i = 0; i < commits; i++) {
      run(after, ["--store", store, "save", `everyday note ${i}: retry the flaky upload with backoff`]);
      run(after, ["--store", store, "commit"]);
    }
    if (touches > 0) {
      const ids = (JSON.parse(run(after, ["--store", store, "list", "--limit", "2000", "--json"]).stdout).memories as { id: string }[]).map((m) => m.id);
      for (let i = 0; i < touches; i++) {
        run(after, ["--store", store, "touch", ids[(i * 13) % ids.length]!, ids[(i * 29 + 3) % ids.length]!]);
        run(after, ["--store", store, "commit"]);
      }
    }
    const label = `${size.toLocaleString("en-US")} memories + ${commits} commits${touches ? ` + ${touches} touch commits` : ""}`;
    const native = path.join(root, "native");
    run("git", ["clone", "-q", "--no-local", store, native]);
    const n = du(path.join(native, ".git"));
    const row = (state: string, seconds: string) => {
      const d = du(path.join(store, ".git"));
      const o = du(path.join(store, ".git/objects"));
      out.push(`| ${label} | ${state} | ${objects(store)} | ${mib(d.bytes)} | ${mib(d.disk)} | ${mib(o.disk)} | ${(d.disk / n.disk).toFixed(2)}x | ${seconds} |`);
    };
    // native git's own repack of memsync's history as committed, side by side (a copy)
    const copy = path.join(root, "copy");
    fs.cpSync(store, copy, { recursive: true });
    const g = run("git", ["repack", "-a", "-d", "-f", "-q"], copy);
    const gd = du(path.join(copy, ".git"));
    row("memsync as committed", "–");
    const t = run(after, ["--store", store, "repack", "--all"]);
    row("after `memsync repack --all`", t.seconds.toFixed(2));
    run("git", ["fsck", "--strict", "--no-dangling"], store);
    const idx = fs.readdirSync(path.join(store, ".git/objects/pack")).find((f) => f.endsWith(".idx"))!;
    run("git", ["verify-pack", path.join(store, ".git/objects/pack", idx)]);
    const no = du(path.join(native, ".git/objects"));
    out.push(`| ${label} | native \`git clone --no-local\` | ${objects(native)} | ${mib(n.bytes)} | ${mib(n.disk)} | ${mib(no.disk)} | 1.00x | – |`);
    out.push(`| ${label} | native \`git repack -a -d -f\` of a copy as committed | ${objects(copy)} | ${mib(gd.bytes)} | ${mib(gd.disk)} | ${mib(du(path.join(copy, ".git/objects")).disk)} | ${(gd.disk / n.disk).toFixed(2)}x | ${g.seconds.toFixed(2)} |`);
    fs.rmSync(root, { recursive: true, force: true });
  }
  out.push("");
}

if (parts.includes("http")) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-bench-packs-http-"));
  run("git", ["init", "-q", "--bare", "-b", "main", path.join(root, "hub.git")]);
  const server = await startGitHttpServer(root);
  try {
    const url = server.url("hub.git");
    const a = path.join(root, "a");
    await runAsync(before, ["init", a]);
    await runAsync(before, ["--store", a, "remote", "set", url, "--insecure-http"]);
    await runAsync(before, ["--store", a, "save", "first"]);
    await runAsync(before, ["--store", a, "sync"]);
    const b = path.join(root, "b");
    await runAsync(before, ["clone", url, b, "--insecure-http"]);
    for (let i = 0; i < fetches; i++) {
      await runAsync(before, ["--store", a, "save", `note ${i} written on a, fetched by b`]);
      await runAsync(before, ["--store", a, "sync"]);
      await runAsync(before, ["--store", b, "sync"]);
    }
    const b2 = path.join(root, "b2");
    fs.cpSync(b, b2, { recursive: true });
    out.push(`HTTP clone after ${fetches} fetches: ${objects(b)}.`, "");
    out.push("| round | sync of b by BEFORE s | sync of its copy by AFTER s | ratio | AFTER's copy |", "|--:|--:|--:|--:|---|");
    const ratios: number[] = [];
    for (let r = 0; r <= rounds; r++) {
      await runAsync(before, ["--store", a, "save", `round ${r}`]);
      await runAsync(before, ["--store", a, "sync"]);
      const x = (await runAsync(before, ["--store", b, "sync"])).seconds;
      const y = (await runAsync(after, ["--store", b2, "sync"])).seconds;
      if (r > 0) ratios.push(y / x);
      out.push(`| ${r === 0 ? "0 (AFTER repacks)" : r} | ${x.toFixed(2)} | ${y.toFixed(2)} | ${(y / x).toFixed(2)} | ${objects(b2)} |`);
    }
    const med = [...ratios].sort((p, q) => p - q)[Math.floor((ratios.length - 1) / 2)]!;
    out.push("", `Median ratio AFTER / BEFORE over rounds 1-${rounds}: ${med.toFixed(2)}.`);
    run("git", ["fsck", "--strict", "--no-dangling"], b2);
  } finally {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
out.push("", `Load average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")}.`);
