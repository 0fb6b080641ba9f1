import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { socketName } from "../../src/faces/hooks/warm/place.ts";
import { CAPTURE_TUNING, WARM_PROMPTS } from "../fixtures/warm-prompts.ts";
import { CORPUS_MEMORIES } from "../fixtures/recall-corpus/memories.ts";
import { BIN, gitProject, memsync, memsyncAsync, memsyncJson, newStore, saveMany, tempDir } from "../helpers/env.ts";

// The warm hook server (src/faces/hooks/warm/): `hook UserPromptSubmit --warm` asks a store's
// server over a Unix socket and prints its answer, or runs in-process. Real processes only: the
// compiled binary as hook and as server, real stores, real kills. Every server a test starts is
// killed in its finally (and at the end of the file), and their idle time is short.

// short, so the socket's path fits sun_path wherever the test runner's TMPDIR is (else the
// server would use /tmp's folder, shared with other runs)
const RUNTIME = fs.mkdtempSync("/tmp/mswarm-");
const PROJECT = "github.com/acme/shop";
const IDLE_MS = "15000";

function warmEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { XDG_RUNTIME_DIR: RUNTIME, MEMSYNC_HOOK_SERVER_IDLE_MS: IDLE_MS, MEMSYNC_HOOK_SERVER_TRACE: "1", MEMSYNC_HOOK_SERVER_WAIT_MS: "20000", ...extra };
}

const socketOf = (store: string) => path.join(RUNTIME, `memsync-${process.getuid!()}`, socketName(fs.realpathSync(store)));

/** The pids of hook servers of this store (by their command line: each test's store path is its own). */
function serverPids(store: string): number[] {
  const real = reals.get(store) ?? fs.realpathSync(store);
  const out: number[] = [];
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let cmd: string;
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    const argv = cmd.split("\0");
    if (argv.includes("hook-server") && argv.includes(real)) {
      // a killed server not yet reaped by its parent (this test) is no server
      const state = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
      if (state !== "Z") out.push(Number(pid));
    }
  }
  return out;
}

