import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { copyReachable } from "../../src/sync/objects.ts";
import { applyDelta, forgetPackIndexes, readObjectNative } from "../../src/sync/pack-index.ts";
import { changedEntries, treeDelta } from "../../src/sync/tree-bytes.ts";
import { treeContent, type TreeEntry } from "../../src/sync/loose-objects.ts";
import { startCommand } from "../../src/runtime/command-scope.ts";
import { makeRng } from "../helpers/rng.ts";
import { git, memsync, memsyncJson, tempDir } from "../helpers/env.ts";
import { hub, machine } from "../helpers/hub.ts";

// A fetch's copy from a path remote (objects.ts copyReachable into a clone): packs read through
// one open descriptor per command, each new version of a folder stored as a delta against the
// version the walk compared it with, a whole entry's bytes reused; native git reads the result.

function gitOk(cwd: string, ...args: string[]): string {
  const r = git(cwd, ...args);
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/**
 * A bare hub whose history is `commits` commits of a store's shape: a flat memories/ folder of
 * `flat` records and a few shard folders, each commit changing two records (one flat, one in a
 * shard) and adding one; packed by native git.
 */
function storeHistory(commits: number, flat: number): string {
  const repo = path.join(tempDir(), "hub.git");
  gitOk(tempDir(), "init", "-q", "--bare", "-b", "main", repo);
  const record = (id: string, n: number) => `{\n  "id": "${id}",\n  "content": "memory ${id}, the retry budget of worker ${id.length}",\n  "use_count": ${n}\n}\n`;
  const id = (i: number) => `0192f4c8-${String(i).padStart(4, "0")}-7abc-8def-${String(i * 7919).padStart(12, "0")}`;
  let stream = "";
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  for (let c = 0; c < commits; c++) {
    stream += `commit refs/heads/main\ncommitter T <t@example.com> ${1_790_000_000 + c} +0000\n${data(`commit ${c}`)}`;
    if (c === 0) for (let i = 0; i < flat; i++) stream += `M 100644 inline memories/${id(i)}.json\n${data(record(id(i), 0))}`;
    stream += `M 100644 inline memories/${id((c * 37) % flat)}.json\n${data(record(id((c * 37) % flat), c + 1))}`;
    stream += `M 100644 inline memories/${(c % 4).toString(16).padStart(2, "0")}/${id(flat + c)}.json\n${data(record(id(flat + c), 0))}`;
    stream += `M 100644 inline memories/${((c + 1) % 4).toString(16).padStart(2, "0")}/${id(flat + 1000 + c)}.json\n${data(record(id(flat + 1000 + c), c))}\n`;
  }
  const r = spawnSync("git", ["fast-import", "--quiet"], { cwd: repo, input: stream, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  gitOk(repo, "repack", "-adq");
  return repo;
}

/** Objects with the CRC of their pack entry (git show-index), of every pack of a repository. */
function entryCrcs(gitdir: string): Map<string, string> {
  const out = new Map<string, string>();
  const dir = path.join(gitdir, "objects", "pack");
  for (const n of fs.readdirSync(dir).filter((f) => f.endsWith(".idx"))) {
    const r = spawnSync("git", ["show-index"], { input: fs.readFileSync(path.join(dir, n)), encoding: "utf8" });
    for (const line of r.stdout.split("\n").filter(Boolean)) {
      const [, oid, crc] = line.split(" ");
      out.set(oid!, crc!);
    }
  }
  return out;
}

/** Descriptors of this process open on a pack of `gitdir`. */
function packFds(gitdir: string): number {
  let n = 0;
  for (const fd of fs.readdirSync("/proc/self/fd")) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(path.join(fs.realpathSync(gitdir), "objects", "pack"))) n++;
    } catch {
      // closed meanwhile (the listing's own descriptor)
    }
  }
  return n;
}

