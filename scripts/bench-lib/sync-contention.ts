// The slow tail of sync under contention: N clones of one store of a few thousand memories, each
// saving a few memories, then all syncing at once (a burst: every round only one push wins the
// race, the others pull what it brought and try again). Two binaries side by side, each with its
// own remote and fleet of clones made from the same start, in interleaved rounds, so the load of
// the machine falls on both alike. Prints per binary the sync durations (median, p90, max), exit
// codes, push attempts, and, from MEMSYNC_SYNC_TRACE=1 (binaries without it print nothing), wall
// and CPU time per phase summed over all syncs. `--per-clone K` starts K syncs of every clone at
// once (a clone's queue behind its sync lock: hooks' background syncs, a server's, the user's);
// then a second table gives each sync's wait for the lock and how it ended (ran, joined a later
// sync's success or failure, gave up waiting). `--env K=V` (repeatable) passes a variable to every
// process (MEMSYNC_PUSH_RETRY_BUDGET_MS=5000 scales the minutes of a loaded machine down to seconds).
//
//   bun scripts/bench-lib/sync-contention.ts A_BINARY B_BINARY [--clones 6] [--memories 3000]
//       [--rounds 6] [--saves 2] [--per-clone 1] [--stagger-ms 0] [--timeout 300] [--env K=V]
//       [--wait-limit 120]
//
// Uses $TMPDIR (a tmpfs is best); removes what it made unless --keep.

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBenchStore } from "./generate.ts";
import { numArg, positionals } from "./args.ts";

const argv = process.argv.slice(2);
// (--keep takes no value: a binary after it is still one)
const bins = positionals(new Set(["--clones", "--memories", "--rounds", "--saves", "--timeout", "--per-clone", "--stagger-ms", "--wait-limit", "--env"]));
const opt = (name: string, dflt: number) => numArg(`--${name}`, dflt);
if (bins.length < 1) {
  console.error("usage: bun scripts/bench-lib/sync-contention.ts A_BINARY [B_BINARY] [--clones N] [--memories N] [--rounds N] [--saves N] [--timeout S] [--keep]");
  process.exit(2);
}
const clones = opt("clones", 6);
const memories = opt("memories", 3000);
const rounds = opt("rounds", 6);
const saves = opt("saves", 2);
const timeoutS = opt("timeout", 300);
const perClone = opt("per-clone", 1);
// the K syncs of a clone start this many ms apart (0: at once), so later ones queue behind a turn taken after them
const staggerMs = opt("stagger-ms", 0);
// the wait in the queue counted as over the bound (s): 120, the default; a scaled run gives its own
const waitLimitS = opt("wait-limit", 120);
const extraEnv = Object.fromEntries(argv.flatMap((a, i) => (argv[i - 1] === "--env" && a.includes("=") ? [[a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]] : [])));
const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-contention-"));
const setupEnv = { ...process.env, HOME: root, MEMSYNC_MACHINE: "bench", MEMSYNC_SYNC_TRACE: "1" };
// the extra variables apply to the measured syncs only (a short retry budget must not fail the set-up)
let env: Record<string, string | undefined> = setupEnv;

interface Run {
  code: number | null;
  ms: number;
  out: string;
  err: string;
}

function run(bin: string, args: string[], timeoutMs = timeoutS * 1000): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(bin, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, ms: performance.now() - t0, out, err });
    });
  });
}

async function must(bin: string, args: string[]): Promise<string> {
  const r = await run(bin, args);
  if (r.code !== 0) throw new Error(`${args.join(" ")}: exit ${r.code}: ${r.err}`);
  return r.out;
}

/** How a sync of a clone's queue ended. */
type Ending = "ran" | "joined" | "joined-failure" | "gave-up-waiting" | "killed";

interface SyncRecord {
  ms: number;
  code: number | null;
  attempts: number;
  /** ms from its start until it held the sync lock, joined another sync, or gave up (from the trace). */
  lockWait: number;
  ending: Ending;
  phases: Map<string, { wall: number; cpu: number; n: number }>;
  notes: Map<string, number>;
}

