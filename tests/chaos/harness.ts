import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startGitHttpServer, type GitHttpServer } from "../helpers/git-http-server.ts";
import { type ChaosLog, checkRun, doubleCounted, type Failure, readState } from "./checks.ts";
import { makeRng, type Rng } from "../helpers/rng.ts";
import { type ServeRun, type ServeStats, startServeClone } from "./serve-clone.ts";

// The multi-machine chaos run (issue 9): clones of one bare remote (on a local path, and one or
// more over real smart HTTP served by native `git http-backend`), each a real store driven by the
// compiled binary as processes with its own MEMSYNC_MACHINE. One loop per clone runs random
// operations (save, touch, update --content, relate, archive, delete, sync, commit); syncs and
// commits run in the background so a clone's own writes overlap its sync; bursts touch one shared
// memory on several clones at the same instant. Random sync, commit and delete processes are
// SIGKILLed (at a random delay, or by fault injection after the Nth git object when the binary
// supports MEMSYNC_FAULT); saves, touches, updates, relates and archives never are: an exit 0
// is an acknowledgement that must hold. Then activity stops, every clone syncs in turn until a
// whole round changes nothing, and checks.ts compares every acknowledged effect with the files.
// Used by tests/chaos/chaos.test.ts (short form) and scripts/chaos (long form).

export interface ChaosOptions {
  /** The compiled binary. */
  bin: string;
  /** Clones of the bare remote reached by its path. */
  localClones: number;
  /** Clones reached over smart HTTP (git http-backend on 127.0.0.1). */
  httpClones: number;
  /** More local-path clones, each with a long-running `memsync serve` on its tree written to over its API (serve-clone.ts). */
  serveClones?: number;
  /** Mean seconds between kills or stops of a serve clone's server (default 4). */
  serveKillEverySeconds?: number;
  /** Operations to run (acknowledged or not, bursts included) before stopping. */
  ops: number;
  /** SIGKILLs to reach before stopping (the run goes on past `ops` until it has them). */
  kills: number;
  seed: number;
  /** Stop starting operations after this long, targets reached or not. */
  maxSeconds: number;
  /**
   * Past maxSeconds with fewer than the minimums below, go on up to this many seconds more: a slow
   * machine then runs longer rather than failing the run for being slow (default 0).
   */
  graceSeconds?: number;
  /** Reaching the cap is a failure only below these (default: the targets themselves). */
  minOps?: number;
  minKills?: number;
  /** Memories made before the clones: touched in bursts, never deleted. */
  sharedMemories: number;
  /** Share of kills done by MEMSYNC_FAULT=object:N (when the binary supports it). */
  faultShare: number;
  /** A timed kill lands 0..killDelayMs after the spawn. */
  killDelayMs: number;
  /** After each killed sync, check that the remote's branch names only complete objects. */
  remoteChecks: boolean;
  /** Keep the temp folder (else it is removed when the run passes). */
  keep: boolean;
  /** git's gc.auto / gc.autoPackLimit in every clone: low values make commits and syncs repack often (killed ones too). */
  gcAuto?: number;
  gcAutoPackLimit?: number;
  /** A process running longer than this is killed and reported as hung. */
  processTimeoutMs: number;
  /**
   * Share of the first clone's operations that are the main build's maintenance (consolidate
   * --apply, split, gc, gc --archive; killable like syncs). 0: none, the mix as before. Above 0
   * the other lanes' saves also make work for it: near-duplicates, long memories, faded ones.
   */
  maintenance?: number;
  /**
   * Variables given to every memsync process (the caller's MEMSYNC_* are stripped): e.g.
   * MEMSYNC_BOUNDED_FROM=10 so the chaos stores, far under 2,000 memories, build and merge recall's
   * impact postings in every sync and gc.
   */
  env?: Record<string, string>;
  /** Progress lines (stderr in scripts/chaos). */
  log: (line: string) => void;
}

// The short form is time-boxed: on a busy machine it runs fewer operations rather than longer,
// and only below its minimums does it take up to 45 s more to reach them.
// Both run the main build's maintenance on the first clone (`--maintenance 0` in scripts/chaos: none).
export const SHORT_FORM: Partial<ChaosOptions> = { localClones: 2, httpClones: 1, ops: 300, kills: 12, minOps: 40, minKills: 8, sharedMemories: 4, maxSeconds: 10, graceSeconds: 45, processTimeoutMs: 60_000, maintenance: 0.15 };
export const LONG_FORM: Partial<ChaosOptions> = { localClones: 8, httpClones: 1, ops: 10_000, kills: 200, sharedMemories: 12, maxSeconds: 7200, processTimeoutMs: 300_000, maintenance: 0.15 };

export type OpKind = "save" | "touch" | "update" | "relate" | "archive" | "delete" | "sync" | "commit" | "consolidate" | "split" | "gc" | "setup";
export const KILLABLE: ReadonlySet<OpKind> = new Set(["sync", "commit", "delete", "consolidate", "split", "gc"]);
/** The main build's maintenance: what removes memories with successors (consolidate, split) or prunes (gc). */
export const MAINTENANCE: ReadonlySet<OpKind> = new Set(["consolidate", "split", "gc"]);

