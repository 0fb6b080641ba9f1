import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, test } from "node:test";
import { BIN, memsync, memsyncAsync, memsyncJson, newStore, REPO, type RunOptions, saveMany, snapshot, tempDir } from "../helpers/env.ts";

// A store on a read-only mount (docker run -v ~/.memsync:/m:ro), or another user's files: every
// read answers what the same store answers when writable (a writable copy, the same commands,
// outputs compared), through a private copy of the index that nothing leaves behind; every write
// is one line and exit 10, changing nothing; the hooks recall and stay quiet. The mount is real
// (mount --bind, then remount ro: needs root, skipped with the reason otherwise); so is the other
// user (setpriv to nobody).

const READ_ONLY = 10;
const isRoot = process.getuid?.() === 0;

function sh(cmd: string, ...args: string[]) {
  return spawnSync(cmd, args, { encoding: "utf8" });
}

/** A read-only bind mount of `dir` at a new folder; null (with why) when mounting is not permitted. */
function readOnlyMount(dir: string): { at: string; unmount: () => void } | string {
  if (!isRoot) return "not root: mount --bind is not permitted";
  const at = path.join(tempDir("memsync-ro-mount-"), "ro");
  fs.mkdirSync(at);
  const bind = sh("mount", "--bind", dir, at);
  if (bind.status !== 0) return `mount --bind refused: ${bind.stderr.trim()}`;
  const ro = sh("mount", "-o", "remount,ro,bind", at);
  if (ro.status !== 0) {
    sh("umount", at);
    return `remount read-only refused: ${ro.stderr.trim()}`;
  }
  return { at, unmount: () => void sh("umount", "-l", at) };
}

/** The store's path said alike in both outputs. */
const same = (text: string, root: string) => text.split(root).join("<store>");

/** Every run gets its own temp folder, so what a run leaves there is seen. */
function runIn(tmp: string, extra: RunOptions = {}): RunOptions {
  return { ...extra, env: { TMPDIR: tmp, ...(extra.env ?? {}) } };
}