describe("a fetch's copy from a path remote", () => {
  test("a pack is opened once per command and still read after a repack elsewhere removed it; its descriptor is let go when the command ends", { skip: !fs.existsSync("/proc/self/fd") && "needs /proc" }, () => {
    const repo = storeHistory(12, 40);
    const gitdir = repo;
    const oids = gitOk(repo, "rev-list", "--objects", "--all").split("\n").filter(Boolean).map((l) => l.split(" ")[0]!);
    const end = startCommand();
    forgetPackIndexes(gitdir);
    assert.equal(packFds(gitdir), 0);
    assert.ok(readObjectNative(gitdir, oids[0]!), "the first object");
    const half = oids.slice(1, oids.length / 2);
    for (const oid of half) assert.ok(readObjectNative(gitdir, oid), oid);
    assert.equal(packFds(gitdir), 1, "one descriptor for the pack, whatever the number of objects read");
    // another process: a new commit, everything into one new pack, the old one removed
    const work = path.join(tempDir(), "work");
    gitOk(tempDir(), "clone", "-q", repo, work);
    fs.writeFileSync(path.join(work, "more.txt"), "more\n");
    gitOk(work, "add", ".");
    gitOk(work, "commit", "-qm", "more");
    gitOk(work, "push", "-q", "origin", "main");
    gitOk(repo, "repack", "-adq");
    for (const oid of oids.slice(oids.length / 2)) {
      const got = readObjectNative(gitdir, oid);
      assert.ok(got, `${oid}: read from the pack as it was when first opened`);
      assert.equal(got.type, gitOk(repo, "cat-file", "-t", oid).trim());
    }
    assert.equal(packFds(gitdir), 1, "still open while the command runs");
    end();
    assert.equal(packFds(gitdir), 0, "the pack's descriptor is closed when the command ends");
  });

  test("a command starting while another runs (reads together in serve) leaves the first one's packs open; the last to end closes them", { skip: !fs.existsSync("/proc/self/fd") && "needs /proc" }, () => {
    const repo = storeHistory(6, 20);
    const oids = gitOk(repo, "rev-list", "--objects", "--all").split("\n").filter(Boolean).map((l) => l.split(" ")[0]!);
    const first = startCommand();
    forgetPackIndexes(repo);
    assert.ok(readObjectNative(repo, oids[0]!));
    assert.equal(packFds(repo), 1);
    const second = startCommand();
    assert.equal(packFds(repo), 1, "the second command's start took the first one's pack away");
    for (const oid of oids) assert.ok(readObjectNative(repo, oid), oid);
    first();
    first();
    assert.equal(packFds(repo), 1, "the second command still runs");
    second();
    assert.equal(packFds(repo), 0);
  });

  test("hundreds of commits copied into a clone: each version of a folder a delta against another, whole entries copied as they are; fsck --strict, every object as the remote's", { timeout: 120_000 }, async () => {
    const commits = 150;
    const hub = storeHistory(commits, 400);
    const tip = gitOk(hub, "rev-parse", "main").trim();
    const dst = path.join(tempDir(), "clone.git");
    gitOk(tempDir(), "init", "-q", "--bare", "-b", "main", dst);
    const end = startCommand();
    const copied = await copyReachable(hub, dst, tip).finally(end);
    const all = gitOk(hub, "rev-list", "--objects", "--all").split("\n").filter(Boolean);
    assert.equal(copied, all.length, "every object once");
    gitOk(dst, "update-ref", "refs/heads/main", tip);
    const fsck = git(dst, "fsck", "--strict", "--no-dangling");
    assert.equal(fsck.status, 0, fsck.stdout + fsck.stderr);
    const batch = (g: string) => gitOk(g, "cat-file", "--batch-all-objects", "--batch-check").split("\n").sort().join("\n");
    assert.equal(batch(dst), batch(hub), "the same objects, of the same types and sizes");

    const packs = fs.readdirSync(path.join(dst, "objects", "pack")).filter((n) => n.endsWith(".idx"));
    assert.equal(packs.length, 1, "one pack");
    const verify = gitOk(dst, "verify-pack", "-v", path.join("objects", "pack", packs[0]!));
    // the memories/ folder (400+ entries, a new version per commit): stored whole once, then deltas
    const memoriesTrees = new Set(gitOk(hub, "log", "--format=%H", "main").split("\n").filter(Boolean).map((c) => gitOk(hub, "rev-parse", `${c}:memories`).trim()));
    const deltaTrees = new Set(verify.split("\n").filter((l) => /^[0-9a-f]{40} tree +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(l)).map((l) => l.slice(0, 40)));
    const whole = [...memoriesTrees].filter((t) => !deltaTrees.has(t));
    assert.ok(whole.length <= Math.ceil(commits / 50) + 1, `${whole.length} of ${memoriesTrees.size} versions of memories/ stored whole`);
    // a blob the remote stores whole: its entry's bytes as they were (the same CRC in both indexes)
    const hubCrc = entryCrcs(hub);
    const dstCrc = entryCrcs(dst);
    const hubVerify = gitOk(hub, "verify-pack", "-v", ...fs.readdirSync(path.join(hub, "objects", "pack")).filter((n) => n.endsWith(".idx")).map((n) => path.join("objects", "pack", n)));
    const wholeBlobs = hubVerify.split("\n").filter((l) => /^[0-9a-f]{40} blob +\d+ \d+ \d+$/.test(l)).map((l) => l.slice(0, 40));
    assert.ok(wholeBlobs.length >= 10, `${wholeBlobs.length} whole blobs in the remote`);
    assert.deepEqual(wholeBlobs.filter((b) => hubCrc.get(b) !== dstCrc.get(b)), [], "copied as they are");
  });
});