const started = new Set<string>();
/** Each store's real path, taken while it exists (a test removes one). */
const reals = new Map<string, string>();
function killServers(store: string): void {
  for (const pid of serverPids(store)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
}
after(() => {
  for (const s of started) killServers(s);
  fs.rmSync(RUNTIME, { recursive: true, force: true });
});

async function until(done: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (const t0 = Date.now(); !done(); ) {
    if (Date.now() - t0 > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Start the store's server as the hook would (but from the test, with its env) and wait until it listens. */
/** (Its exit is wrapped: an async function returning a promise would wait for it.) */
async function startServer(store: string, env: Record<string, string> = {}): Promise<{ exited: Promise<{ code: number }> }> {
  started.add(store);
  reals.set(store, fs.realpathSync(store));
  let over = false;
  const exited = memsyncAsync(["hook-server", "--store", store], { env: warmEnv(env) }).finally(() => (over = true));
  // listening, or already gone (a short idle time on a loaded machine)
  await until(() => over || fs.existsSync(socketOf(store)), "the server listens");
  return { exited };
}

interface HookOut {
  stdout: string;
  path: string;
}

function hook(store: string, event: string, payload: Record<string, unknown>, warm: boolean, env: Record<string, string> = {}): HookOut {
  const input = JSON.stringify({ session_id: "sess-w", transcript_path: "/dev/null", hook_event_name: event, ...payload });
  const r = memsync(["--store", store, "hook", event, ...(warm ? ["--warm"] : [])], { input, env: warmEnv(env) });
  assert.equal(r.code, 0, r.stderr);
  return { stdout: r.stdout, path: /memsync hook: ([^\n]*)/.exec(r.stderr)?.[1] ?? "none" };
}

/** What a store holds, without what differs between two runs of the same changes (ids, times, replicas). */
function contents(store: string): string[] {
  return memsyncJson(["--store", store, "list", "--limit", "10000"])
    .memories.map((m: Record<string, unknown>) => JSON.stringify([m.type, m.content, m.project, m.entities, m.tags, m.status, (m.meta as { source?: string })?.source]))
    .sort();
}

/** A hook's output with the ids of memories made during the run replaced (they differ between copies). */
function normalised(out: string, known: ReadonlySet<string>): string {
  return out.replace(/\b[0-9a-f]{8}\]/g, (tail) => (known.has(tail.slice(0, 8)) ? tail : "NEW]"));
}

function copyStore(from: string): string {
  const to = path.join(tempDir(), "store");
  fs.cpSync(from, to, { recursive: true, filter: (src) => !/[/\\]\.memsync[/\\]index\.db/.test(src) });
  return to;
}

function corpusStore(): { store: string; known: Set<string> } {
  const store = newStore();
  const ids = saveMany(
    store,
    CORPUS_MEMORIES.map((m) => ({ content: m.content, type: m.type, project: PROJECT })),
  );
  return { store, known: new Set(ids.map((id) => id.slice(-8))) };
}

describe("hook --warm: the warm server", () => {
  test("answers byte-identical to the in-process path over tuning prompts, captures, off-topic and held decisions, on copies of one store", async () => {
    const { store: base, known } = corpusStore();
    const cold = copyStore(base);
    const warm = copyStore(base);
    const repo = gitProject("https://github.com/acme/shop.git");
    // the same steps both ways: prompts (recall, captures, off topic, replies) and the held-decision paths
    type Step = [event: string, payload: Record<string, unknown>];
    const steps: Step[] = [];
    for (const [i, prompt] of WARM_PROMPTS.entries()) {
      steps.push(["UserPromptSubmit", { cwd: repo, prompt }]);
      if (i === 6) steps.push(["Stop", { cwd: repo, last_assistant_message: "Done. I switched the cart tests from Jest to Vitest, because Vitest runs the suite in 4s instead of 40s." }], ["UserPromptSubmit", { cwd: repo, prompt: "ok, go ahead" }]);
      if (i === 14) steps.push(["Stop", { cwd: repo, last_assistant_message: "We decided to use MongoDB for the audit log." }], ["UserPromptSubmit", { cwd: repo, prompt: "no, keep it in Postgres" }]);
      if (i === 22) steps.push(["SubagentStop", { cwd: repo, last_assistant_message: "Done. I switched the job queue from SQS to Redis Streams, because SQS polling added seconds of latency." }], ["UserPromptSubmit", { cwd: repo, prompt: "great, what did we pick for the queue?" }]);
    }
    for (const text of CAPTURE_TUNING) steps.push(["UserPromptSubmit", { cwd: repo, prompt: text }]);
    // after the captures: recall sees them (their ids differ between the copies: normalised)
    steps.push(["UserPromptSubmit", { cwd: repo, prompt: "which package manager and test runner did we settle on?" }]);
    await startServer(warm);
    try {
      const paths = new Map<string, number>();
      let held = 0;
      for (const [event, payload] of steps) {
        // decisions an earlier turn held (hooks/pending.ts) are decided on by this prompt: a write, in-process
        const holding = event === "UserPromptSubmit" && fs.existsSync(path.join(warm, ".memsync", "pending", "sess-w.json"));
        const a = hook(cold, event, payload, false);
        const b = hook(warm, event, payload, event === "UserPromptSubmit");
        assert.equal(normalised(b.stdout, known), normalised(a.stdout, known), `${event} ${JSON.stringify(payload.prompt ?? payload.last_assistant_message)}`);
        paths.set(b.path, (paths.get(b.path) ?? 0) + 1);
        if (holding) {
          held++;
          assert.equal(b.path, "in-process (writes)", String(payload.prompt));
        }
      }
      assert.ok(held >= 2, `prompts after held decisions: ${held}`);
      // the rest were answered warm, or in-process for their captures, the server running throughout
      const asked = steps.filter(([e]) => e === "UserPromptSubmit").length;
      assert.equal((paths.get("warm") ?? 0) + (paths.get("in-process (writes)") ?? 0), asked, JSON.stringify([...paths]));
      assert.ok((paths.get("warm") ?? 0) >= WARM_PROMPTS.length - 5, `answered warm: ${JSON.stringify([...paths])}`);
      assert.ok((paths.get("in-process (writes)") ?? 0) >= held + CAPTURE_TUNING.length / 2, `in-process: ${JSON.stringify([...paths])}`);
      assert.deepEqual(contents(warm), contents(cold));
      assert.ok(contents(warm).length > CORPUS_MEMORIES.length, "the captures were stored");
      const pending = (s: string) => memsyncJson(["--store", s, "status"]).pending;
      assert.deepEqual(pending(warm), pending(cold));
    } finally {
      killServers(warm);
    }
  });

  test("writes made between two warm requests by other processes are seen by the next request", async () => {
    const { store } = corpusStore();
    const repo = gitProject("https://github.com/acme/shop.git");
    await startServer(store);
    try {
      const ask = () => hook(store, "UserPromptSubmit", { cwd: repo, prompt: "how do we deploy the zeppelin telemetry relay?" }, true);
      const before = ask();
      assert.equal(before.path, "warm");
      assert.doesNotMatch(before.stdout, /zeppelin/i);
      // a CLI save in another process
      const [id] = saveMany(store, [{ content: "The zeppelin telemetry relay is deployed with a blue-green switch on Fly.io.", type: "decision", project: PROJECT }]);
      const seen = ask();
      assert.equal(seen.path, "warm");
      assert.match(seen.stdout, /zeppelin telemetry relay is deployed with a blue-green switch/);
      // a hand edit of the memory's file, saved as editors save (a new file renamed over it: its
      // folder's mtime moves; an edit in place is found by status and commit only, README Sync)
      const file = [path.join(store, "memories", `${id!}.json`), path.join(store, "memories", id!.slice(-2), `${id!}.json`)].find((p) => fs.existsSync(p))!;
      const record = JSON.parse(fs.readFileSync(file, "utf8"));
      record.content = "The zeppelin telemetry relay is deployed with a canary on Render.";
      fs.writeFileSync(`${file}.swp`, JSON.stringify(record, null, 2));
      fs.renameSync(`${file}.swp`, file);
      const edited = ask();
      assert.equal(edited.path, "warm");
      assert.match(edited.stdout, /canary on Render/);
      assert.doesNotMatch(edited.stdout, /blue-green/);
      // and what the server answers is what the hook's own process answers after it
      assert.equal(hook(store, "UserPromptSubmit", { cwd: repo, prompt: "how do we deploy the zeppelin telemetry relay?" }, false).stdout, edited.stdout);
      // a delete by the CLI
      assert.equal(memsync(["--store", store, "delete", id!]).code, 0);
      assert.doesNotMatch(ask().stdout, /zeppelin/i);
    } finally {
      killServers(store);
    }
  });

  test("a server killed at each point of a capture's request: the capture is stored once, by the hook itself", async () => {
    const repo = gitProject("https://github.com/acme/shop.git");
    const faults = ["die-on-request", "die-after-answer", "die-mid-reply"];
    for (const [i, fault] of faults.entries()) {
      const store = newStore();
      const reference = copyStore(store);
      const prompt = `We decided to use Temporal ${i + 1} for the billing workflows because retries need durable state`;
      const server = await startServer(store, { MEMSYNC_HOOK_SERVER_FAULT: fault });
      try {
        const got = hook(store, "UserPromptSubmit", { cwd: repo, prompt }, true);
        const ref = hook(reference, "UserPromptSubmit", { cwd: repo, prompt }, false);
        assert.equal(got.stdout, ref.stdout, fault);
        assert.equal(got.path, "in-process (a torn reply), starting a server", fault);
        assert.equal((await server.exited).code, -1, `${fault}: the server was killed`);
        assert.deepEqual(contents(store), contents(reference), fault);
        assert.equal(contents(store).length, 1, `${fault}: stored once`);
      } finally {
        killServers(store);
      }
    }
  });

  test("a server killed from outside at random moments while captures and questions run: every capture stored exactly once", async () => {
    const store = newStore();
    const repo = gitProject("https://github.com/acme/shop.git");
    started.add(store);
    reals.set(store, fs.realpathSync(store));
    try {
      const said: string[] = [];
      for (let i = 0; i < 8; i++) {
        // a server may be starting, serving or dead: kill whatever runs after a random delay
        const killer = new Promise<void>((resolve) =>
          setTimeout(() => {
            killServers(store);
            resolve();
          }, Math.floor(Math.random() * 60)),
        );
        const prompt = `We decided to keep feature flag ${i + 1} in LaunchDarkly because the product team edits them`;
        const r = await memsyncAsync(["--store", store, "hook", "UserPromptSubmit", "--warm"], {
          input: JSON.stringify({ session_id: "k", hook_event_name: "UserPromptSubmit", cwd: repo, prompt }),
          env: warmEnv(),
        });
        assert.equal(r.code, 0);
        said.push(prompt);
        const q = await memsyncAsync(["--store", store, "hook", "UserPromptSubmit", "--warm"], {
          input: JSON.stringify({ session_id: "k", hook_event_name: "UserPromptSubmit", cwd: repo, prompt: "where do we keep the feature flags?" }),
          env: warmEnv(),
        });
        assert.equal(q.code, 0);
        await killer;
      }
      const stored = memsyncJson(["--store", store, "list", "--limit", "100"]).memories.map((m: { content: string }) => m.content);
      for (let i = 0; i < said.length; i++) assert.equal(stored.filter((c: string) => c.includes(`feature flag ${i + 1} in`)).length, 1, said[i]!);
      assert.equal(stored.length, said.length);
    } finally {
      killServers(store);
    }
  });

  test("a hung server does not hang the hook: a bounded wait, then in-process, once; its name is removed", async () => {
    const store = newStore();
    const repo = gitProject("https://github.com/acme/shop.git");
    await startServer(store, { MEMSYNC_HOOK_SERVER_FAULT: "hang" });
    try {
      const prompt = "We decided to use Temporal for the billing workflows because retries need durable state";
      const t0 = Date.now();
      const got = hook(store, "UserPromptSubmit", { cwd: repo, prompt }, true, { MEMSYNC_HOOK_SERVER_WAIT_MS: "700" });
      assert.ok(Date.now() - t0 < 15_000);
      assert.equal(got.path, "in-process (no answer in time)");
      assert.equal(contents(store).length, 1, "stored once");
      assert.ok(!fs.existsSync(socketOf(store)), "the hung server's name is gone");
      // the hung server sees its name gone and leaves (its stuck request waited for a few seconds at most)
      await until(() => serverPids(store).length === 0, "the hung server exits", 20_000);
    } finally {
      killServers(store);
    }
  });

  test("the first prompt starts a server without holding the hook's output; a second start exits quietly; idle, a removed store and another build end it", async () => {
    const { store } = corpusStore();
    const repo = gitProject("https://github.com/acme/shop.git");
    started.add(store);
    reals.set(store, fs.realpathSync(store));
    try {
      const ask = (env: Record<string, string> = {}) => hook(store, "UserPromptSubmit", { cwd: repo, prompt: "which database do we use?" }, true, env);
      // the hook's stdout is a pipe the test reads to its end: a server holding it would hold the hook for its whole life
      const t0 = Date.now();
      assert.equal(ask({ MEMSYNC_HOOK_SERVER_IDLE_MS: "120000" }).path, "in-process (no server), starting a server");
      assert.ok(Date.now() - t0 < 60_000);
      await until(() => fs.existsSync(socketOf(store)), "the started server listens");
      assert.equal(serverPids(store).length, 1);
      assert.equal(ask().path, "warm");
      // a second server: exits 0 at once, the first keeps serving
      const second = memsync(["hook-server", "--store", store], { env: warmEnv() });
      assert.equal(second.code, 0);
      assert.equal(second.stdout + second.stderr, "");
      assert.equal(serverPids(store).length, 1);
      assert.equal(ask().path, "warm");
      // a client of another build: answered "in-process", and the server leaves
      assert.deepEqual(await rawRequest(socketOf(store), { build: "another-build" }), { inProcess: "build" });
      await until(() => serverPids(store).length === 0 && !fs.existsSync(socketOf(store)), "the server of the old build exits");
      // idle: a server with a short idle time exits and removes its name
      const idle = await startServer(store, { MEMSYNC_HOOK_SERVER_IDLE_MS: "300" });
      assert.equal((await idle.exited).code, 0);
      assert.ok(!fs.existsSync(socketOf(store)));
      // the store's folder removed: the server exits
      const gone = await startServer(store);
      fs.rmSync(store, { recursive: true, force: true });
      assert.equal((await gone.exited).code, 0);
    } finally {
      killServers(store);
    }
  });

  test("SessionStart --warm answers as before and starts the store's server; without --warm it starts none", async () => {
    const { store } = corpusStore();
    const repo = gitProject("https://github.com/acme/shop.git");
    started.add(store);
    reals.set(store, fs.realpathSync(store));
    try {
      const cold = hook(store, "SessionStart", { cwd: repo, source: "startup" }, false);
      assert.deepEqual(serverPids(store), []);
      const warm = hook(store, "SessionStart", { cwd: repo, source: "startup" }, true);
      assert.equal(warm.stdout, cold.stdout);
      await until(() => fs.existsSync(socketOf(store)), "the server SessionStart started listens");
      assert.equal(hook(store, "UserPromptSubmit", { cwd: repo, prompt: "which database do we use?" }, true).path, "warm");
    } finally {
      killServers(store);
    }
  });

  test("no warm path without a private socket folder, with MEMSYNC_HOOK_SERVER=0, or without --warm: in-process, no server", () => {
    const { store } = corpusStore();
    const repo = gitProject("https://github.com/acme/shop.git");
    started.add(store);
    reals.set(store, fs.realpathSync(store));
    const ask = (env: Record<string, string>, warm = true) => hook(store, "UserPromptSubmit", { cwd: repo, prompt: "which database do we use?" }, warm, env).path;
    try {
      // short folders, as RUNTIME (a long one would be passed over for /tmp's)
      const open = fs.mkdtempSync(path.join(RUNTIME, "o"));
      fs.mkdirSync(path.join(open, `memsync-${process.getuid!()}`), { mode: 0o755 });
      fs.chmodSync(path.join(open, `memsync-${process.getuid!()}`), 0o755);
      assert.equal(ask({ XDG_RUNTIME_DIR: open }), "in-process (no safe socket folder)");
      const linked = fs.mkdtempSync(path.join(RUNTIME, "l"));
      fs.symlinkSync(tempDir("memsync-warm-target-"), path.join(linked, `memsync-${process.getuid!()}`));
      assert.equal(ask({ XDG_RUNTIME_DIR: linked }), "in-process (no safe socket folder)");
      assert.equal(ask({ MEMSYNC_HOOK_SERVER: "0" }), "none");
      assert.equal(ask({}, false), "none");
      assert.deepEqual(serverPids(store), []);
      assert.deepEqual(fs.readdirSync(path.join(open, `memsync-${process.getuid!()}`)), []);
    } finally {
      killServers(store);
    }
  });
});

/** One request as a client of another build would send it, straight to the socket; the parsed reply. */
function rawRequest(socket: string, fields: Record<string, unknown>): Promise<unknown> {
  const req = { build: "x", event: "UserPromptSubmit", memoryMd: false, stdin: "{}", cwd: "/", home: "/", vars: {}, self: [BIN], ...fields };
  return new Promise((resolve, reject) => {
    let text = "";
    Bun.connect({
      unix: socket,
      socket: {
        open(s) {
          s.write(`${JSON.stringify(req)}\n`);
        },
        data(_s, d) {
          text += d.toString();
        },
        close() {
          try {
            resolve(JSON.parse(text));
          } catch (e) {
            reject(e);
          }
        },
      },
    }).catch(reject);
  });
}