/** One memsync process the run started, with what came of it. Times are ms since the run began. */
export interface OpRecord {
  seq: number;
  clone: number;
  kind: OpKind;
  args: string[];
  start: number;
  end: number;
  code: number | null;
  signal: string | null;
  /** Killed by the harness's plan (timer or fault injection). */
  killed: boolean;
  kill?: { how: "timer"; delayMs: number } | { how: "fault"; point: string };
  hung: boolean;
  /** For a hung process: what it was doing when the harness gave up on it (hangSnapshot). */
  hangInfo?: string;
  /** Part of a burst of simultaneous touches. */
  burst: boolean;
  /** Setup or the final rounds: not counted as chaos operations. */
  phase: "setup" | "chaos" | "final";
  /** The memory the operation names (memory ids for relate: from, to). */
  memory?: string;
  to?: string;
  /** What an acknowledged save or update stored (read back from --json). */
  content?: string;
  relation?: string;
  /** A save made faded (created and last used 90 days ago, by `save --input`): what gc may prune. */
  faded?: boolean;
  /** A tag an update added (`update --add-tag`): a label edit. */
  tag?: string;
  /** gc --archive (archives instead of deleting). */
  archive?: boolean;
  /** An acknowledged maintenance command's output: the memories it removed (archived, for gc --archive)... */
  removed?: string[];
  /** ...and the successors it made (consolidate: the merged memory; split: the parts). */
  made?: string[];
  /** Which memory each removed one went into (consolidate, split): the lineage its output names. */
  successors?: Record<string, string[]>;
  stdout: string;
  stderr: string;
  /** An HTTP request to a serve clone's server (serve-clone.ts), with its status. */
  via?: "http";
  status?: number;
  /** Its answer was lost to a kill of the server: it may or may not have taken effect. */
  unknown?: boolean;
}

export interface Clone {
  index: number;
  name: string;
  machine: string;
  dir: string;
  http: boolean;
  /** A `memsync serve` runs on its tree. */
  serve?: boolean;
  /** Ids this clone probably has (a touch of an id it lacks is refused with exit 3: harmless). */
  known: Set<string>;
  background: number;
  killsAwaitingRecovery: number;
}

export interface ChaosResult {
  options: ChaosOptions;
  dir: string;
  clones: Clone[];
  records: OpRecord[];
  faultInjection: boolean;
  insecureHttpFlag: boolean;
  recoveries: number;
  remoteChecks: { runs: number; failures: string[] };
  finalRounds: number;
  converged: boolean;
  durationMs: number;
  chaosMs: number;
  failures: Failure[];
  /** Things worth knowing that are not failures. */
  notes: string[];
  targetsMet: boolean;
  /** What each serve clone's server did. */
  serve: ServeStats[];
}

/** MEMSYNC_FAULT points other than object:N that the fixes may know (N: the Nth time). */
const FAULT_POINTS = ["copied", "pack", "commit-index", "commit-ref", "checkout-index", "checkout-ref", "checkout-intent", "checkout-file:N", "checkout-durable"];

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu".split(" ");

export function defaults(over: Partial<ChaosOptions> = {}): ChaosOptions {
  const repo = path.resolve(import.meta.dirname, "../..");
  const o: ChaosOptions = {
    bin: process.env.MEMSYNC_BIN ?? path.join(repo, "dist/memsync"),
    localClones: 2,
    httpClones: 1,
    ops: 300,
    kills: 10,
    seed: Math.floor(Math.random() * 2 ** 31),
    maxSeconds: 60,
    sharedMemories: 4,
    faultShare: 0.5,
    killDelayMs: 300,
    remoteChecks: true,
    keep: false,
    processTimeoutMs: 120_000,
    log: () => {},
    ...over,
  };
  // the processes run in the run's folder: a relative MEMSYNC_BIN=dist/memsync is the caller's
  o.bin = path.resolve(o.bin);
  return o;
}