function parseTrace(err: string): Pick<SyncRecord, "phases" | "notes"> {
  const phases = new Map<string, { wall: number; cpu: number; n: number }>();
  const notes = new Map<string, number>();
  for (const l of err.split("\n")) {
    const m = /^memsync sync-trace: (\S+) wall=(\d+)(?: cpu=(\d+))?/.exec(l);
    const n = /^memsync sync-trace: (\S+) attempt=/.exec(l);
    if (m) {
      const p = phases.get(m[1]!) ?? { wall: 0, cpu: 0, n: 0 };
      p.wall += Number(m[2]);
      p.cpu += Number(m[3] ?? 0);
      p.n++;
      phases.set(m[1]!, p);
    } else if (n) notes.set(n[1]!, (notes.get(n[1]!) ?? 0) + 1);
  }
  return { phases, notes };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : NaN;
};

// one store, pushed to a bare remote; each binary's fleet starts from a copy of that remote
const base = path.join(root, "base");
console.log(`generating a store of ${memories} memories…`);
await ensureBenchStore(base, memories, { fresh: true, seed: 7, log: (l) => console.log(l) });
const seedRemote = path.join(root, "seed.git");
spawnSync("git", ["init", "-q", "--bare", "-b", "main", seedRemote]);
await must(bins[0]!, ["--store", base, "remote", "set", seedRemote]);
await must(bins[0]!, ["--store", base, "sync"]);
fs.rmSync(base, { recursive: true, force: true });
const memoryFiles = (gitArgs: string[]) => spawnSync("git", [...gitArgs, "ls-tree", "-r", "--name-only", "HEAD", "memories"], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).length;
const seeded = memoryFiles(["--git-dir", seedRemote]);

