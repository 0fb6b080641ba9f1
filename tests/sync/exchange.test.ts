import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { spawnSync } from "node:child_process";
import { BIN, binaryThenInProcess, git, hasCommand, memsyncAsync, readMemoryFile } from "../helpers/env.ts";
import { type Hub, hub, machine as storeOn } from "../helpers/hub.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson, saveMany } = binaryThenInProcess();

// Machines syncing through a bare repository on a local path: real processes, real git.

const machine = (h: Hub, name: string) => storeOn(h.root, name, h.bare);
const sync = async (dir: string) => await memsyncJson(["--store", dir, "sync"]);
const save = async (dir: string, text: string) => (await memsyncJson(["--store", dir, "save", text])).memory.id as string;
const read = readMemoryFile;

describe("memsync sync through a bare repository", () => {
  test("two machines add different memories, then both touch one: everything arrives, counts sum exactly", async () => {
    const h = hub();
    const a = machine(h, "a");
    const b = machine(h, "b");
    const x = await save(a, "memory from a");
    await sync(a);
    const y = await save(b, "memory from b");
    await sync(b);
    await sync(a);
    for (const dir of [a, b]) assert.equal((await memsyncJson(["--store", dir, "list"])).total, 2);
    for (let i = 0; i < 3; i++) await memsyncJson(["--store", a, "touch", x]);
    for (let i = 0; i < 2; i++) await memsyncJson(["--store", b, "touch", x]);
    await sync(a);
    const out = await sync(b);
    assert.equal(out.pull.mode, "merge");
    await sync(a);
    assert.equal(read(a, x).use_count, 5);
    assert.equal(read(b, x).use_count, 5);
    assert.equal(read(a, y).content, "memory from b");
    for (const dir of [a, b]) assert.equal(git(dir, "status", "--porcelain").stdout, "", "native git sees a clean store");
    assert.equal(git(h.bare, "fsck", "--strict").status, 0);
  });

  test("content edited on both machines: the later edit wins, the other text is kept", async () => {
    const h = hub();
    const a = machine(h, "a");
    const b = machine(h, "b");
    const x = await save(a, "original text");
    await sync(a);
    await sync(b);
    await memsyncJson(["--store", a, "update", x, "--content", "edited on a"]);
    await new Promise((r) => setTimeout(r, 1100)); // a later second: b's edit is the later one
    await memsyncJson(["--store", b, "update", x, "--content", "edited on b"]);
    await sync(a);
    await sync(b);
    await sync(a);
    for (const dir of [a, b]) {
      const m = read(dir, x);
      assert.equal(m.content, "edited on b");
      assert.deepEqual(m.content_conflicts.map((c: { content: string }) => c.content), ["edited on a"]);
    }
  });

  test("modify/delete: a consolidation keeps the memory deleted and moves usage; a gc'd memory that was used comes back", async () => {
    const h = hub();
    const main = machine(h, "main");
    const edge = machine(h, "edge");
    const x = await save(main, "postgres jsonb note one");
    const g = await save(main, "an old note gc will take");
    await sync(main);
    await sync(edge);
    // on main: consolidate x into c (the relation names x), and gc g
    const c = await save(main, "postgres jsonb notes, consolidated");
    await memsyncJson(["--store", main, "relate", c, x, "--type", "consolidated_from"]);
    await memsyncJson(["--store", main, "delete", x, "--keep-relations"]);
    await memsyncJson(["--store", main, "delete", g]);
    // meanwhile the edge machine uses both
    for (let i = 0; i < 2; i++) await memsyncJson(["--store", edge, "touch", x, g]);
    await sync(main);
    await sync(edge);
    await sync(main);
    for (const dir of [main, edge]) {
      assert.equal(read(dir, x), null, "consolidated away: stays deleted");
      assert.equal(read(dir, c).use_count, 2, "the edge's two uses moved to the successor");
      assert.equal(read(dir, g)?.use_count, 2, "deleted by gc while used: it came back");
    }
  });

  test("five machines pushing at once: every memory is on the remote afterwards", async () => {
    const h = hub();
    const dirs = ["m1", "m2", "m3", "m4", "m5"].map((n) => machine(h, n));
    const ids: string[] = [];
    for (const [i, d] of dirs.entries()) ids.push(await save(d, `memory number ${i} from its own machine`));
    const runs = await Promise.all(dirs.map((d) => memsyncAsync(["--store", d, "sync", "--json"])));
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const check = path.join(h.root, "check");
    assert.equal(git(h.root, "clone", "-q", h.bare, check).status, 0);
    for (const id of ids) assert.ok(read(check, id), `memory ${id} is on the remote`);
    assert.equal(git(h.bare, "fsck", "--strict").status, 0);
  });

  test("a packed remote (after git gc): a push sends only the new objects, and both sides stay whole", async () => {
    const h = hub();
    const a = machine(h, "a");
    await saveMany(a, Array.from({ length: 30 }, (_, i) => `memory ${i} before the hub is packed`));
    await sync(a);
    assert.equal(git(h.bare, "gc", "-q").status, 0);
    const loose = () => git(h.bare, "count-objects", "-v").stdout.match(/^count: (\d+)$/m)![1];
    assert.equal(loose(), "0");
    await save(a, "one memory after the pack");
    await sync(a);
    // the new blob, its folder tree, the root tree and the commit: nothing the pack already holds
    assert.equal(loose(), "4");
    assert.equal(git(h.bare, "fsck", "--strict").status, 0);
    const b = path.join(h.root, "b");
    assert.equal((await memsync(["clone", h.bare, b])).code, 0);
    assert.equal((await memsyncJson(["--store", b, "list"])).total, 31);
  });

  test("memsync pulls what native git pushed; a missing remote is a clear error that loses nothing", async () => {
    const h = hub();
    const a = machine(h, "a");
    await save(a, "from memsync");
    await sync(a);
    const native = path.join(h.root, "native");
    assert.equal(git(h.root, "clone", "-q", h.bare, native).status, 0);
    const id = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";
    const record = { id, content: "written by native git", created_at: 1000, last_used: 1000 };
    fs.writeFileSync(path.join(native, "memories", `${id}.json`), `${JSON.stringify(record, null, 2)}\n`);
    assert.equal(git(native, "add", "-A").status, 0);
    assert.equal(git(native, "commit", "-qm", "native commit").status, 0);
    assert.equal(git(native, "push", "-q", "origin", "HEAD").status, 0);
    await sync(a);
    assert.equal((await memsyncJson(["--store", a, "get", id])).found[0].memory.content, "written by native git");
    // offline: the remote is gone; the save stays, committed locally, and goes out later
    const later = await save(a, "written while the remote was away");
    fs.renameSync(h.bare, `${h.bare}.away`);
    const r = await memsync(["--store", a, "sync"]);
    assert.equal(r.code, 6);
    assert.match(r.stderr, /cannot be reached/);
    // (never "make one with git init --bare": a repository made there would be a second hub)
    assert.doesNotMatch(r.stderr, /git init/);
    fs.renameSync(`${h.bare}.away`, h.bare);
    await sync(a);
    const check = path.join(h.root, "check");
    assert.equal(git(h.root, "clone", "-q", h.bare, check).status, 0);
    assert.ok(read(check, later));
  });
});