/** Run the chaos and check the result; never throws for a finding (see result.failures). */
export async function runChaos(partial: Partial<ChaosOptions> = {}): Promise<ChaosResult> {
  const o = defaults(partial);
  if (!fs.existsSync(o.bin)) throw new Error(`no binary at ${o.bin} (build it: bun scripts/build.ts)`);
  const t0 = process.hrtime.bigint();
  const now = () => Number(process.hrtime.bigint() - t0) / 1e6;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-chaos-"));
  const home = path.join(root, "home");
  fs.mkdirSync(home);
  const remoteDir = path.join(root, "remote.git");
  const rng = makeRng(o.seed);
  const records: OpRecord[] = [];
  const running = new Set<ChildProcess>();
  const failures: Failure[] = [];
  const notes: string[] = [];
  let server: GitHttpServer | undefined;
  const serveRuns: ServeRun[] = [];
  let seq = 0;
  let kills = 0;
  let recoveries = 0;
  let chaosOps = 0;
  const remoteChecks = { runs: 0, failures: [] as string[] };

  const baseEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("MEMSYNC_")) baseEnv[k] = v;
  Object.assign(baseEnv, { HOME: home, NO_COLOR: "1", FORCE_COLOR: "0" }, o.env ?? {});

  interface RunSpec {
    clone: Clone | null;
    kind: OpKind;
    args: string[];
    phase: OpRecord["phase"];
    kill?: OpRecord["kill"];
    burst?: boolean;
    memory?: string;
    to?: string;
    env?: Record<string, string>;
    cwd?: string;
    faded?: boolean;
  }

  /** Start a memsync process and resolve with its record when it has exited. */
  function run(spec: RunSpec): Promise<OpRecord> {
    const rec: OpRecord = {
      seq: ++seq,
      clone: spec.clone?.index ?? -1,
      kind: spec.kind,
      args: spec.args,
      start: now(),
      end: 0,
      code: null,
      signal: null,
      killed: false,
      hung: false,
      burst: spec.burst ?? false,
      phase: spec.phase,
      stdout: "",
      stderr: "",
    };
    if (spec.kill) rec.kill = spec.kill;
    if (spec.memory) rec.memory = spec.memory;
    if (spec.to) rec.to = spec.to;
    if (spec.faded) rec.faded = true;
    records.push(rec);
    const env: Record<string, string> = { ...baseEnv, MEMSYNC_MACHINE: spec.clone?.machine ?? "chaos-setup", ...spec.env };
    if (spec.kill?.how === "fault") env.MEMSYNC_FAULT = spec.kill.point;
    const args = spec.clone ? ["--store", spec.clone.dir, ...spec.args] : spec.args;
    return new Promise((resolve) => {
      const child = spawn(o.bin, args, { env, cwd: spec.cwd ?? root, stdio: ["ignore", "pipe", "pipe"] });
      running.add(child);
      let out = "";
      let err = "";
      child.stdout!.on("data", (d) => (out += d));
      child.stderr!.on("data", (d) => (err.length < 4000 ? (err += d) : undefined));
      const timers: NodeJS.Timeout[] = [];
      if (spec.kill?.how === "timer") timers.push(setTimeout(() => child.kill("SIGKILL"), spec.kill.delayMs));
      timers.push(
        setTimeout(() => {
          rec.hung = true;
          if (child.pid) rec.hangInfo = hangSnapshot(child.pid, err);
          child.kill("SIGKILL");
        }, o.processTimeoutMs),
      );
      let ended = false;
      const done = (code: number | null, signal: string | null) => {
        if (ended) return; // "error" and "close" can both come
        ended = true;
        for (const t of timers) clearTimeout(t);
        running.delete(child);
        rec.end = now();
        rec.code = code;
        rec.signal = signal;
        rec.killed = signal === "SIGKILL" && !rec.hung && spec.kill !== undefined;
        rec.stdout = out;
        rec.stderr = err.slice(0, 2000);
        resolve(rec);
      };
      child.on("error", (e) => {
        err += String(e);
        done(-1, null);
      });
      child.on("close", done);
    });
  }

  const parse = (r: OpRecord): any => {
    try {
      return JSON.parse(r.stdout);
    } catch {
      return null;
    }
  };

  function must(r: OpRecord, what: string): any {
    if (r.code !== 0) throw new Error(`chaos setup: ${what} exited ${r.code ?? r.signal}: ${r.stderr.trim()}`);
    return parse(r);
  }

  const gitOut = (cwd: string, ...args: string[]) => spawnSync("git", args, { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const remoteHead = () => gitOut(remoteDir, "rev-parse", "--verify", "-q", "refs/heads/main").stdout.trim();

  const clones: Clone[] = [];
  let faultInjection = false;
  let insecureHttpFlag = false;
  let targetsMet = false;
  let converged = false;
  let finalRounds = 0;
  let chaosStart = 0;
  let chaosEnd = 0;

  try {
    // ---- setup: the remote, the HTTP server, the first store and the shared memories, the clones
    const init = spawnSync("git", ["init", "-q", "--bare", "-b", "main", remoteDir], { encoding: "utf8" });
    if (init.status !== 0) throw new Error(`git init --bare: ${init.stderr}`);
    // native git on the server side must not repack or prune behind the run's back (memsync's
    // own repack of a path remote after a push is part of what runs: gc.auto as in the clones)
    gitOut(remoteDir, "config", "receive.autogc", "false");
    if (o.gcAuto !== undefined) gitOut(remoteDir, "config", "gc.auto", String(o.gcAuto));
    if (o.gcAutoPackLimit !== undefined) gitOut(remoteDir, "config", "gc.autoPackLimit", String(o.gcAutoPackLimit));
    if (o.httpClones > 0) server = await startGitHttpServer(root);
    const help = spawnSync(o.bin, ["clone", "--help"], { encoding: "utf8", env: baseEnv });
    insecureHttpFlag = /insecure-http/.test(`${help.stdout}${help.stderr}`);
    faultInjection = await detectFaultInjection();

    const total = o.localClones + o.httpClones + (o.serveClones ?? 0);
    for (let i = 0; i < total; i++) {
      const http = i >= o.localClones && i < o.localClones + o.httpClones;
      const serve = i >= o.localClones + o.httpClones;
      clones.push({ index: i, name: `${http ? "http" : serve ? "serve" : "local"}-${i}`, machine: `chaos-m${i}`, dir: path.join(root, `clone-${i}`), http, ...(serve ? { serve } : {}), known: new Set(), background: 0, killsAwaitingRecovery: 0 });
    }
    const first = clones[0]!;
    must(await run({ clone: null, kind: "setup", args: ["init", first.dir, "--json"], phase: "setup", env: { MEMSYNC_MACHINE: first.machine } }), "init");
    must(await run({ clone: first, kind: "setup", args: ["remote", "set", remoteDir, "--json"], phase: "setup" }), "remote set");
    const shared: string[] = [];
    for (let i = 0; i < o.sharedMemories; i++) {
      const r = await run({ clone: first, kind: "save", args: ["save", `shared ${i} ${words(rng, 4)}`, "--json"], phase: "setup" });
      const out = must(r, "save");
      r.memory = out.memory.id;
      r.content = out.memory.content;
      shared.push(out.memory.id);
    }
    must(await run({ clone: first, kind: "sync", args: ["sync", "--json"], phase: "setup" }), "first sync");
    for (const c of clones.slice(1)) {
      const url = c.http ? server!.url("remote.git") : remoteDir;
      const flags = c.http && insecureHttpFlag ? ["--insecure-http"] : [];
      must(await run({ clone: null, kind: "setup", args: ["clone", url, c.dir, ...flags, "--json"], phase: "setup", env: { MEMSYNC_MACHINE: c.machine } }), `clone ${c.name}`);
    }
    for (const c of clones) {
      if (o.gcAuto !== undefined) gitOut(c.dir, "config", "gc.auto", String(o.gcAuto));
      if (o.gcAutoPackLimit !== undefined) gitOut(c.dir, "config", "gc.autoPackLimit", String(o.gcAutoPackLimit));
    }
    for (const c of clones) for (const id of shared) c.known.add(id);
    const hot = new Set(shared);
    o.log(`chaos: seed ${o.seed}, ${o.localClones} local-path + ${o.httpClones} HTTP${o.serveClones ? ` + ${o.serveClones} serve` : ""} clones in ${root}; fault injection ${faultInjection ? "yes" : "no"}`);

    // ---- chaos
    chaosStart = now();
    const deadline = chaosStart + o.maxSeconds * 1000;
    const hardDeadline = deadline + (o.graceSeconds ?? 0) * 1000;
    const minimumsMet = () => chaosOps >= (o.minOps ?? o.ops) && kills >= (o.minKills ?? o.kills);
    const saved: { id: string; end: number }[] = shared.map((id) => ({ id, end: 0 }));
    const deletedAcked: { id: string; end: number }[] = [];
    let stopping = false;
    const background = new Set<Promise<void>>();
    let killableSeen = 0;
    let remoteCheckRunning: Promise<void> | null = null;
    let remoteCheckAgain = false;
    let done = false;
    const shouldStop = () => {
      if (chaosOps >= o.ops && kills >= o.kills) done = true;
      return done || (now() > deadline && minimumsMet()) || now() > hardDeadline;
    };
    let lastLog = 0;
    const progress = () => {
      if (now() - lastLog < 5000) return;
      lastLog = now();
      o.log(`chaos: ${chaosOps}/${o.ops} operations, ${kills}/${o.kills} kills, ${Math.round((now() - chaosStart) / 1000)} s`);
    };

    const killPlan = (r: Rng, kind: OpKind): OpRecord["kill"] | undefined => {
      killableSeen++;
      const remainingKills = o.kills - kills;
      const share = Math.max(0.1, killableSeen / Math.max(1, chaosOps));
      // operations still to come: to the target, or as many as the time left allows at this pace
      const elapsed = Math.max(1, now() - chaosStart);
      const byTime = (chaosOps / elapsed) * Math.max(0, deadline - now());
      const remainingKillable = Math.max(1, Math.min(o.ops - chaosOps, byTime) * share);
      const p = remainingKills <= 0 ? 0.05 : Math.min(0.9, Math.max(0.1, (1.6 * remainingKills) / remainingKillable));
      if (r() >= p) return undefined;
      if (faultInjection && kind !== "delete" && r() < o.faultShare) {
        // mostly "after the Nth object"; sometimes a named point between two durable steps (a
        // point this binary does not know is harmless: the process just finishes)
        return r() < 0.7 ? { how: "fault", point: `object:${1 + Math.floor(r() * 16)}` } : { how: "fault", point: pick(r, FAULT_POINTS)!.replace("N", String(1 + Math.floor(r() * 4))) };
      }
      // half land in the first killDelayMs, half anywhere in a typical run of this kind of process
      const span = r() < 0.5 ? o.killDelayMs : typical(kind);
      return { how: "timer", delayMs: Math.floor(r() * span) };
    };
    const durations = new Map<OpKind, number[]>();
    const typical = (kind: OpKind) => {
      const d = [...(durations.get(kind) ?? [])].sort((a, b) => a - b);
      return d.length ? d[Math.floor(d.length / 2)]! : o.killDelayMs;
    };

    const checkRemote = () => {
      if (!o.remoteChecks) return;
      if (remoteCheckRunning) {
        remoteCheckAgain = true;
        return;
      }
      remoteCheckRunning = (async () => {
        do {
          remoteCheckAgain = false;
          remoteChecks.runs++;
          const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
            const child = spawn("git", ["rev-list", "--objects", "refs/heads/main"], { cwd: remoteDir, stdio: ["ignore", "ignore", "pipe"] });
            let err = "";
            child.stderr.on("data", (d) => (err += d));
            child.on("close", (code) => resolve({ code, err }));
          });
          if (r.code !== 0 && remoteChecks.failures.length < 20) remoteChecks.failures.push(`at ${Math.round(now())} ms: git rev-list --objects main exited ${r.code}: ${r.err.trim().split("\n")[0]}`);
        } while (remoteCheckAgain && !stopping);
        remoteCheckRunning = null;
      })();
    };

    const afterRecord = (c: Clone, r: OpRecord) => {
      // the serve clone's HTTP writes come on top of the targets (serve-clone.ts)
      if (r.phase === "chaos" && r.via !== "http") chaosOps++;
      if (KILLABLE.has(r.kind) && !r.kill && r.code !== null) {
        const d = durations.get(r.kind) ?? [];
        d.push(r.end - r.start);
        if (d.length > 25) d.shift();
        durations.set(r.kind, d);
      }
      if (r.killed) {
        kills++;
        c.killsAwaitingRecovery++;
        if (r.kind === "sync" && !c.http) checkRemote();
      }
      if (r.kind === "sync" && r.code === 0) {
        recoveries += c.killsAwaitingRecovery;
        c.killsAwaitingRecovery = 0;
        for (const s of saved) if (s.end < r.start) c.known.add(s.id);
        for (const d of deletedAcked) if (d.end < r.start) c.known.delete(d.id);
      }
      progress();
    };

    const pick = <T>(r: Rng, xs: readonly T[]): T | undefined => (xs.length ? xs[Math.floor(r() * xs.length)] : undefined);

    // maintenance (o.maintenance > 0): the last acknowledged content of each memory (any clone), to
    // make near-duplicates of and to split; the memories the first clone (the main machine) runs
    // consolidate --apply, split, gc and gc --archive on
    const maint = o.maintenance ?? 0;
    const contents = new Map<string, string>();
    const remember = (id: string, content: string | undefined) => {
      if (content !== undefined) contents.set(id, content);
    };

    async function maintain(c: Clone, r: Rng): Promise<void> {
      const y = r();
      let kind: OpKind;
      let args: string[];
      let memory: string | undefined;
      const archive = y >= 0.88;
      if (y < 0.4) {
        kind = "consolidate";
        args = ["consolidate", "--apply", "--claim-maintainer", "--json"];
      } else if (y < 0.7) {
        // a long memory when there is one (what a user splits), else any this clone knows
        const mine = [...c.known].filter((id) => !hot.has(id) && contents.has(id));
        const long = mine.filter((id) => contents.get(id)!.length >= 300);
        memory = pick(r, long.length ? long : mine);
        if (!memory) return sleep(5);
        const ws = contents.get(memory)!.split(" ");
        const half = Math.max(1, Math.ceil(ws.length / 2));
        kind = "split";
        args = ["split", memory, "--part", `${ws.slice(0, half).join(" ")} (part 1)`, "--part", `${ws.slice(half).join(" ")} (part 2)`, "--claim-maintainer", "--json"];
      } else {
        kind = "gc";
        args = ["gc", ...(archive ? ["--archive"] : []), "--claim-maintainer", "--json"];
      }
      const kill = killPlan(r, kind);
      const rec = await run({ clone: c, kind, args, phase: "chaos", ...(memory ? { memory } : {}), ...(kill ? { kill } : {}) });
      if (kind === "gc" && archive) rec.archive = true;
      const out = rec.code === 0 ? parse(rec) : null;
      if (out) {
        const made: { id: string; content?: string }[] = [];
        if (kind === "consolidate") {
          rec.removed = (out.applied ?? []).flatMap((a: any) => a.sources ?? []);
          rec.successors = {};
          for (const a of out.applied ?? []) {
            made.push({ id: a.into, content: (out.clusters ?? []).find((k: any) => k.id === a.cluster)?.merged?.content });
            for (const src of a.sources ?? []) rec.successors[src] = [a.into];
          }
        } else if (kind === "split") {
          rec.removed = out.original_is === "removed" ? [out.original] : [];
          for (const p of out.parts ?? []) made.push({ id: p.id, content: p.content });
          rec.successors = { [out.original]: made.map((m) => m.id) };
        } else rec.removed = [...(out.removed ?? [])];
        rec.made = made.map((m) => m.id);
        if (kind !== "gc" || !archive) for (const id of rec.removed ?? []) c.known.delete(id);
        for (const m of made) {
          c.known.add(m.id);
          saved.push({ id: m.id, end: rec.end });
          remember(m.id, m.content);
        }
      }
      afterRecord(c, rec);
    }

    /** A save's arguments: plain, or (with maintenance) a near-duplicate, a long memory, a faded one. */
    function saveArgs(c: Clone, r: Rng, known: readonly string[]): { args: string[]; faded?: boolean } {
      const plain = `chaos ${c.name} ${seq + 1} ${words(r, 5)}`;
      if (maint <= 0) return { args: ["save", plain, "--json"] };
      const v = r();
      if (v < 0.25) {
        // the content of a memory this clone knows with one word more: consolidate's work
        const of = pick(r, known.filter((id) => contents.has(id) && !hot.has(id)));
        if (of) return { args: ["save", `${contents.get(of)!.slice(0, 700)} ${words(r, 1)}`, "--json"] };
      } else if (v < 0.35) {
        // long enough to split (split --candidates: 500 characters)
        return { args: ["save", `chaos ${c.name} ${seq + 1} long ${words(r, 110)}`, "--json"] };
      } else if (v < 0.5) {
        // faded: made and last used 90 days ago, never used since (gc's work), through the
        // user-facing `save --input` record fields an import of old notes uses
        const t = Math.floor(Date.now() / 1000) - 90 * 86_400;
        const file = path.join(root, "inputs", `faded-${c.index}-${seq + 1}.json`);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, JSON.stringify({ content: `chaos ${c.name} ${seq + 1} faded ${words(r, 5)}`, created_at: t - 86_400, last_used: t }));
        return { args: ["save", "--input", file, "--json"], faded: true };
      }
      return { args: ["save", plain, "--json"] };
    }

    async function operate(c: Clone, r: Rng): Promise<void> {
      if (c.index === 0 && maint > 0 && r() < maint) return maintain(c, r);
      const x = r();
      const known = [...c.known];
      const cold = known.filter((id) => !hot.has(id));
      let rec: OpRecord | undefined;
      if (x < 0.14) {
        const s = saveArgs(c, r, known);
        rec = await run({ clone: c, kind: "save", args: s.args, phase: "chaos", ...(s.faded ? { faded: true } : {}) });
        const out = rec.code === 0 ? parse(rec) : null;
        if (out?.memory?.id) {
          rec.memory = out.memory.id;
          rec.content = out.memory.content;
          c.known.add(out.memory.id);
          saved.push({ id: out.memory.id, end: rec.end });
          remember(out.memory.id, rec.content);
        }
      } else if (x < 0.42) {
        const id = r() < 0.5 ? pick(r, shared) : pick(r, known);
        if (id) rec = await run({ clone: c, kind: "touch", args: ["touch", id, "--json"], phase: "chaos", memory: id });
      } else if (x < 0.56) {
        const id = r() < 0.3 ? pick(r, shared) : pick(r, known);
        if (id && maint > 0 && r() < 0.25) {
          // a label edit
          const tag = `t${seq + 1}`;
          rec = await run({ clone: c, kind: "update", args: ["update", id, "--add-tag", tag, "--json"], phase: "chaos", memory: id });
          rec.tag = tag;
        } else if (id) {
          rec = await run({ clone: c, kind: "update", args: ["update", id, "--content", `edit ${c.name} ${seq + 1} ${words(r, 6)}`, "--json"], phase: "chaos", memory: id });
          const out = rec.code === 0 ? parse(rec) : null;
          if (out?.memories?.[0]) rec.content = out.memories[0].content;
          if (rec.code === 0) remember(id, rec.content);
        }
      } else if (x < 0.63) {
        const a = pick(r, known);
        const b = pick(r, known);
        if (a && b && a !== b) {
          const type = pick(r, ["related", "supports", "causes"])!;
          rec = await run({ clone: c, kind: "relate", args: ["relate", a, b, "--type", type, "--json"], phase: "chaos", memory: a, to: b });
          const out = rec.code === 0 ? parse(rec) : null;
          if (out?.relation?.id) rec.relation = out.relation.id;
        }
      } else if (x < 0.67) {
        const id = pick(r, known);
        if (id) rec = await run({ clone: c, kind: "archive", args: ["archive", id, "--json"], phase: "chaos", memory: id });
      } else if (x < 0.73) {
        const id = pick(r, cold);
        if (id) {
          const kill = killPlan(r, "delete");
          rec = await run({ clone: c, kind: "delete", args: ["delete", id, "--json"], phase: "chaos", memory: id, ...(kill ? { kill } : {}) });
          if (rec.code === 0) {
            c.known.delete(id);
            deletedAcked.push({ id, end: rec.end });
          }
        }
      } else {
        const kind: OpKind = x < 0.93 ? "sync" : "commit";
        const kill = killPlan(r, kind);
        const p = run({ clone: c, kind, args: [kind, "--json"], phase: "chaos", ...(kill ? { kill } : {}) }).then((rr) => afterRecord(c, rr));
        // in the background, so this clone's next writes overlap it (at most two at once)
        if (c.background < 2 && r() < 0.8) {
          c.background++;
          const tracked = p.finally(() => {
            c.background--;
            background.delete(tracked);
          });
          background.add(tracked);
        } else await p;
        return;
      }
      if (rec) afterRecord(c, rec);
      else await sleep(5);
    }

    const lanes = clones.map(async (c) => {
      const r = makeRng(o.seed * 31 + c.index + 1);
      while (!stopping) {
        if (shouldStop()) break;
        await operate(c, r);
      }
    });
    // bursts: one shared memory touched on several clones at the same instant (same second)
    const bursts = (async () => {
      const r = makeRng(o.seed * 31 + 1000);
      while (!stopping && !shouldStop()) {
        await sleep(100 + r() * 400);
        if (clones.length < 2 || shouldStop()) break;
        const id = pick(r, shared)!;
        const who = clones.filter(() => r() < 0.7);
        if (who.length < 2) who.splice(0, who.length, ...clones.slice(0, 2));
        // half the bursts start from one shared state: the clones sync first (never killed), so
        // their touches in the same second write the same bytes (where git sees no conflict)
        if (r() < 0.5) {
          const syncs = await Promise.all(who.map((c) => run({ clone: c, kind: "sync", args: ["sync", "--json"], phase: "chaos" })));
          syncs.forEach((rr, i) => afterRecord(who[i]!, rr));
          if (shouldStop()) break;
        }
        const recs = await Promise.all(who.map((c) => run({ clone: c, kind: "touch", args: ["touch", id, "--json"], phase: "chaos", memory: id, burst: true })));
        recs.forEach((rr, i) => afterRecord(who[i]!, rr));
      }
    })();
    for (const c of clones.filter((x) => x.serve)) {
      serveRuns.push(startServeClone({ bin: o.bin, root, env: baseEnv, seed: o.seed, clone: c, records, nextSeq: () => ++seq, now, afterRecord, saved, deletedAcked, shared, shouldStop, processTimeoutMs: o.processTimeoutMs, log: o.log, ...(o.serveKillEverySeconds ? { killEverySeconds: o.serveKillEverySeconds } : {}) }));
    }
    await Promise.all(lanes);
    await Promise.all(serveRuns.map((s) => s.quiesce()));
    stopping = true;
    await bursts;
    await Promise.all([...background]);
    targetsMet = minimumsMet();
    await remoteCheckRunning;
    chaosEnd = now();
    o.log(`chaos: stopped after ${chaosOps} operations and ${kills} kills in ${Math.round((chaosEnd - chaosStart) / 1000)} s; final syncs`);

    // ---- final: every clone syncs in turn, until a whole round (after at least two) changes nothing
    const head = (c: Clone) => gitOut(c.dir, "rev-parse", "-q", "--verify", "HEAD").stdout.trim();
    for (let round = 1; round <= 8; round++) {
      finalRounds = round;
      let changed = false;
      for (const c of clones) {
        const before = `${head(c)} ${remoteHead()}`;
        const r = await run({ clone: c, kind: "sync", args: ["sync", "--json"], phase: "final" });
        if (r.code !== 0) {
          changed = true;
          failures.push({ check: "final sync", message: `${c.name}: sync in final round ${round} exited ${r.code ?? r.signal}: ${r.stderr.trim().split("\n")[0]}` });
        } else {
          recoveries += c.killsAwaitingRecovery;
          c.killsAwaitingRecovery = 0;
        }
        if (`${head(c)} ${remoteHead()}` !== before) changed = true;
      }
      if (round >= 2 && !changed) {
        converged = true;
        break;
      }
    }
    if (!converged) failures.push({ check: "final sync", message: `the clones did not settle: every one of ${finalRounds} rounds of syncs still changed something` });
    // a final sync that failed but then succeeded is not a finding; keep only the last word per clone
    dedupeFinalSync(failures, clones, records, notes);
    if (!targetsMet) {
      failures.push({ check: "targets", message: `the duration cap (${o.maxSeconds + (o.graceSeconds ?? 0)} s) came first: ${chaosOps} operations (at least ${o.minOps ?? o.ops} wanted), ${kills} kills (at least ${o.minKills ?? o.kills} wanted)` });
    }
    for (const r of records) if (r.hung) failures.push({ check: "hung", message: `${clones[r.clone]?.name ?? "setup"}: ${r.args.join(" ")} ran past ${o.processTimeoutMs} ms and was killed (what it was doing: hang-${r.seq}.txt)` });
    for (const f of remoteChecks.failures) failures.push({ check: "remote after kill", message: f });

    for (const s of serveRuns) {
      await s.finish();
      failures.push(...s.failures);
    }
    const log: ChaosLog = { clones, records, remoteDir, bin: o.bin, env: baseEnv, shared };
    failures.push(...checkRun(log, notes));
    if (maint > 0) {
      // a use counted twice is no loss (checks.ts counts each stream once): said, not failed
      const d = doubleCounted(readState(clones[0]!.dir));
      if (d.memories) notes.push(`uses counted twice on ${clones[0]!.name}: ${d.memories} memories there beside a successor that holds their streams too (${d.uses} uses over; ${d.ids.slice(0, 3).join(", ")}${d.ids.length > 3 ? ", ..." : ""})`);
    }
  } finally {
    for (const child of running) child.kill("SIGKILL");
    for (const s of serveRuns) s.abort();
    await server?.close();
  }

  const result: ChaosResult = {
    options: o,
    dir: root,
    clones,
    records,
    faultInjection,
    insecureHttpFlag,
    recoveries,
    remoteChecks,
    finalRounds,
    converged,
    durationMs: now(),
    chaosMs: chaosEnd - chaosStart,
    failures,
    notes,
    targetsMet,
    serve: serveRuns.map((s) => s.stats),
  };
  // the log of every process, for reading a failure
  for (const r of records) if (r.hangInfo) fs.writeFileSync(path.join(root, `hang-${r.seq}.txt`), r.hangInfo);
  fs.writeFileSync(path.join(root, "ops.jsonl"), records.map(({ hangInfo: _, ...r }) => JSON.stringify({ ...r, stdout: r.stdout.length > 300 ? `${r.stdout.slice(0, 300)}…` : r.stdout })).join("\n") + "\n");
  if (!o.keep && failures.length === 0) fs.rmSync(root, { recursive: true, force: true });
  return result;

  /** Does the binary kill itself after the Nth git object when MEMSYNC_FAULT says so? */
  async function detectFaultInjection(): Promise<boolean> {
    const dir = path.join(root, "fault-probe");
    const env = { MEMSYNC_MACHINE: "chaos-probe" };
    const a = await run({ clone: null, kind: "setup", args: ["init", dir], phase: "setup", env });
    const b = await run({ clone: null, kind: "setup", args: ["--store", dir, "save", "fault probe"], phase: "setup", env });
    if (a.code !== 0 || b.code !== 0) return false;
    const c = await run({ clone: null, kind: "setup", args: ["--store", dir, "commit"], phase: "setup", env: { ...env, MEMSYNC_FAULT: "object:1" } });
    records.splice(records.indexOf(a), 1);
    records.splice(records.indexOf(b), 1);
    records.splice(records.indexOf(c), 1);
    fs.rmSync(dir, { recursive: true, force: true });
    return c.signal === "SIGKILL";
  }
}