interface Fleet {
  bin: string;
  label: string;
  dirs: string[];
  records: SyncRecord[];
}
const fleets: Fleet[] = [];
for (const [i, bin] of bins.entries()) {
  const remote = path.join(root, `remote-${i}.git`);
  spawnSync("cp", ["-a", seedRemote, remote]);
  const dirs: string[] = [];
  // one clone, copied (a clone of a few thousand memories copies objects one by one: ~25 s at
  // load); each copy's first sync (a full refresh: new inodes) runs here, not in a measured round
  for (let c = 0; c < clones; c++) {
    const d = path.join(root, `fleet-${i}`, `clone-${c}`);
    if (c === 0) await must(bin, ["clone", remote, d]);
    else spawnSync("cp", ["-a", dirs[0]!, d]);
    await must(bin, ["--store", d, "sync"]);
    dirs.push(d);
  }
  fleets.push({ bin, label: `${String.fromCharCode(65 + i)}=${path.basename(bin)}`, dirs, records: [] });
}
env = { ...setupEnv, ...extraEnv };
console.log(`${clones} clones per binary, ${rounds} rounds of ${saves} saves per clone then a burst of ${perClone} sync(s) per clone${staggerMs ? ` ${staggerMs} ms apart` : ""}${Object.keys(extraEnv).length ? ` (${Object.entries(extraEnv).map(([k, v]) => `${k}=${v}`).join(" ")})` : ""}; load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);

let serial = 0;
for (let r = 0; r < rounds; r++) {
  // alternate which binary goes first, so neither always meets the other's leftover load
  const order = r % 2 === 0 ? fleets : [...fleets].reverse();
  for (const f of order) {
    await Promise.all(
      f.dirs.map(async (d) => {
        for (let s = 0; s < saves; s++) await must(f.bin, ["--store", d, "save", `contention round ${r} save ${s} ${serial++} ${path.basename(d)}`]);
      }),
    );
    const t0 = performance.now();
    const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const runs = await Promise.all(f.dirs.flatMap((d) => Array.from({ length: perClone }, (_, k) => later(k * staggerMs).then(() => run(f.bin, ["--store", d, "sync", "--json"])))));
    for (const x of runs) {
      let attempts = 0;
      let joined = false;
      try {
        const j = JSON.parse(x.out) as { push?: { attempts?: number }; joined?: boolean };
        attempts = j.push?.attempts ?? 0;
        joined = j.joined === true;
      } catch {
        // a killed sync prints nothing
      }
      const t = parseTrace(x.err);
      const wait = (p: string) => t.phases.get(p)?.wall;
      const ending: Ending =
        x.code === null ? "killed"
        : wait("sync.joined-failure") !== undefined ? "joined-failure"
        : wait("sync.wait-gave-up") !== undefined ? "gave-up-waiting"
        : joined ? "joined"
        : "ran";
      const lockWait = wait("sync.lock-wait") ?? wait("sync.joined") ?? wait("sync.joined-failure") ?? wait("sync.wait-gave-up") ?? NaN;
      f.records.push({ ms: x.ms, code: x.code, attempts, lockWait, ending, ...t });
      if (x.code !== 0 && x.code !== 6) console.log(`  ${f.label}: exit ${x.code}: ${x.err.split("\n").filter((l) => !l.startsWith("memsync sync-trace")).join(" ").slice(0, 300)}`);
    }
    const ms = runs.map((x) => x.ms);
    console.log(`round ${r + 1} ${f.label}: burst ${((performance.now() - t0) / 1000).toFixed(1)} s, syncs ${ms.map((x) => (x / 1000).toFixed(1)).join(" ")} s, exits ${runs.map((x) => x.code).join(" ")}; load ${os.loadavg()[0]!.toFixed(1)}`);
  }
}

// every fleet converged: one more sync round, one after another, then the same head everywhere
for (const f of fleets) {
  for (const d of [...f.dirs, ...f.dirs]) await run(f.bin, ["--store", d, "sync"]);
  const heads = new Set(f.dirs.map((d) => spawnSync("git", ["-C", d, "rev-parse", "HEAD"], { encoding: "utf8" }).stdout.trim()));
  const count = memoryFiles(["-C", f.dirs[0]!]);
  console.log(`${f.label}: ${heads.size} head(s) after settling; ${count} memory files in history (expected ${seeded + rounds * saves * clones})`);
}

console.log("\n| binary | syncs | median s | p90 s | max s | exit 0 | exit 6 | other | attempts (mean, max) | CPU s per sync |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const f of fleets) {
  const ms = f.records.map((x) => x.ms / 1000);
  const codes = (c: number | null) => f.records.filter((x) => x.code === c).length;
  const att = f.records.map((x) => x.attempts).filter((a) => a > 0);
  const cpu = f.records.map((x) => (x.phases.get("sync.sync")?.cpu ?? 0) + (x.phases.get("sync.auto-repack")?.cpu ?? 0));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(`| ${f.label} | ${f.records.length} | ${pct(ms, 0.5).toFixed(1)} | ${pct(ms, 0.9).toFixed(1)} | ${Math.max(...ms).toFixed(1)} | ${codes(0)} | ${codes(6)} | ${f.records.length - codes(0) - codes(6)} | ${mean(att).toFixed(1)}, ${Math.max(0, ...att)} | ${(mean(cpu) / 1000).toFixed(2)} |`);
}
if (perClone > 1 || fleets.some((f) => f.records.some((x) => x.ending !== "ran"))) {
  console.log(`\n| binary | syncs | lock wait median s | p90 s | max s | over ${waitLimitS} s | ran | joined | joined a failure | gave up waiting | killed |`);
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const f of fleets) {
    const w = f.records.map((x) => x.lockWait / 1000).filter((x) => Number.isFinite(x));
    const n = (e: Ending) => f.records.filter((x) => x.ending === e).length;
    console.log(`| ${f.label} | ${f.records.length} | ${pct(w, 0.5).toFixed(1)} | ${pct(w, 0.9).toFixed(1)} | ${Math.max(0, ...w).toFixed(1)} | ${w.filter((x) => x > waitLimitS).length} | ${n("ran")} | ${n("joined")} | ${n("joined-failure")} | ${n("gave-up-waiting")} | ${n("killed")} |`);
  }
}
const names = [...new Set(fleets.flatMap((f) => f.records.flatMap((x) => [...x.phases.keys()])))].sort();
console.log(`\n| phase (summed over all syncs) | ${fleets.map((f) => `${f.label} n | wall s | CPU s`).join(" | ")} |`);
console.log(`|---|${fleets.map(() => "---|---|---").join("|")}|`);
for (const p of names) {
  const cells = fleets.map((f) => {
    const t = f.records.reduce((a, x) => {
      const v = x.phases.get(p);
      return v ? { wall: a.wall + v.wall, cpu: a.cpu + v.cpu, n: a.n + v.n } : a;
    }, { wall: 0, cpu: 0, n: 0 });
    return `${t.n} | ${(t.wall / 1000).toFixed(1)} | ${(t.cpu / 1000).toFixed(1)}`;
  });
  console.log(`| ${p} | ${cells.join(" | ")} |`);
}
for (const f of fleets) {
  const notes = new Map<string, number>();
  for (const x of f.records) for (const [k, v] of x.notes) notes.set(k, (notes.get(k) ?? 0) + v);
  console.log(`${f.label}: ${[...notes].map(([k, v]) => `${k} ${v}`).join(", ")}`);
}
if (!argv.includes("--keep")) fs.rmSync(root, { recursive: true, force: true });
else console.log(`kept ${root}`);
