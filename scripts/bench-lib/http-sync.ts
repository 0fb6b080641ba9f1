// What one HTTP sync carries and costs once the history is long (issue 16's hung HTTP syncs):
// two compiled binaries side by side, each syncing its own copy of the same clone against its
// copy of the same hub (restored before each run), through one real smart-HTTP server (git http-backend on 127.0.0.1).
// The clone has one local commit the hub has not got, and the hub has moved on (another machine
// synced): the sync fetches, merges and pushes the merge, the case every HTTP sync of a busy
// store meets. Prints, per binary, the median wall time and the objects each side received
// (the new packs' sizes), beside `git rev-list --objects` of what was new.
//
//   bun scripts/bench-lib/http-sync.ts BEFORE_BINARY AFTER_BINARY [rounds=60] [runs=3]
//
// The history: 20 memories, then `rounds` commits each touching all of them (every commit a new
// version of every file), made with AFTER_BINARY.

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startGitHttpServer } from "../../tests/helpers/git-http-server.ts";

const [before, after, roundsArg, runsArg] = process.argv.slice(2);
if (!before || !after) {
  console.error("usage: bun scripts/bench-lib/http-sync.ts BEFORE_BINARY AFTER_BINARY [rounds=60] [runs=3]");
  process.exit(2);
}
const rounds = Number(roundsArg ?? 60);
const runs = Number(runsArg ?? 3);
const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-http-sync-"));
const env = { ...process.env, HOME: root, MEMSYNC_MACHINE: "bench" };
/** A memsync run, asynchronous: the HTTP server lives in this process and must keep answering. */
const ms = (bin: string, ...args: string[]) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(bin, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(" ")}: ${err}`))));
  });
const git = (cwd: string, ...args: string[]) => spawnSync("git", args, { cwd, encoding: "utf8" }).stdout.trim();
const packs = (gitdir: string) => new Set(fs.readdirSync(path.join(gitdir, "objects/pack")).filter((n) => n.endsWith(".pack")));
const newPackBytes = (gitdir: string, old: Set<string>) => [...packs(gitdir)].filter((n) => !old.has(n)).reduce((s, n) => s + fs.statSync(path.join(gitdir, "objects/pack", n)).size, 0);
const newObjects = (dir: string, tip: string, old: string) => git(dir, "rev-list", "--objects", tip, `^${old}`).split("\n").filter(Boolean).length;

const server = await startGitHttpServer(root);
try {
  // the history, pushed; a clone of it; then the hub moves on and the clone commits locally
  spawnSync("git", ["init", "-q", "--bare", "-b", "main", path.join(root, "hub.git")]);
  git(path.join(root, "hub.git"), "config", "receive.unpackLimit", "1");
  const a = path.join(root, "a");
  await ms(after, "init", a);
  await ms(after, "--store", a, "remote", "set", server.url("hub.git"), "--insecure-http");
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push(JSON.parse(await ms(after, "--store", a, "save", `memory ${i} of the http sync bench`, "--json")).memory.id as string);
  for (let i = 0; i < rounds; i++) {
    await ms(after, "--store", a, "touch", ...ids);
    await ms(after, "--store", a, "commit");
  }
  await ms(after, "--store", a, "sync");
  const b = path.join(root, "b");
  await ms(after, "clone", server.url("hub.git"), b, "--insecure-http");
  await ms(after, "--store", b, "save", "made on b, not pushed yet");
  await ms(after, "--store", b, "commit");
  await ms(after, "--store", a, "touch", ids[0]!);
  await ms(after, "--store", a, "sync");
  const commits = git(path.join(root, "hub.git"), "rev-list", "--count", "main");
  const hubTip = git(path.join(root, "hub.git"), "rev-parse", "main");
  const tracked = git(b, "rev-parse", "refs/remotes/origin/main");
  console.log(`history: ${commits} commits; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);

  // each run: the hub and the clone restored from the same state (same URL: \`remote set\` would
  // drop the clone's tracking ref), then one sync
  const pristine = path.join(root, "hub-pristine.git");
  fs.cpSync(path.join(root, "hub.git"), pristine, { recursive: true });
  const results: Record<string, { ms: number[]; fetchedBytes: number; pushedBytes: number; newIn: number; newOut: number }> = {};
  for (let run = 0; run < runs; run++) {
    for (const [name, bin] of (run % 2 ? [["after", after], ["before", before]] : [["before", before], ["after", after]]) as [string, string][]) {
      const hub = path.join(root, "hub.git");
      fs.rmSync(hub, { recursive: true, force: true });
      fs.cpSync(pristine, hub, { recursive: true });
      const c = path.join(root, `b-${name}-${run}`);
      fs.cpSync(b, c, { recursive: true });
      const cPacks = packs(path.join(c, ".git"));
      const hPacks = packs(hub);
      const t0 = performance.now();
      await ms(bin, "--store", c, "sync");
      const t = performance.now() - t0;
      const r = (results[name] ??= { ms: [], fetchedBytes: 0, pushedBytes: 0, newIn: 0, newOut: 0 });
      r.ms.push(t);
      r.fetchedBytes = newPackBytes(path.join(c, ".git"), cPacks);
      r.pushedBytes = newPackBytes(hub, hPacks);
      r.newIn = newObjects(c, hubTip, tracked);
      r.newOut = newObjects(c, git(c, "rev-parse", "main"), hubTip);
      fs.rmSync(c, { recursive: true, force: true });
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  console.log("| binary | sync median (ms) | runs (ms) | pack fetched (bytes) | new objects in | pack pushed (bytes) | new objects out |");
  console.log("|---|--:|---|--:|--:|--:|--:|");
  for (const [name, r] of Object.entries(results)) {
    console.log(`| ${name} | ${median(r.ms).toFixed(0)} | ${r.ms.map((x) => x.toFixed(0)).join(", ")} | ${r.fetchedBytes} | ${r.newIn} | ${r.pushedBytes} | ${r.newOut} |`);
  }
  console.log(`ratio after/before (median): ${(median(results.after!.ms) / median(results.before!.ms)).toFixed(2)}; load average now ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
} finally {
  await server.close();
  if (!process.env.BENCH_KEEP) fs.rmSync(root, { recursive: true, force: true });
  else console.log(`kept ${root}`);
}