/**
 * One word per clone on its final syncs: a clone whose last final sync failed (everything after
 * follows from it: its files are stale); one that failed and then succeeded is a note, not a finding.
 */
function dedupeFinalSync(failures: Failure[], clones: Clone[], records: OpRecord[], notes: string[]): void {
  for (let i = failures.length - 1; i >= 0; i--) if (failures[i]!.check === "final sync" && failures[i]!.message.includes(": sync in final round")) failures.splice(i, 1);
  for (const c of clones) {
    const mine = records.filter((r) => r.phase === "final" && r.clone === c.index);
    const failed = mine.filter((r) => r.code !== 0);
    if (!failed.length) continue;
    const first = failed[0]!;
    const what = `${c.name}: ${failed.length} of ${mine.length} final syncs failed, the first with exit ${first.code ?? first.signal}: ${first.stderr.trim().split("\n")[0]}`;
    if (mine.at(-1)?.code === 0) notes.push(`${what} (the last succeeded)`);
    else failures.unshift({ check: "final sync", message: `${what}; the checks below see this clone as it was` });
  }
}

function words(r: Rng, n: number): string {
  return Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" ");
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * What a process the harness is about to kill as hung was doing, so a hang found once in a long run
 * can be read afterwards: each thread's state, kernel wait channel and current system call, its
 * open files (locks, sockets, pipes), its stderr so far, and two seconds of its system calls (strace
 * attached, where ptrace is allowed). Synchronous: a hang is rare, and the kill waits for it.
 */
