import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git, memsyncAsync, tempDir } from "../helpers/env.ts";
import { hub, insecure, killAfter, machine } from "../helpers/hub.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// A transfer killed at any instant leaves both repositories whole: objects are written children
// first, each atomically, and a ref moves only after everything it names is on disk. The kills
// come from MEMSYNC_FAULT (src/sync/fault.ts: SIGKILL after the Nth object written, or at a named
// point) and from SIGKILL at random delays.

/** `n` new memories written as files (found by the next commit as outside edits): fast, and enough objects that a copy takes a while. */
async function addMemories(dir: string, n: number, tag: string): Promise<void> {
  const seedId = (await memsyncJson(["--store", dir, "save", `seed ${tag}`])).memory.id as string;
  const seed = JSON.parse(fs.readFileSync(path.join(dir, "memories", `${seedId}.json`), "utf8"));
  for (let i = 0; i < n; i++) {
    const hex = crypto.randomBytes(16).toString("hex");
    const id = `${seedId.slice(0, 8)}-${seedId.slice(9, 13)}-7${hex.slice(1, 4)}-${"89ab"[i % 4]}${hex.slice(5, 8)}-${hex.slice(8, 20)}`;
    const m = { ...seed, id, content: `bulk memory ${tag} ${i}: ${crypto.randomBytes(24).toString("base64")}` };
    fs.writeFileSync(path.join(dir, "memories", `${id}.json`), `${JSON.stringify(m, null, 2)}\n`);
  }
}

/** git fsck --strict: no missing or broken object (dangling ones are what a kill may leave: harmless). */
function assertWhole(gitdir: string, what: string): void {
  const r = git(gitdir, "fsck", "--strict", "--no-dangling");
  assert.equal(r.status, 0, `${what}: git fsck failed\n${r.stdout}${r.stderr}`);
  assert.doesNotMatch(r.stdout + r.stderr, /missing|broken|error/i, `${what}: ${r.stdout}${r.stderr}`);
}

/** A clone of the remote works and holds `expected` memories. */
async function assertClones(remote: string, expected: number, env: Record<string, string> = {}): Promise<void> {
  const dir = path.join(tempDir(), "clone");
  const r = await memsync(["clone", remote, dir, ...insecure(remote)], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await memsyncJson(["--store", dir, "list", "--limit", "0"])).total, expected);
}

const faulted = (fault: string) => ({ env: { MEMSYNC_FAULT: fault } });