describe("a fetch killed while it writes its pack", () => {
  test("a pull of 40 commits (its folders' versions as deltas) killed at entries of its pack: the clone stays whole, the tracking ref stays; the next pull completes, fsck --strict clean", { timeout: 300_000 }, () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    const b = machine(h.root, "b", h.bare);
    memsyncJson(["--store", a, "save", "first"]);
    memsyncJson(["--store", a, "sync"]);
    memsyncJson(["--store", b, "sync"]);
    // a history: a commit per memory, each a new version of memories/ and of the top folder
    for (let i = 0; i < 40; i++) {
      memsyncJson(["--store", a, "save", `history note ${i}: the billing worker retries ${i} times`]);
      memsyncJson(["--store", a, "commit"]);
    }
    memsyncJson(["--store", a, "sync"]);
    const tracking = git(b, "rev-parse", "origin/main").stdout.trim();
    for (const n of [1, 30, 90, 150]) {
      const r = memsync(["--store", b, "pull"], { env: { MEMSYNC_FAULT: `pack-entry:${n}` } });
      assert.equal(r.code, -1, `killed at entry ${n}: ${r.stderr}`);
      const fsck = git(b, "fsck", "--strict", "--no-dangling");
      assert.equal(fsck.status, 0, `killed at entry ${n}: ${fsck.stdout}${fsck.stderr}`);
      assert.equal(git(b, "rev-parse", "origin/main").stdout.trim(), tracking, "the tracking ref moves only after the objects");
    }
    assert.equal(memsyncJson(["--store", b, "pull"]).pull.mode, "fast-forward");
    assert.equal(git(b, "rev-parse", "HEAD").stdout.trim(), git(h.bare, "rev-parse", "main").stdout.trim());
    assert.equal(git(b, "fsck", "--strict").status, 0);
    assert.equal(memsyncJson(["--store", b, "list", "--limit", "0"]).total, memsyncJson(["--store", a, "list", "--limit", "0"]).total);
    const verify = git(b, "verify-pack", "-v", ...fs.readdirSync(path.join(b, ".git", "objects", "pack")).filter((n) => n.endsWith(".idx")).map((n) => path.join(".git", "objects", "pack", n))).stdout;
    assert.match(verify, /^[0-9a-f]{40} tree +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/m, "folder versions fetched as deltas");
  });
});

describe("two versions of a tree, compared and delta'd as bytes", () => {
  const rng = makeRng(20261129);
  const hex = () => Array.from({ length: 40 }, () => "0123456789abcdef"[Math.floor(rng() * 16)]).join("");
  const entry = (name: string, type: "blob" | "tree" = "blob"): TreeEntry => ({ mode: type === "tree" ? "040000" : "100644", path: name, oid: hex(), type });

  test("random edits (entries added, removed, changed, folders among files): the delta rebuilds the target, and the changed entries are exactly those the target holds differently", () => {
    for (let round = 0; round < 200; round++) {
      const base: TreeEntry[] = Array.from({ length: 1 + Math.floor(rng() * 300) }, (_, i) => entry(`r${i.toString(36)}-${Math.floor(rng() * 1e6)}${i % 17 === 0 ? "" : ".json"}`, i % 17 === 0 ? "tree" : "blob"));
      let target = base.map((e) => ({ ...e }));
      const edits = Math.floor(rng() * 12);
      for (let k = 0; k < edits; k++) {
        const op = Math.floor(rng() * 3);
        const at = Math.floor(rng() * target.length);
        if (op === 0) target.push(entry(`new-${round}-${k}.json`, rng() < 0.2 ? "tree" : "blob"));
        else if (op === 1 && target.length > 1) target.splice(at, 1);
        else if (target[at]) target[at] = { ...target[at]!, oid: hex() };
      }
      const allChanged = rng() < 0.1;
      if (allChanged) target = target.map((e) => ({ ...e, oid: hex() }));
      const b = treeContent(base);
      const t = treeContent(target);
      const d = treeDelta(b, t, t.length * 2);
      assert.ok(d, `round ${round}: a delta within twice the target`);
      assert.deepEqual(applyDelta(b, d), t, `round ${round}: the delta rebuilds the target`);
      const baseKeys = new Set(base.map((e) => `${e.mode.replace(/^0/, "")} ${e.path} ${e.oid}`));
      const expected = target.filter((e) => !baseKeys.has(`${e.mode.replace(/^0/, "")} ${e.path} ${e.oid}`)).map((e) => e.oid).sort();
      assert.deepEqual(changedEntries(t, b).map((e) => e.oid).sort(), expected, `round ${round}: the changed entries`);
      if (!allChanged && edits <= 2 && base.length > 50 && target.length === base.length) assert.ok(d.length < t.length / 10, `round ${round}: a few changes, a small delta (${d.length} of ${t.length})`);
    }
  });

  test("not worth it (more than `most` bytes) or not a tree: no delta", () => {
    const base = treeContent(Array.from({ length: 50 }, (_, i) => entry(`a${i}`)));
    const other = treeContent(Array.from({ length: 50 }, (_, i) => entry(`b${i}`)));
    assert.equal(treeDelta(base, other), null, "nothing shared: more than half the target");
    assert.equal(treeDelta(base, new TextEncoder().encode("100644 cut-short")), null, "a target that does not parse");
  });
});
