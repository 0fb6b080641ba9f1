import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeRng, type Rng } from "../helpers/rng.ts";
import type { Failure } from "./checks.ts";
import type { Clone, OpKind, OpRecord } from "./harness.ts";

// The serve clone of the chaos run (issue: the edge deployment): a clone whose tree a long-running
// `memsync serve` (the compiled binary, token auth, an ephemeral port on 127.0.0.1) keeps open
// while the harness's ordinary lane runs CLI writes and syncs (SIGKILLed as on any clone) on the
// same tree. Here: several HTTP writers at once (save, touch, update, relate, archive, delete and
// POST /v1/sync), a controller that now and then SIGKILLs the server's process group mid-request
// (a crash: its sync subprocess dies with it, as under systemd) or SIGTERMs it (a clean stop), and
// starts it again, and a watcher that asks the server for what the CLI wrote or a CLI sync
// deleted. An HTTP write's record joins the run's log like a CLI process's: 2xx = code 0 (an
// acknowledgement the checks hold it to); an answer lost to a kill = `unknown` (it may or may not
// have happened). Its own findings (5xx, the server disagreeing with the files, a clean stop that
// was not clean) are returned as failures.

export interface ServeContext {
  bin: string;
  root: string;
  env: Record<string, string>;
  seed: number;
  clone: Clone;
  records: OpRecord[];
  nextSeq(): number;
  now(): number;
  /** The harness's bookkeeping after an operation (counts, known ids). */
  afterRecord(c: Clone, r: OpRecord): void;
  /** Acknowledged saves and deletes on every clone (the harness's lists, read live). */
  saved: readonly { id: string; end: number }[];
  deletedAcked: readonly { id: string; end: number }[];
  /** Memories touched in bursts, never deleted. */
  shared: readonly string[];
  shouldStop(): boolean;
  processTimeoutMs: number;
  log(line: string): void;
  /** HTTP writers in flight at once. */
  writers?: number;
  /** Mean seconds between server kills or stops. */
  killEverySeconds?: number;
}

export interface ServeStats {
  clone: string;
  httpOps: number;
  acknowledged: number;
  byKind: Record<string, number>;
  /** Answers lost to a kill (outcome unknown), by the signal, and the first few errors of those lost to a SIGTERM. */
  unknown: number;
  lostTo: Record<string, number>;
  lostToStop: string[];
  /**
   * What a clean stop (SIGTERM) did to the requests it met: answered 503 "the server is stopping"
   * (nothing changed: held to it as a refusal), no answer at all (a reset or close: outcome
   * unknown), split by whether the request was sent before the stop began or after, and
   * connections refused (the listener closed: nothing sent).
   */
  stopAnswers: { stopping503: number; resetSentBefore: number; resetSentAfter: number; connectionRefused: number };
  /** Non-2xx answers by status. */
  refused: Record<string, number>;
  /** POST /v1/sync answered 503 unavailable (the sync could not finish; as the CLI's exit 6). */
  syncUnavailable: number;
  crashes: number;
  stops: number;
  starts: number;
  /** Reads compared with the files (read-your-writes, deletes pulled by a CLI sync, final). */
  agreementChecks: number;
  finalCompared: number;
}

export interface ServeRun {
  /** Stop the writers and the controller (the server stays up for the final syncs). */
  quiesce(): Promise<void>;
  /** After the final syncs: the server must serve exactly what the files hold; then SIGTERM. */
  finish(): Promise<void>;
  stats: ServeStats;
  failures: Failure[];
  /** Kill whatever still runs (the harness's finally). */
  abort(): void;
}

const TOKEN = "chaos-serve-token-0123456789abcdef";
const WORDS = "amber birch cedar dune ember fjord grove heath inlet jade kelp larch moss".split(" ");

/** A 2xx answer is an acknowledgement (code 0); other statuses map to the CLI's exit codes. */
export function codeOfStatus(status: number): number {
  if (status >= 200 && status < 300) return 0;
  return ({ 400: 4, 404: 3, 409: 5, 503: 6, 504: 9, 401: 8, 403: 8 } as Record<number, number>)[status] ?? 1;
}

/**
 * The server and the files must agree on whether a memory exists: `before` and `after` are the
 * files just before the request and after its answer, `served` what the server answered. While
 * the files changed in between, either answer is right; else the server must say what they say.
 */
export function disagrees(before: boolean, served: boolean, after: boolean): boolean {
  return before === after && served !== before;
}