describe("a store on a read-only mount", () => {
  let source = "";
  let copy = "";
  let mount: { at: string; unmount: () => void } | string = "";
  let ids: string[] = [];
  const tmp = tempDir("memsync-ro-tmp-");
  let project = "";

  before(() => {
    source = newStore();
    project = "billing";
    ids = saveMany(source, [
      { content: "We chose PostgreSQL for the billing database because of JSONB support", type: "decision", project, tags: ["db"] },
      { content: "Prefer pnpm over npm for monorepos", type: "preference", project },
      { content: "Redis caches sessions for 15 minutes", type: "fact", project, entities: ["Redis"] },
      { content: "a memory of this machine only, about the local docker setup", scope: "local" },
    ]);
    assert.equal(memsync(["--store", source, "relate", ids[0]!, ids[2]!, "--type", "supports"]).code, 0);
    assert.equal(memsync(["--store", source, "commit"]).code, 0);
    // a hand edit made after the index last saw the file (its folder's mtime moves, so a quick
    // refresh finds it): both stores must answer with the edited text
    const file = path.join(source, "memories", `${ids[1]}.json`);
    const record = JSON.parse(fs.readFileSync(file, "utf8"));
    record.content = "Prefer pnpm over yarn for monorepos (edited by hand)";
    const edited = path.join(source, "memories", `.edit.tmp`);
    fs.writeFileSync(edited, `${JSON.stringify(record, null, 2)}\n`);
    fs.renameSync(edited, file);
    // the writable copy: the same files, its index included (the read-only one is copied too)
    copy = path.join(tempDir(), "copy");
    fs.cpSync(source, copy, { recursive: true });
    mount = readOnlyMount(source);
  });
  after(() => {
    if (typeof mount !== "string") mount.unmount();
  });

  test("reads answer as on a writable copy of the store, and leave nothing behind", (t) => {
    if (typeof mount === "string") return t.skip(mount);
    const ro = mount.at;
    const reads: string[][] = [
      ["get", ids[0]!],
      ["get", ids[1]!, "--json"],
      ["list"],
      ["list", "--json"],
      ["search", "pnpm"],
      ["search", "postgres", "--json"],
      ["recall", "which database do we use for billing"],
      ["recall", "which package manager", "--json"],
      ["context", "--project", project],
      ["graph", "--json"],
      ["score", ids[2]!],
      ["history", ids[0]!],
      ["conflicts"],
      ["split", "--candidates"],
      ["gc", "--dry-run"],
    ];
    const before = snapshot(source);
    for (const args of reads) {
      const there = memsync(["--store", ro, ...args], runIn(tmp));
      const here = memsync(["--store", copy, ...args], runIn(tmp));
      assert.equal(there.code, 0, `${args.join(" ")}: ${there.stderr}`);
      assert.equal(there.stderr, "", args.join(" "));
      // scores move with the clock between the two runs (to any number of places: a cut at 3 still
      // failed when one crossed a digit): decimals are left out of the comparison
      const steady = (s: string, root: string) => same(s, root).replace(/\d+\.\d+/g, "#");
      assert.equal(steady(there.stdout, ro), steady(here.stdout, copy), args.join(" "));
    }
    assert.match(memsync(["--store", ro, "get", ids[1]!], runIn(tmp)).stdout, /edited by hand/);
    assert.match(memsync(["--store", ro, "list"], runIn(tmp)).stdout, /local docker setup/, "a local memory is read too");
    // status: healthy, and says read-only; its counts are the writable copy's
    const status = memsyncJson(["--store", ro, "status"], runIn(tmp));
    const copied = memsyncJson(["--store", copy, "status"], runIn(tmp));
    assert.equal(status.health, "healthy", status.reasons.join("; "));
    assert.equal(status.read_only, true);
    assert.equal(copied.read_only, false);
    assert.deepEqual(status.memories, copied.memories);
    assert.deepEqual(status.relations, copied.relations);
    assert.match(memsync(["--store", ro, "status"], runIn(tmp)).stdout, /^access: read-only/m);
    // a not-found id is its usual error, and a failed read leaves nothing either
    const missing = memsync(["--store", ro, "get", "0".repeat(8)], runIn(tmp));
    assert.equal(missing.code, 3, missing.stderr);
    assert.deepEqual(fs.readdirSync(tmp), [], "every private index copy was removed");
    assert.deepEqual(snapshot(source), before, "nothing in the store changed");
  });

  test("writes are one line and exit 10, and change nothing", (t) => {
    if (typeof mount === "string") return t.skip(mount);
    const ro = mount.at;
    const before = snapshot(source);
    const writes: string[][] = [
      ["save", "a new memory"],
      ["capture", "We decided to use Kafka for the event queue because it keeps order per partition"],
      ["remember", "we use tabs"],
      ["touch", ids[0]!],
      ["update", ids[0]!, "--content", "changed"],
      ["archive", ids[0]!],
      ["delete", ids[0]!],
      ["relate", ids[1]!, ids[2]!],
      ["settings", "layout", "flat"],
      ["commit"],
      ["sync"],
      ["reindex"],
      ["repack"],
      ["init"],
      ["gc"],
    ];
    for (const args of writes) {
      const r = memsync(["--store", ro, ...args], runIn(tmp));
      assert.equal(r.code, READ_ONLY, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stderr, `memsync: the store at ${ro} is read-only: ${args[0]} needs to write to it\n`);
    }
    const json = memsync(["--store", ro, "save", "x", "--json"], runIn(tmp));
    assert.equal(JSON.parse(json.stdout).error.code, "read_only");
    assert.deepEqual(snapshot(source), before, "nothing in the store changed");
    assert.deepEqual(fs.readdirSync(tmp), []);
  });

  test("the hooks recall and inject as on the writable copy, capture nothing, and stay quiet", (t) => {
    if (typeof mount === "string") return t.skip(mount);
    const ro = mount.at;
    const before = snapshot(source);
    const hook = (store: string, event: string, payload: Record<string, unknown>) => {
      const r = memsync(["--store", store, "hook", event], runIn(tmp, { input: JSON.stringify({ hook_event_name: event, session_id: "s1", cwd: os.tmpdir(), ...payload }) }));
      assert.equal(r.code, 0);
      return JSON.parse(r.stdout);
    };
    const start = hook(ro, "SessionStart", { source: "startup" });
    assert.match(start.systemMessage, /read-only here: memories are recalled from it; nothing is captured/);
    assert.equal(start.hookSpecificOutput?.additionalContext, hook(copy, "SessionStart", { source: "startup" }).hookSpecificOutput?.additionalContext);
    // a prompt that both asks and states a decision: recalled, not captured, no message
    const prompt = "which database do we use for billing? We decided to use Kafka for the event queue because it keeps order";
    const there = hook(ro, "UserPromptSubmit", { prompt });
    assert.equal(there.systemMessage, undefined, JSON.stringify(there));
    assert.match(there.hookSpecificOutput.additionalContext, /PostgreSQL/);
    assert.equal(there.hookSpecificOutput.additionalContext, hook(copy, "UserPromptSubmit", { prompt }).hookSpecificOutput.additionalContext);
    for (const event of ["Stop", "SubagentStop", "PreCompact", "SessionEnd"]) {
      const r = hook(ro, event, { last_assistant_message: "I will use RabbitMQ for the queue." });
      assert.equal(r.systemMessage, undefined, `${event}: ${JSON.stringify(r)}`);
    }
    assert.deepEqual(snapshot(source), before);
    assert.deepEqual(fs.readdirSync(tmp), []);
  });

  test("under Deno: status and recall read, a save is refused with exit 10", (t) => {
    if (typeof mount === "string") return t.skip(mount);
    const ro = mount.at;
    const DENO = [path.join(REPO, "node_modules/.bin/deno"), "run", "-A", "--quiet", path.join(REPO, "src/main.ts")];
    const status = memsync(["--store", ro, "status", "--json"], runIn(tmp, { command: DENO }));
    assert.equal(status.code, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout).read_only, true);
    assert.equal(JSON.parse(status.stdout).health, "healthy");
    const recall = memsync(["--store", ro, "recall", "which database do we use for billing"], runIn(tmp, { command: DENO }));
    assert.equal(recall.stdout, memsync(["--store", copy, "recall", "which database do we use for billing"], runIn(tmp)).stdout);
    const save = memsync(["--store", ro, "save", "x"], runIn(tmp, { command: DENO }));
    assert.equal(save.code, READ_ONLY, save.stderr);
    assert.deepEqual(fs.readdirSync(tmp), []);
  });

  test("reads beside a writer outside the mount: each answers, and sees no fewer memories than the one before", async (t) => {
    if (typeof mount === "string") return t.skip(mount);
    const ro = mount.at;
    // the writer works on the store itself (the host's side of the mount): its index and WAL
    // change while reads copy them
    const writer = (async () => {
      for (let i = 0; i < 12; i++) {
        const r = await memsyncAsync(["--store", source, "save", `concurrent note ${i} about zookeeper`]);
        assert.equal(r.code, 0, r.stderr);
      }
    })();
    let done = false;
    void writer.finally(() => (done = true));
    let last = 0;
    let reads = 0;
    while (!done || reads < 3) {
      const r = await memsyncAsync(["--store", ro, "search", "zookeeper", "--json"], runIn(tmp));
      assert.equal(r.code, 0, r.stderr);
      const total = JSON.parse(r.stdout).total as number;
      assert.ok(total >= last, `a read saw ${total} after one saw ${last}`);
      last = total;
      reads++;
    }
    await writer;
    // a read started before the last save landed may have seen 11: one more after the writer ended
    const after = await memsyncAsync(["--store", ro, "search", "zookeeper", "--json"], runIn(tmp));
    assert.equal(after.code, 0, after.stderr);
    assert.ok(last <= 12);
    assert.equal(JSON.parse(after.stdout).total, 12);
    assert.deepEqual(fs.readdirSync(tmp), []);
  });

  test("a copy a killed read left behind is removed by the next read-only open", (t) => {
    if (typeof mount === "string") return t.skip(mount);
    const dead = spawnSync("true");
    const pid = dead.pid!;
    const left = path.join(tmp, `memsync-ro-${pid}-abc123`);
    fs.mkdirSync(left);
    fs.writeFileSync(path.join(left, "index.db"), "");
    assert.equal(memsync(["--store", mount.at, "list"], runIn(tmp)).code, 0);
    assert.deepEqual(fs.readdirSync(tmp), []);
  });
});

