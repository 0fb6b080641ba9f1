// A fetch's object copy from a path remote, after a change like a consolidation's: a hub (a bare
// repository on a local path) holding a store of a few thousand memories; one clone removes
// thousands of memories and adds a thousand more (what `consolidate --apply` did in chaos run c3:
// 2,708 removed, 1,104 made) and pushes; another clone, behind, then syncs and copies every new
// object from the hub (src/sync/objects.ts copyReachable, one object at a time).
//
// Measured per binary, side by side: the push (clone A's sync: push.copy into the hub) and the
// fetch (clone B's sync: pull.fetch) as wall and CPU time (MEMSYNC_SYNC_TRACE=1), the whole sync's
// CPU and peak RSS (the process's rusage), objects copied (from the trace's copy note, else the
// object count's growth) and CPU per object. Each run starts from the same copy of the setup (the
// hub before the push, clone A with its change committed, clone B behind), the binaries taking
// turns (the order swapped every run), so the load of the machine falls on both alike.
//
//   bun scripts/bench-lib/fetch-copy.ts A_BINARY [B_BINARY] [--setup DIR] [--memories 5000] [--remove 2700]
//       [--add 1100] [--modify 0] [--commits 0] [--per-commit 3] [--runs 3] [--fsck] [--keep]
//
// --commits N: after the change, N more commits on clone A of --per-commit touches and one new
// memory each (a clone far behind a busy hub, as in chaos: each commit brings new versions of the
// top folders' trees, the flat memories/ folder of the first 1,000 memories among them).
//
// Uses $TMPDIR (a tmpfs is best); removes what it made unless --keep. --setup DIR makes the setup
// in DIR and keeps it; a later run with DIR (and the same options) reuses it.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createMemory } from "../../src/core/records.ts";
import type { Memory } from "../../src/core/model/memory.ts";
import { Store } from "../../src/store/store.ts";
import { commitPending } from "../../src/sync/commit.ts";
import { Corpus } from "./corpus.ts";
import { ensureBenchStore, scratchCopy } from "./generate.ts";
import { numArg, positionals } from "./args.ts";

const argv = process.argv.slice(2);
const bins = positionals(new Set(["--memories", "--remove", "--add", "--modify", "--commits", "--per-commit", "--runs", "--setup"]));
const opt = (name: string, dflt: number) => numArg(`--${name}`, dflt);
if (bins.length < 1) {
  console.error("usage: bun scripts/bench-lib/fetch-copy.ts A_BINARY [B_BINARY] [--memories N] [--remove N] [--add N] [--modify N] [--runs N] [--fsck] [--keep]");
  process.exit(2);
}
const memories = opt("memories", 5000);
const removeN = opt("remove", 2700);
const addN = opt("add", 1100);
const modifyN = opt("modify", 0);
const commitsN = opt("commits", 0);
const perCommit = opt("per-commit", 3);
const runs = opt("runs", 3);
const fsck = argv.includes("--fsck");
// --setup DIR: the setup made there once and kept, then reused by later runs of the same options
const setupAt = argv.includes("--setup") ? path.resolve(argv[argv.indexOf("--setup") + 1]!) : null;
const root = setupAt ?? fs.mkdtempSync(path.join(os.tmpdir(), "memsync-fetchcopy-"));
if (setupAt) fs.mkdirSync(setupAt, { recursive: true });
const env = { ...process.env, HOME: root, MEMSYNC_MACHINE: "bench", MEMSYNC_SYNC_TRACE: "1" };

interface Proc {
  code: number | null;
  ms: number;
  cpuMs: number;
  rssMb: number;
  out: string;
  err: string;
}