describe("clone, remotes and status", () => {
  test("clone makes a working store; status counts commits waiting to be pushed while offline", async () => {
    const h = hub();
    const a = machine(h, "a");
    const x = await save(a, "cloned memory");
    await sync(a);
    const c = path.join(h.root, "c");
    const cl = await memsyncJson(["clone", h.bare, c]);
    assert.ok(cl.files >= 4);
    assert.equal((await memsyncJson(["--store", c, "get", x])).found[0].memory.content, "cloned memory");
    assert.match(fs.readFileSync(path.join(c, ".git/config"), "utf8"), /driver = .*merge-driver/);
    assert.equal(git(c, "status", "--porcelain").stdout, "");
    await save(c, "one");
    await save(c, "two");
    await memsyncJson(["--store", c, "commit"]);
    assert.equal((await memsyncJson(["--store", c, "status"])).unpushed_commits, 2);
    await sync(c);
    assert.equal((await memsyncJson(["--store", c, "status"])).unpushed_commits, 0);
    // diverged: c's own two commits and the merge commit of a pull wait; a's commit does not count
    await save(a, "from a meanwhile");
    await sync(a);
    await save(c, "three");
    await save(c, "four");
    assert.equal((await memsyncJson(["--store", c, "pull"])).pull.mode, "merge");
    assert.equal((await memsyncJson(["--store", c, "status"])).unpushed_commits, 3);
    await sync(c);
    assert.equal((await memsyncJson(["--store", c, "status"])).unpushed_commits, 0);
    await sync(a);
    await save(a, "five");
    await memsyncJson(["--store", a, "commit"]);
    assert.equal((await memsyncJson(["--store", a, "status"])).unpushed_commits, 1, "a fast-forwarded to the merge: only its new commit waits");
    const empty = hub();
    const fresh = await memsyncJson(["clone", empty.bare, path.join(empty.root, "f")]);
    assert.equal(fresh.store_created, true, "an empty remote gives a new store");
    assert.equal((await memsync(["clone", h.bare, c])).code, 6, "never into a folder that holds something");
    // a remote changed to a new, empty repository: everything waits to be pushed there, and the
    // sync says it pushed it (the old remote's tracking refs are not taken for the new one's)
    const moved = hub();
    assert.equal((await memsync(["--store", a, "remote", "set", moved.bare])).code, 0);
    const waiting = (await memsyncJson(["--store", a, "status"])).unpushed_commits;
    assert.ok(waiting >= 5, `${waiting} commits wait for the new remote`);
    assert.equal((await sync(a)).push.commits_out, waiting);
    assert.equal(git(moved.bare, "rev-parse", "main").stdout, git(a, "rev-parse", "HEAD").stdout);
    assert.equal((await memsyncJson(["--store", a, "status"])).unpushed_commits, 0);
  });

  test("a long clone shows a progress bar on a terminal, and nothing without one or with --json", { timeout: 300_000 }, async () => {
    if (!hasCommand("script")) return; // util-linux's script gives the command a terminal
    const h = hub();
    const a = machine(h, "a");
    await saveMany(a, Array.from({ length: 120 }, (_, i) => `progress memory ${i}`));
    await sync(a);
    const files = Number(git(h.bare, "ls-tree", "-r", "--name-only", "HEAD").stdout.trim().split("\n").length);
    const onTty = spawnSync("script", ["-qec", `${BIN} clone ${h.bare} ${path.join(h.root, "tty")}`, "/dev/null"], { encoding: "utf8", env: { ...process.env, HOME: h.root } });
    assert.equal(onTty.status, 0, onTty.stdout);
    assert.match(onTty.stdout, /writing files [█░]+ 0\//);
    assert.ok(onTty.stdout.includes(`writing files ${"█".repeat(30)} ${files}/${files}`), "the bar ends full");
    const plain = await memsync(["clone", h.bare, path.join(h.root, "plain")]);
    assert.equal(plain.code, 0);
    assert.equal(plain.stderr, "");
    const json = spawnSync("script", ["-qec", `${BIN} clone ${h.bare} ${path.join(h.root, "json")} --json`, "/dev/null"], { encoding: "utf8", env: { ...process.env, HOME: h.root } });
    assert.doesNotMatch(json.stdout, /writing files/);
    assert.equal(JSON.parse(json.stdout.trim()).files, files);
  });

  test("ssh remotes and URLs with credentials are refused with what to use instead", async () => {
    const h = hub();
    const a = machine(h, "a");
    for (const url of ["git@github.com:me/memories.git", "ssh://git@host/x.git"]) {
      const r = await memsync(["--store", a, "remote", "set", url]);
      assert.equal(r.code, 4);
      assert.match(r.stderr, /ssh remotes are not supported.*https URL with a token/);
    }
    const cred = await memsync(["--store", a, "remote", "set", "https://me:secret@example.com/x.git"]);
    assert.equal(cred.code, 4);
    assert.doesNotMatch(fs.readFileSync(path.join(a, ".git/config"), "utf8"), /secret/);
  });

  test("native git merging with the driver gives the same files as memsync pull", async () => {
    const h = hub();
    const a = machine(h, "a");
    const b = machine(h, "b");
    const x = await save(a, "shared");
    await sync(a);
    await sync(b);
    for (let i = 0; i < 2; i++) await memsyncJson(["--store", a, "touch", x]);
    await memsyncJson(["--store", a, "update", x, "--add-tag", "from-a"]);
    await memsyncJson(["--store", b, "touch", x, "--boost"]);
    await memsyncJson(["--store", b, "update", x, "--add-tag", "from-b"]);
    await memsyncJson(["--store", a, "commit"]);
    await memsyncJson(["--store", b, "commit"]);
    // the same two histories merged twice: by native git (with the driver) in a copy of b, by memsync in b
    const copy = path.join(h.root, "b-native");
    fs.cpSync(b, copy, { recursive: true });
    await memsyncJson(["--store", a, "push"]);
    assert.equal(git(copy, "fetch", "-q", h.bare, "main").status, 0);
    const merged = git(copy, "merge", "-q", "--no-edit", "FETCH_HEAD");
    assert.equal(merged.status, 0, merged.stderr);
    await memsyncJson(["--store", b, "pull"]);
    const file = `memories/${x}.json`;
    const viaGit = JSON.parse(fs.readFileSync(path.join(copy, file), "utf8"));
    const viaMemsync = JSON.parse(fs.readFileSync(path.join(b, file), "utf8"));
    assert.deepEqual(viaGit, viaMemsync);
    assert.equal(viaMemsync.use_count, 3);
    assert.deepEqual(viaMemsync.meta.tags, ["from-a", "from-b"]);
  });
});