describe("a transfer killed between object writes", () => {
  test("push killed after the Nth object (MEMSYNC_FAULT=object:N): the remote stays whole, a later push completes it", { timeout: 300_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    await memsyncJson(["--store", a, "save", "first"]);
    await memsyncJson(["--store", a, "sync"]);
    await addMemories(a, 300, "a");
    await memsyncJson(["--store", a, "commit"]);
    const before = git(h.bare, "rev-parse", "main").stdout.trim();
    const total = git(a, "rev-list", "--objects", "main", `^${before}`).stdout.trim().split("\n").length;
    assert.ok(total > 300, `${total} objects to copy`);
    // kill after 1, 1, 2, 3, 5, ... new objects until one gets through (from 100 objects on a
    // push writes one pack, which a kill leaves unfinished: a temporary file, never part of the remote)
    let kills = 0;
    for (let i = 0, n = 1, m = 1; ; i++, [n, m] = [m, n + m]) {
      const r = await memsync(["--store", a, "push"], faulted(`object:${n}`));
      assertWhole(h.bare, `push killed after object ${n}`);
      if (r.code === 0) break;
      assert.equal(r.code, -1, r.stderr);
      kills++;
      assert.equal(git(h.bare, "rev-parse", "main").stdout.trim(), before, "the branch moves only once everything is copied");
      assert.ok(i < 30);
    }
    assert.ok(kills >= 10, `${kills} kills`);
    assert.notEqual(git(h.bare, "rev-parse", "main").stdout.trim(), before);
    assertWhole(h.bare, "after the completing push");
    // 300 memories' objects arrive in the remote as one pack, not 300+ loose files, records that
    // share a shape stored as deltas (native git checks the pack whole)
    const counts = git(h.bare, "count-objects", "-v").stdout;
    assert.match(counts, /^packs: 1$/m, counts);
    assert.ok(Number(/^count: (\d+)$/m.exec(counts)![1]) < 100, counts);
    const packDir = path.join(h.bare, "objects", "pack");
    const idx = path.join(packDir, fs.readdirSync(packDir).find((f) => f.endsWith(".idx"))!);
    const verified = git(h.bare, "verify-pack", "-s", idx);
    assert.equal(verified.status, 0, verified.stderr);
    assert.ok(Number(/^non delta: (\d+) objects?$/m.exec(verified.stdout)?.[1] ?? Infinity) < 100, verified.stdout);
    // everything copied, killed before the ref moves: the branch stays, the next push moves it
    await addMemories(a, 20, "b");
    await memsyncJson(["--store", a, "commit"]);
    const second = git(h.bare, "rev-parse", "main").stdout.trim();
    assert.equal((await memsync(["--store", a, "push"], faulted("copied"))).code, -1);
    assert.equal(git(h.bare, "rev-parse", "main").stdout.trim(), second);
    assertWhole(h.bare, "killed after the copy");
    const done = await memsyncJson(["--store", a, "push"]);
    assert.equal(done.push.pushed, true);
    assertWhole(h.bare, "after the completing push");
    await assertClones(h.bare, 323);
  });

  test("push and sync SIGKILLed at random delays: the remote is always whole and clonable", { timeout: 300_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    const b = machine(h.root, "b", h.bare);
    await memsyncJson(["--store", a, "save", "first"]);
    await memsyncJson(["--store", a, "sync"]);
    // how long a whole push of one batch takes here (a loaded machine starts processes slowly):
    // the kills fall anywhere in that span, most of them while objects are being copied
    await addMemories(a, 40, "timing");
    const t0 = Date.now();
    // a process, as the killed ones are (an in-process push would not count the start-up)
    assert.equal((await memsyncAsync(["--store", a, "push"])).code, 0);
    const span = Math.max(150, (Date.now() - t0) * 1.2);
    const tries = Number(process.env.MEMSYNC_CRASH_TRIES ?? 8);
    let memories = 42;
    for (let i = 0; i < tries; i++) {
      const dir = i % 2 === 0 ? a : b;
      await addMemories(dir, 40, `${i}`);
      memories += 41;
      if (i % 3 === 0) await memsyncJson(["--store", dir, "commit"]);
      await killAfter(["--store", dir, i % 2 === 0 ? "push" : "sync"], Math.floor(Math.random() * span));
      assertWhole(h.bare, `try ${i}`);
      const tip = git(h.bare, "rev-parse", "--verify", "-q", "main").stdout.trim();
      if (tip) assert.equal(git(h.bare, "rev-list", "--objects", tip).status, 0, "the branch names a complete history");
      assertWhole(path.join(dir, ".git"), `try ${i}: the killed machine`);
    }
    for (const dir of [a, b, a]) {
      const r = await memsyncAsync(["--store", dir, "sync"]);
      assert.equal(r.code, 0, r.stderr);
    }
    assertWhole(h.bare, "after syncing everything");
    await assertClones(h.bare, memories);
  });

  test("pull killed between object writes leaves the local repository whole; status stays healthy; the next pull completes", { timeout: 300_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    const b = machine(h.root, "b", h.bare);
    await memsyncJson(["--store", a, "save", "first"]);
    await memsyncJson(["--store", a, "sync"]);
    await memsyncJson(["--store", b, "sync"]);
    await addMemories(a, 200, "a");
    await memsyncJson(["--store", a, "sync"]);
    const tracking = git(b, "rev-parse", "origin/main").stdout.trim();
    let kills = 0;
    for (let i = 0, n = 1, m = 1; kills < 8; i++, [n, m] = [m, n + m]) {
      const r = await memsync(["--store", b, "pull"], faulted(`object:${n}`));
      assert.equal(r.code, -1, `killed after object ${n}: ${r.stderr}`);
      kills++;
      assertWhole(path.join(b, ".git"), `pull killed after object ${n}`);
      assert.equal(git(b, "rev-parse", "origin/main").stdout.trim(), tracking, "the tracking ref moves after the objects");
      const st = await memsyncJson(["--store", b, "status"]);
      assert.equal(st.health, "healthy", st.reasons.join("; "));
    }
    assert.equal((await memsyncJson(["--store", b, "pull"])).pull.mode, "fast-forward");
    assert.equal((await memsyncJson(["--store", b, "list", "--limit", "0"])).total, 202);
    // 200 memories' objects from a path remote arrive as one pack, not 200+ loose files (the kills
    // above left only temporary files behind, never part of a pack)
    const counts = git(b, "count-objects", "-v").stdout;
    assert.match(counts, /^packs: [1-9]/m, counts);
    assert.ok(Number(/^count: (\d+)$/m.exec(counts)![1]) < 100, counts);
    assert.equal(git(b, "fsck", "--strict").status, 0);
  });

  test("an HTTP fetch killed with its pack written but not its index: no ref names missing objects", async () => {
    const { root } = hub();
    const server = await startGitHttpServer(root, "tok");
    const env = { MEMSYNC_GIT_TOKEN: "tok" };
    try {
      const a = machine(root, "a", server.url("hub.git"));
      const b = machine(root, "b", server.url("hub.git"));
      await memsyncJson(["--store", a, "save", "first"]);
      assert.equal((await memsyncAsync(["--store", a, "sync"], { env })).code, 0);
      assert.equal((await memsyncAsync(["--store", b, "sync"], { env })).code, 0);
      await addMemories(a, 50, "a");
      assert.equal((await memsyncAsync(["--store", a, "sync"], { env })).code, 0);
      const tracking = git(b, "rev-parse", "origin/main").stdout.trim();
      const killed = await memsyncAsync(["--store", b, "pull"], { env: { ...env, MEMSYNC_FAULT: "pack" } });
      assert.notEqual(killed.code, 0, "the fault fired");
      assert.equal(git(b, "rev-parse", "origin/main").stdout.trim(), tracking, "isomorphic-git's early ref write is held back");
      assertWhole(path.join(b, ".git"), "fetch killed after the pack");
      const packs = fs.readdirSync(path.join(b, ".git/objects/pack"));
      assert.ok(packs.some((p) => p.endsWith(".pack") && !packs.includes(p.replace(/\.pack$/, ".idx"))), `a pack without its index: ${packs.join(", ")}`);
      assert.equal((await memsyncJson(["--store", b, "status"])).health, "healthy");
      const again = await memsyncAsync(["--store", b, "pull", "--json"], { env });
      assert.equal(again.code, 0, again.stderr);
      assert.equal((await memsyncJson(["--store", b, "list", "--limit", "0"])).total, 52);
      assertWhole(path.join(b, ".git"), "after the next pull");
    } finally {
      await server.close();
    }
  });
});