/**
 * A 5xx, or no answer at all, is excused only when it came from a server whose kill or stop had
 * begun by the time the answer (or the failure) came back; the write then may or may not have
 * happened. Anything else is a finding.
 */
export function lostToKill(answerEnd: number, killBegan: number | undefined): boolean {
  return killBegan !== undefined && answerEnd >= killBegan;
}

/** The record file of memory id in a store's folders (flat or sharded), or null. */
function memoryFile(dir: string, id: string): string | null {
  const flat = path.join(dir, "memories", `${id}.json`);
  if (fs.existsSync(flat)) return flat;
  const base = path.join(dir, "memories");
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(base, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const p = path.join(base, e.name, `${id}.json`);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

function memoryIdsOnDisk(dir: string): Map<string, any> {
  const out = new Map<string, any>();
  const walk = (abs: string) => {
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(abs, e.name));
      else if (e.name.endsWith(".json") && !e.name.startsWith(".")) {
        let v: any = null;
        try {
          v = JSON.parse(fs.readFileSync(path.join(abs, e.name), "utf8"));
        } catch {}
        out.set(e.name.slice(0, -5), v);
      }
    }
  };
  walk(path.join(dir, "memories"));
  return out;
}

interface Server {
  child: ChildProcess;
  url: string;
  gen: number;
  exited: Promise<{ code: number | null; signal: string | null }>;
  stderr: () => string;
}