async function run(bin: string, args: string[]): Promise<Proc> {
  const t0 = performance.now();
  const p = Bun.spawn([bin, ...args], { env, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  const ms = performance.now() - t0;
  const ru = p.resourceUsage();
  return { code, ms, cpuMs: Number(ru?.cpuTime.total ?? 0n) / 1000, rssMb: (ru?.maxRSS ?? 0) / 2 ** 20, out, err };
}

async function must(bin: string, args: string[]): Promise<Proc> {
  const r = await run(bin, args);
  if (r.code !== 0) throw new Error(`${args.join(" ")}: exit ${r.code}: ${r.err}`);
  return r;
}

function git(args: string[]): string {
  const r = spawnSync("git", args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** A phase's wall and CPU (ms) from the sync trace, summed over its lines. */
function phase(err: string, name: string): { wall: number; cpu: number } {
  let wall = 0;
  let cpu = 0;
  for (const m of err.matchAll(/^memsync sync-trace: (\S+) wall=(\d+) cpu=(\d+)/gm)) {
    if (m[1] !== name) continue;
    wall += Number(m[2]);
    cpu += Number(m[3]);
  }
  return { wall, cpu };
}

/** Objects a repository holds (loose and packed; a copy's count is the growth). */
function objectCount(gitdir: string): number {
  const v = git(["--git-dir", gitdir, "count-objects", "-v"]);
  return Number(/^count: (\d+)/m.exec(v)![1]) + Number(/^in-pack: (\d+)/m.exec(v)![1]);
}

/** Bytes under a repository's objects/ folder. */
function objectBytes(gitdir: string): number {
  let n = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else n += fs.statSync(path.join(d, e.name)).size;
    }
  };
  walk(`${gitdir}/objects`);
  return n;
}

const bin0 = bins[0]!;
const work = path.join(root, "run");
const tpl = path.join(root, "tpl");
const hub = path.join(work, "hub.git");
const cloneA = path.join(work, "clone-a");
const cloneB = path.join(work, "clone-b");

// --- setup, in the paths the runs use (the clones name the hub by its path), then kept aside ---
const reuse = fs.existsSync(tpl);
if (reuse) console.log(`reusing the setup in ${tpl}`);
else await setUp();
async function setUp(): Promise<void> {
  console.log(`generating a store of ${memories} memories…`);
  await ensureBenchStore(cloneA, memories, { fresh: true, seed: 7, log: (l) => console.log(l) });
  git(["init", "-q", "--bare", "-b", "main", hub]);
  await must(bin0, ["--store", cloneA, "remote", "set", hub]);
  await must(bin0, ["--store", cloneA, "sync"]);
  await must(bin0, ["--store", cloneA, "sync"]);
  await must(bin0, ["clone", hub, cloneB]);
  await must(bin0, ["--store", cloneB, "sync"]);

  // the change: memories removed (with their relations), new ones made, some changed (a touch)
  {
    const store = await Store.open(cloneA);
    try {
      const all = (await store.list({}, null)).memories;
      const step = all.length / Math.max(1, removeN + modifyN);
      const picked = Array.from({ length: Math.min(all.length, removeN + modifyN) }, (_, i) => all[Math.floor(i * step)]!);
      const gone = picked.slice(0, removeN).map((m) => m.id);
      const touched = picked.slice(removeN);
      const relations = [...new Set((await Promise.all(gone.map((id) => store.relationsOf(id)))).flatMap((r) => [...r.outgoing, ...r.incoming].map((x) => x.id)))];
      const corpus = new Corpus(addN, 99);
      const made: Memory[] = [];
      while (!corpus.done) {
        const { memory } = corpus.next();
        made.push(createMemory(memory.fields, memory.id, { now: memory.fields.created_at as number, machine: "bench-a", user: "bench" }));
      }
      await store.write((tx) => {
        tx.removeMany("relation", relations);
        tx.removeMany("memory", gone);
        for (const m of made) tx.putMemory(m);
        for (const m of touched) tx.putMemory({ ...m, use_count: (m.use_count ?? 0) + 1 } as Memory);
      });
      console.log(`change: ${gone.length} memories and ${relations.length} relations removed, ${made.length} made, ${touched.length} touched`);
    } finally {
      store.close();
    }
  }
  await must(bin0, ["--store", cloneA, "commit"]);
  // then a history: commits of a few touches and one new memory each (a clone far behind fetches
  // each one's commit, its top folders' new versions and its records: in chaos, hundreds of them)
  if (commitsN > 0) {
    const store = await Store.open(cloneA);
    try {
      const all = (await store.list({}, null)).memories;
      const corpus = new Corpus(commitsN, 98);
      for (let c = 0; c < commitsN; c++) {
        const { memory } = corpus.next();
        const made = createMemory(memory.fields, memory.id, { now: memory.fields.created_at as number, machine: "bench-a", user: "bench" });
        await store.write((tx) => {
          tx.putMemory(made);
          for (let k = 0; k < perCommit; k++) {
            const m = all[(c * perCommit + k) * 7919 % all.length]!;
            tx.putMemory({ ...m, use_count: (m.use_count ?? 0) + c + 1 } as Memory);
          }
        });
        await commitPending(store, { name: "bench", email: "memsync@bench-a" }, 1_800_000_000 + c);
      }
    } finally {
      store.close();
    }
    console.log(`history: ${commitsN} commits of ${perCommit} touches and one new memory`);
  }
  const hubObjects = objectCount(hub);
  const hubPacks = fs.readdirSync(`${hub}/objects/pack`).filter((n) => n.endsWith(".pack"));
  console.log(`hub: ${hubObjects} objects, ${hubPacks.length} pack(s) (${hubPacks.map((n) => `${(fs.statSync(`${hub}/objects/pack/${n}`).size / 2 ** 20).toFixed(1)} MB`).join(", ")})`);
  fs.renameSync(work, tpl);
}

/** The setup as it was, at the runs' paths (records hard-linked: memsync replaces a record by a rename, never in place). */
function restore(): void {
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work);
  spawnSync("cp", ["-a", `${tpl}/hub.git`, hub]);
  scratchCopy(`${tpl}/clone-a`, cloneA);
  scratchCopy(`${tpl}/clone-b`, cloneB);
}

interface Row {
  label: string;
  pushWall: number;
  pushCpu: number;
  pushed: number;
  fetchWall: number;
  fetchCpu: number;
  fetched: number;
  fetchMb: number;
  syncBWall: number;
  syncBCpu: number;
  syncBRss: number;
  load: number;
  ok: boolean;
}
const rows: Row[] = [];
const labels = bins.map((b, i) => `${String.fromCharCode(65 + i)}=${path.basename(b)}`);
for (let r = 0; r < runs; r++) {
  const order = r % 2 === 0 ? bins.map((_, i) => i) : bins.map((_, i) => i).reverse();
  for (const i of order) {
    const bin = bins[i]!;
    restore();
    const load = os.loadavg()[0]!;
    const before = objectCount(hub);
    const a = await must(bin, ["--store", cloneA, "sync", "--json"]);
    const pushed = objectCount(hub) - before;
    const beforeB = objectCount(`${cloneB}/.git`);
    const bytesB = objectBytes(`${cloneB}/.git`);
    // (no repack in clone B's sync: its growth is what the fetch wrote)
    const b = await must(bin, ["--store", cloneB, "sync", "--json"]);
    const fetched = objectCount(`${cloneB}/.git`) - beforeB;
    const fetchMb = (objectBytes(`${cloneB}/.git`) - bytesB) / 2 ** 20;
    const headB = git(["-C", cloneB, "rev-parse", "HEAD"]).trim();
    const headHub = git(["--git-dir", hub, "rev-parse", "main"]).trim();
    let ok = headB === headHub;
    if (fsck) {
      for (const g of [hub, `${cloneB}/.git`]) {
        const f = spawnSync("git", ["--git-dir", g, "fsck", "--strict", "--no-progress"], { encoding: "utf8" });
        if (f.status !== 0) {
          ok = false;
          console.log(`  fsck ${g}: ${f.stdout}${f.stderr}`.slice(0, 500));
        }
      }
    }
    const push = phase(a.err, "push.copy");
    const fetch = phase(b.err, "pull.fetch");
    const row: Row = {
      label: labels[i]!,
      pushWall: push.wall,
      pushCpu: push.cpu,
      pushed,
      fetchWall: fetch.wall,
      fetchCpu: fetch.cpu,
      fetched,
      fetchMb,
      syncBWall: b.ms,
      syncBCpu: b.cpuMs,
      syncBRss: b.rssMb,
      load,
      ok,
    };
    rows.push(row);
    console.log(
      `run ${r + 1} ${row.label}: push.copy ${pushed} objects wall ${(push.wall / 1000).toFixed(2)} s cpu ${(push.cpu / 1000).toFixed(2)} s; pull.fetch ${fetched} objects ${fetchMb.toFixed(1)} MB wall ${(fetch.wall / 1000).toFixed(2)} s cpu ${(fetch.cpu / 1000).toFixed(2)} s; sync B wall ${(b.ms / 1000).toFixed(2)} s cpu ${(b.cpuMs / 1000).toFixed(2)} s rss ${b.rssMb.toFixed(0)} MB; load ${load.toFixed(1)}${ok ? "" : " CHECK FAILED"}`,
    );
  }
}

const med = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};
console.log(`\n${memories} memories; change: ${removeN} removed, ${addN} made, ${modifyN} touched, then ${commitsN} commits; ${runs} run(s) per binary; medians`);
console.log("| binary | push objects | push.copy wall s | push.copy CPU s | fetch objects | fetched MB | pull.fetch wall s | pull.fetch CPU s | CPU ms/object | sync B wall s | sync B CPU s | sync B peak RSS MB | checks |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const l of labels) {
  const mine = rows.filter((x) => x.label === l);
  const m = (f: (x: Row) => number) => med(mine.map(f));
  console.log(
    `| ${l} | ${m((x) => x.pushed)} | ${(m((x) => x.pushWall) / 1000).toFixed(2)} | ${(m((x) => x.pushCpu) / 1000).toFixed(2)} | ${m((x) => x.fetched)} | ${m((x) => x.fetchMb).toFixed(1)} | ${(m((x) => x.fetchWall) / 1000).toFixed(2)} | ${(m((x) => x.fetchCpu) / 1000).toFixed(2)} | ${m((x) => x.fetchCpu / Math.max(1, x.fetched)).toFixed(2)} | ${(m((x) => x.syncBWall) / 1000).toFixed(2)} | ${(m((x) => x.syncBCpu) / 1000).toFixed(2)} | ${m((x) => x.syncBRss).toFixed(0)} | ${mine.every((x) => x.ok) ? "ok" : "FAILED"} |`,
  );
}
if (labels.length > 1) {
  const ratio = (f: (x: Row) => number) => med(rows.filter((x) => x.label === labels[1]).map(f)) / med(rows.filter((x) => x.label === labels[0]).map(f));
  console.log(`B/A: pull.fetch CPU ${ratio((x) => x.fetchCpu).toFixed(2)}, wall ${ratio((x) => x.fetchWall).toFixed(2)}; push.copy CPU ${ratio((x) => x.pushCpu).toFixed(2)}; sync B RSS ${ratio((x) => x.syncBRss).toFixed(2)}`);
}
if (setupAt) fs.rmSync(work, { recursive: true, force: true });
else if (!argv.includes("--keep")) fs.rmSync(root, { recursive: true, force: true });
else console.log(`kept ${root}`);