describe("a writable store never takes the read-only path", () => {
  test("a write lock held by another process is busy (exit 6), not read-only", () => {
    const store = newStore();
    saveMany(store, ["a memory"]);
    const lock = new DatabaseSync(path.join(store, ".memsync", "lock"));
    lock.exec("BEGIN IMMEDIATE");
    try {
      const r = memsync(["--store", store, "save", "another"], { env: { MEMSYNC_BUSY_TIMEOUT_MS: "300" } });
      assert.equal(r.code, 6, r.stderr);
      assert.match(r.stderr, /busy/);
    } finally {
      lock.exec("ROLLBACK");
      lock.close();
    }
    assert.equal(memsync(["--store", store, "save", "after the lock"]).code, 0);
    assert.equal(memsyncJson(["--store", store, "status"]).read_only, false);
  });
});

describe("a store owned by another user", () => {
  test("read by nobody: reads answer, writes are exit 10, nothing left behind", (t) => {
    if (!isRoot) return t.skip("not root: cannot run memsync as another user here");
    if (sh("setpriv", "--version").status !== 0) return t.skip("setpriv is not installed");
    // a folder nobody can reach (the run's temp folders may be private to root)
    const base = fs.mkdtempSync(path.join("/tmp", "memsync-ro-other-"));
    try {
      fs.chmodSync(base, 0o755);
      const store = path.join(base, "store");
      fs.cpSync(newStore(), store, { recursive: true });
      const [id] = saveMany(store, ["We chose PostgreSQL for the billing database"]);
      const tmp = path.join(base, "tmp");
      fs.mkdirSync(tmp);
      fs.chmodSync(tmp, 0o777);
      sh("chmod", "-R", "go-w,a+rX", store);
      const reach = sh("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "test", "-x", BIN);
      if (reach.status !== 0) return t.skip(`nobody cannot run ${BIN} (a folder on its path is private)`);
      const asNobody = (...args: string[]) => {
        const r = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "env", `HOME=${tmp}`, `TMPDIR=${tmp}`, "MEMSYNC_MACHINE=other", BIN, "--store", store, ...args], { encoding: "utf8" });
        return { code: r.status, stdout: r.stdout, stderr: r.stderr };
      };
      const before = snapshot(store);
      const recall = asNobody("recall", "which database");
      assert.equal(recall.code, 0, recall.stderr);
      assert.match(recall.stdout, /PostgreSQL/);
      const status = asNobody("status", "--json");
      assert.equal(JSON.parse(status.stdout).read_only, true, status.stderr);
      assert.equal(JSON.parse(status.stdout).health, "healthy");
      for (const args of [["save", "x"], ["touch", id!]]) {
        const r = asNobody(...args);
        assert.equal(r.code, READ_ONLY, r.stderr);
        assert.equal(r.stderr, `memsync: the store at ${store} is read-only: ${args[0]} needs to write to it\n`);
      }
      assert.deepEqual(snapshot(store), before);
      assert.deepEqual(fs.readdirSync(tmp), []);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});