export function hangSnapshot(pid: number, stderr: string): string {
  const read = (p: string) => {
    try {
      return fs.readFileSync(p, "utf8").trim();
    } catch (e) {
      return `(${(e as NodeJS.ErrnoException).code ?? "unreadable"})`;
    }
  };
  const lines = [`pid ${pid} at ${new Date().toISOString()}`, `cmdline: ${read(`/proc/${pid}/cmdline`).replaceAll("\0", " ").trim()}`];
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    lines.push("(gone)");
  }
  for (const t of tasks) {
    const stat = read(`/proc/${pid}/task/${t}/stat`);
    lines.push(`thread ${t} ${read(`/proc/${pid}/task/${t}/comm`)}: state ${stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)} wchan ${read(`/proc/${pid}/task/${t}/wchan`)} syscall ${read(`/proc/${pid}/task/${t}/syscall`)}`);
  }
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        lines.push(`fd ${fd} -> ${fs.readlinkSync(`/proc/${pid}/fd/${fd}`)}`);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // gone
  }
  lines.push(`stderr so far: ${stderr.slice(-2000) || "(none)"}`);
  const trace = spawnSync("timeout", ["2", "strace", "-f", "-tt", "-p", String(pid)], { encoding: "utf8", maxBuffer: 8 << 20 });
  const traced = `${trace.stderr ?? ""}`.split("\n");
  lines.push(`strace -f -p ${pid} for 2 s (${traced.length} lines${traced.length > 400 ? ", the first 400" : ""}):`, ...traced.slice(0, 400));
  return `${lines.join("\n")}\n`;
}