export function startServeClone(ctx: ServeContext): ServeRun {
  const c = ctx.clone;
  const failures: Failure[] = [];
  const stats: ServeStats = { clone: c.name, httpOps: 0, acknowledged: 0, byKind: {}, unknown: 0, lostTo: {}, lostToStop: [], stopAnswers: { stopping503: 0, resetSentBefore: 0, resetSentAfter: 0, connectionRefused: 0 }, refused: {}, syncUnavailable: 0, crashes: 0, stops: 0, starts: 0, agreementChecks: 0, finalCompared: 0 };
  const tokenFile = path.join(ctx.root, `serve-token-${c.index}`);
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  /** Generation -> when its kill or stop began (answers after that may be lost). */
  const killedAt = new Map<number, { at: number; how: "SIGKILL" | "SIGTERM" }>();
  let server: Server | null = null;
  let ready: Promise<Server> | null = null;
  let gen = 0;
  let quiet = false;
  let aborted = false;
  const fail = (check: string, message: string) => {
    if (failures.filter((f) => f.check === check).length < 30) failures.push({ check, message: `${c.name}: ${message}` });
  };

  function launch(): Promise<Server> {
    const g = ++gen;
    stats.starts++;
    const env = { ...ctx.env, MEMSYNC_MACHINE: c.machine };
    // its own process group: a crash kills the server and the sync it runs, as systemd does
    const child = spawn(ctx.bin, ["--store", c.dir, "serve", "--listen", "127.0.0.1:0", "--token-file", tokenFile], { env, cwd: ctx.root, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    let err = "";
    child.stderr!.on("data", (d) => (err.length < 20_000 ? (err += d) : undefined));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`serve (start ${g}) did not listen within ${ctx.processTimeoutMs} ms: ${err.trim()}`)), ctx.processTimeoutMs);
      child.stdout!.on("data", (d) => {
        out += d;
        const m = /^memsync serve: listening on (\S+)\n/m.exec(out);
        if (m && !server) {
          clearTimeout(t);
          server = { child, url: m[1]!, gen: g, exited, stderr: () => err };
          resolve(server);
        }
      });
      void exited.then((x) => {
        clearTimeout(t);
        if (!server || server.child !== child) reject(new Error(`serve (start ${g}) exited ${x.code ?? x.signal} before listening: ${err.trim().split("\n").slice(-3).join(" | ")}`));
      });
    });
  }

  const up = async (): Promise<Server> => {
    // a server being stopped or killed: wait for it to be gone, then start the next (a client
    // that retries until the service is back)
    while (server && killedAt.has(server.gen)) await server.exited;
    if (server) return server;
    ready ??= launch().finally(() => (ready = null));
    return ready;
  };

  async function takeDown(how: "SIGKILL" | "SIGTERM"): Promise<void> {
    const s = server;
    if (!s) return;
    const from = ctx.now();
    killedAt.set(s.gen, { at: from, how });
    if (how === "SIGKILL") {
      stats.crashes++;
      try {
        process.kill(-s.child.pid!, "SIGKILL");
      } catch {}
    } else {
      stats.stops++;
      s.child.kill("SIGTERM");
    }
    const x = await s.exited;
    server = null;
    if (how === "SIGTERM") {
      if (x.code !== 0) fail("serve stop", `SIGTERM: serve exited ${x.code ?? x.signal}, not 0: ${s.stderr().trim().split("\n").slice(-2).join(" | ")}`);
      // what a clean stop left running (its sync finished first, so nothing should be)
    }
    const lines = s.stderr().split("\n").filter((l) => /memsync serve: .* (internal|corrupt):/.test(l));
    for (const l of lines.slice(0, 3)) fail("serve stderr", `start ${s.gen}: ${l.slice(0, 300)}`);
  }

  /** One HTTP request as an operation record. */
  async function request(kind: OpKind, route: string, body: unknown, extra: Partial<OpRecord> = {}, logged = true): Promise<{ rec: OpRecord; out: any }> {
    const s = await up();
    const rec: OpRecord = { seq: ctx.nextSeq(), clone: c.index, kind, args: [`POST ${route}`, JSON.stringify(body).slice(0, 200)], start: ctx.now(), end: 0, code: null, signal: null, killed: false, hung: false, burst: false, phase: quiet ? "final" : "chaos", stdout: "", stderr: "", via: "http", ...extra };
    if (logged) ctx.records.push(rec);
    let out: any = null;
    try {
      const r = await fetch(`${s.url}${route}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(body), signal: AbortSignal.timeout(ctx.processTimeoutMs) });
      const text = await r.text();
      rec.end = ctx.now();
      rec.status = r.status;
      rec.code = codeOfStatus(r.status);
      try {
        out = JSON.parse(text);
      } catch {}
      rec.stdout = text.length > 300 ? `${text.slice(0, 300)}…` : text;
      if (r.status >= 500) {
        const k = killedAt.get(s.gen);
        // a stopping server's refusal: read after the stop began, refused before it touched the
        // store (faces/api/app.ts); held to "nothing changed" like any refusal
        if (r.status === 503 && out?.error?.code === "unavailable" && /server is stopping/.test(out?.error?.message ?? "") && k?.how === "SIGTERM") stats.stopAnswers.stopping503++;
        else if (lostToKill(rec.end, k?.at)) rec.unknown = true;
        // a sync that could not finish (the remote kept moving, a stalled network) says so with
        // 503 unavailable, as the CLI's sync exits 6: refused, not a failure of the server
        else if (route === "/v1/sync" && r.status === 503 && out?.error?.code === "unavailable") stats.syncUnavailable++;
        else fail("5xx", `${route} #${rec.seq} answered ${r.status} at ${(rec.end / 1000).toFixed(3)} s with no kill under way: ${text.slice(0, 200)}`);
      }
    } catch (e) {
      rec.end = ctx.now();
      const k = killedAt.get(s.gen);
      if (e instanceof Error && e.name === "TimeoutError") {
        rec.hung = true;
        fail("hung", `${route} #${rec.seq} unanswered after ${ctx.processTimeoutMs} ms`);
      } else if (k && lostToKill(rec.end, k.at)) {
        // the answer was lost to the kill or stop: the write may or may not have happened
        rec.unknown = true;
        rec.signal = k.how;
        if (k.how === "SIGTERM") {
          const msg = e instanceof Error ? `${e.message} ${(e as NodeJS.ErrnoException).code ?? ""}` : String(e);
          if (/ECONNREFUSED|Unable to connect|ConnectionRefused/i.test(msg)) stats.stopAnswers.connectionRefused++;
          else if (rec.start < k.at) stats.stopAnswers.resetSentBefore++;
          else stats.stopAnswers.resetSentAfter++;
        }
        // (a clean stop too: Bun's graceful stop closes a keep-alive connection whose request it
        // has not read yet, e.g. while a write waits for the store's lock; counted in the report)
      } else fail("dropped", `${route} #${rec.seq}: no answer and no kill under way: ${e instanceof Error ? e.message : String(e)}`);
      rec.stderr = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    }
    if (!quiet && logged) {
      stats.httpOps++;
      if (rec.code === 0) {
        stats.acknowledged++;
        stats.byKind[kind] = (stats.byKind[kind] ?? 0) + 1;
      } else if (rec.unknown) {
        stats.unknown++;
        const how = killedAt.get(s.gen)?.how ?? "?";
        stats.lostTo[how] = (stats.lostTo[how] ?? 0) + 1;
        if (how === "SIGTERM" && stats.lostToStop.length < 5) stats.lostToStop.push(`${route} sent ${(rec.start - killedAt.get(s.gen)!.at).toFixed(0)} ms after the stop began: ${rec.status ?? rec.stderr.slice(0, 160)}`);
      }
      else if (rec.status) stats.refused[`${kind} ${rec.status}`] = (stats.refused[`${kind} ${rec.status}`] ?? 0) + 1;
    }
    return { rec, out };
  }

  const pick = <T>(r: Rng, xs: readonly T[]): T | undefined => (xs.length ? xs[Math.floor(r() * xs.length)] : undefined);
  const words = (r: Rng, n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" ");
  /** Its own syncs one at a time: a POST /v1/sync during another would share that one's result. */
  let syncing = false;

  async function writeOnce(r: Rng, w: number): Promise<void> {
    const known = [...c.known];
    const hot = new Set(ctx.shared);
    const cold = known.filter((id) => !hot.has(id));
    const x = r();
    let rec: OpRecord | undefined;
    if (x < 0.16) {
      const content = `serve ${c.name} w${w} ${ctx.records.length} ${words(r, 5)}`;
      const res = await request("save", "/v1/save", { memory: { content } });
      rec = res.rec;
      if (rec.code === 0 && res.out?.memory?.id) {
        rec.memory = res.out.memory.id;
        rec.content = res.out.memory.content;
        c.known.add(res.out.memory.id);
        (ctx.saved as { id: string; end: number }[]).push({ id: res.out.memory.id, end: rec.end });
      }
    } else if (x < 0.46) {
      const id = r() < 0.4 ? pick(r, ctx.shared) : pick(r, known);
      if (id) rec = (await request("touch", "/v1/touch", { ids: [id] }, { memory: id })).rec;
    } else if (x < 0.62) {
      const id = r() < 0.3 ? pick(r, ctx.shared) : pick(r, known);
      if (id) {
        const content = `serve edit ${c.name} w${w} ${ctx.records.length} ${words(r, 6)}`;
        const res = await request("update", "/v1/update", { id, patch: { content } }, { memory: id, content });
        rec = res.rec;
        if (rec.code === 0) rec.content = res.out?.memories?.[0]?.content ?? content;
      }
    } else if (x < 0.7) {
      const a = pick(r, known);
      const b = pick(r, known);
      if (a && b && a !== b) {
        const res = await request("relate", "/v1/relate", { from: a, to: b, type: pick(r, ["related", "supports", "causes"]) }, { memory: a, to: b });
        rec = res.rec;
        if (rec.code === 0 && res.out?.relation?.id) rec.relation = res.out.relation.id;
      }
    } else if (x < 0.74) {
      const id = pick(r, known);
      if (id) rec = (await request("archive", "/v1/archive", { ids: [id] }, { memory: id })).rec;
    } else if (x < 0.8) {
      const id = pick(r, cold);
      if (id) {
        const res = await request("delete", "/v1/delete", { ids: [id] }, { memory: id });
        rec = res.rec;
        if (rec.code === 0) {
          c.known.delete(id);
          (ctx.deletedAcked as { id: string; end: number }[]).push({ id, end: rec.end });
        }
      }
    } else if (x < 0.86 && !syncing) {
      syncing = true;
      try {
        rec = (await request("sync", "/v1/sync", {})).rec;
      } finally {
        syncing = false;
      }
    } else {
      // a read of something the files say: the server must agree
      const id = r() < 0.5 ? pick(r, known) : pick(r, ctx.deletedAcked)?.id;
      if (id) await agree(id, "read");
      else await sleep(5);
      return;
    }
    if (rec) ctx.afterRecord(c, rec);
    else await sleep(5);
  }

  /** Ask the server for id between two looks at the files; they must agree. */
  async function agree(id: string, why: string): Promise<void> {
    const before = memoryFile(c.dir, id) !== null;
    // a read is not an operation of the run: out of the log the checks read
    const { rec, out } = await request("get" as OpKind, "/v1/get", { ids: [id] }, {}, false);
    if (rec.code !== 0 || !out) return;
    const after = memoryFile(c.dir, id) !== null;
    stats.agreementChecks++;
    const served = Array.isArray(out.found) && out.found.some((f: any) => f?.memory?.id === id);
    if (disagrees(before, served, after)) {
      fail(why === "deleted" ? "serves deleted" : "read-your-writes", `${why}: memory ${id} is ${before ? "in" : "not in"} the files before and after GET #${rec.seq} at ${(rec.end / 1000).toFixed(3)} s, yet the server ${served ? "served it as live" : "said not found"}`);
    }
  }

  const writers = Array.from({ length: ctx.writers ?? 3 }, async (_, w) => {
    const r = makeRng(ctx.seed * 37 + c.index * 7 + w + 11);
    while (!quiet && !ctx.shouldStop()) {
      try {
        await writeOnce(r, w);
      } catch (e) {
        if (aborted) return;
        fail("serve lane", `writer ${w}: ${e instanceof Error ? e.message : String(e)}`);
        await sleep(200);
      }
    }
  });

  // the watcher: every CLI save acknowledged on this tree must be served at once; after every
  // successful CLI sync on it, a delete acknowledged elsewhere before that sync began must not
  // be served while the files lack the memory
  const watcher = (async () => {
    let next = 0;
    while (!quiet && !ctx.shouldStop()) {
      await sleep(30);
      const fresh = ctx.records.slice(next);
      next = ctx.records.length;
      for (const r of fresh) {
        if (quiet || r.clone !== c.index || r.via === "http" || r.code !== 0 || r.phase !== "chaos") continue;
        try {
          if (r.kind === "save" && r.memory) await agree(r.memory, "CLI save");
          else if (r.kind === "sync") for (const d of ctx.deletedAcked.filter((d) => d.end < r.start).slice(-8)) await agree(d.id, "deleted");
        } catch (e) {
          if (!aborted) fail("serve lane", `watcher: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    }
  })();

  // the controller: a crash or a clean stop every few seconds, mid-request, then a new start
  // that must serve at once what the CLI wrote meanwhile
  const controller = (async () => {
    const r = makeRng(ctx.seed * 41 + c.index);
    const every = (ctx.killEverySeconds ?? 4) * 1000;
    while (!quiet && !ctx.shouldStop()) {
      await sleep(every * (0.3 + 1.4 * r()));
      if (quiet || ctx.shouldStop()) break;
      try {
        await up();
        await takeDown(r() < 0.7 ? "SIGKILL" : "SIGTERM");
        await sleep(r() * 300);
        const cliSaves = ctx.records.filter((x) => x.clone === c.index && x.via !== "http" && x.kind === "save" && x.code === 0 && x.memory).slice(-5);
        await up();
        for (const x of cliSaves) await agree(x.memory!, "after restart");
      } catch (e) {
        if (!aborted) fail("serve start", e instanceof Error ? e.message : String(e));
        await sleep(500);
      }
    }
  })();

  return {
    stats,
    failures,
    async quiesce() {
      await Promise.all([...writers, watcher, controller]);
      quiet = true;
      await up().catch((e) => fail("serve start", String(e)));
    },
    async finish() {
      // the files are still now: the server must serve every memory they hold, as they hold it,
      // and none they lack
      try {
        const disk = memoryIdsOnDisk(c.dir);
        const ids = new Set([...disk.keys(), ...ctx.saved.map((s) => s.id), ...ctx.deletedAcked.map((d) => d.id)]);
        const all = [...ids];
        for (let i = 0; i < all.length; i += 200) {
          const batch = all.slice(i, i + 200);
          const { rec, out } = await request("get" as OpKind, "/v1/get", { ids: batch }, {}, false);
          if (rec.code !== 0 || !out) {
            fail("final agreement", `GET of ${batch.length} ids answered ${rec.status ?? rec.stderr}`);
            continue;
          }
          const served = new Map<string, any>((out.found ?? []).map((f: any) => [f.memory.id, f.memory]));
          for (const id of batch) {
            stats.finalCompared++;
            const m = disk.get(id);
            const s = served.get(id);
            if (!m && s) fail("serves deleted", `after the final syncs memory ${id} is served but not in the files`);
            else if (m && !s) fail("read-your-writes", `after the final syncs memory ${id} is in the files but not served`);
            else if (m && s && (m.content !== s.content || m.use_count !== s.use_count || m.status !== s.status)) {
              fail("read-your-writes", `after the final syncs memory ${id} is served as ${JSON.stringify({ content: s.content, use_count: s.use_count, status: s.status }).slice(0, 200)}, the file says ${JSON.stringify({ content: m.content, use_count: m.use_count, status: m.status }).slice(0, 200)}`);
            }
          }
        }
      } catch (e) {
        fail("final agreement", e instanceof Error ? e.message : String(e));
      }
      await takeDown("SIGTERM");
      stats.stops--; // the last stop is the run's end, not chaos
    },
    abort() {
      aborted = true;
      quiet = true;
      const s = server;
      if (s)
        try {
          process.kill(-s.child.pid!, "SIGKILL");
        } catch {}
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
