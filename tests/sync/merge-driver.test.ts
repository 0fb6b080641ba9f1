import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git, memsyncAsync, newStore, tempDir } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// The merge driver as git calls it, and native git merging a memsync store with it.

const ID = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";

function record(over: Record<string, unknown> = {}): string {
  const m = {
    id: ID,
    content: "Use cursor pagination",
    meta: { tags: ["api"] },
    created_at: 1000,
    last_used: 1000,
    use_count: 3,
    updated_at: 1000,
    ...over,
  };
  return `${JSON.stringify(m, null, 2)}\n`;
}

async function driver(base: string | null, ours: string, theirs: string, repoPath = `memories/${ID}.json`) {
  const dir = tempDir();
  const [o, a, b] = ["O", "A", "B"].map((n) => path.join(dir, n)) as [string, string, string];
  fs.writeFileSync(o, base ?? "");
  fs.writeFileSync(a, ours);
  fs.writeFileSync(b, theirs);
  const r = await memsync(["merge-driver", o, a, b, repoPath, "7"]);
  return { ...r, result: fs.readFileSync(a, "utf8") };
}


describe("memsync merge-driver %O %A %B %P %L", () => {
  test("merges a memory field by field into %A and exits 0", async () => {
    const r = await driver(record(), record({ use_count: 5, last_used: 1500, meta: { tags: ["api", "x"] } }), record({ use_count: 4, last_used: 1200 }));
    assert.equal(r.code, 0, r.stderr);
    const m = JSON.parse(r.result);
    assert.equal(m.use_count, 6);
    assert.equal(m.last_used, 1500);
    assert.deepEqual(m.meta.tags, ["api", "x"]);
    assert.ok(!r.result.includes("<<<<<<<"), "never a conflict marker inside a JSON file");
    assert.ok(r.result.startsWith('{\n  "id": '), "canonical JSON");
  });

  test("the same count and time on both sides (uses in the same second): each side's stream counts", async () => {
    const touched = (stream: string) => record({ use_count: 4, last_used: 1500, counters: { use_count: { "~": 3, [stream]: 1 } } });
    const r = await driver(record(), touched("laptop.1a2b3c4d"), touched("vps.9f8e7d6c"));
    assert.equal(r.code, 0, r.stderr);
    const m = JSON.parse(r.result);
    assert.equal(m.use_count, 5);
    assert.deepEqual(m.counters, { use_count: { "laptop.1a2b3c4d": 1, "vps.9f8e7d6c": 1, "~": 3 } });
    // merged again with either side (a second pull): nothing more
    const again = await driver(record(), r.result, touched("vps.9f8e7d6c"));
    assert.equal(JSON.parse(again.result).use_count, 5);
  });

  test("add/add (empty %O) merges with an empty base; both edited content keeps both texts", async () => {
    const r = await driver(null, record({ use_count: 1 }), record({ use_count: 2 }));
    assert.equal(r.code, 0);
    assert.equal(JSON.parse(r.result).use_count, 3);
    const c = await driver(record(), record({ content: "ours text", updated_at: 2000 }), record({ content: "theirs text", updated_at: 3000 }));
    assert.equal(c.code, 0);
    const m = JSON.parse(c.result);
    assert.equal(m.content, "theirs text");
    assert.deepEqual(m.content_conflicts.map((x: { content: string }) => x.content), ["ours text"]);
  });

  test("a file that is not a memsync record falls back to a text merge that loses neither side", async () => {
    const base = "line 1\nline 2\nline 3\n";
    const clean = await driver(base, "line 1 ours\nline 2\nline 3\n", "line 1\nline 2\nline 3 theirs\n", "notes/readme.txt");
    assert.equal(clean.code, 0);
    assert.equal(clean.result, "line 1 ours\nline 2\nline 3 theirs\n");
    const clash = await driver(base, "line 1\nOURS\nline 3\n", "line 1\nTHEIRS\nline 3\n", "notes/readme.txt");
    assert.equal(clash.code, 1);
    assert.match(clash.result, /<<<<<<< ours\nOURS\n\|\|\|\|\|\|\| base\nline 2\n=======\nTHEIRS\n>>>>>>> theirs\n/);
    const corrupt = await driver(record(), "{ not json", record({ use_count: 9 }));
    assert.equal(corrupt.code, 1, "a corrupt record is not merged semantically");
    assert.match(corrupt.result, /not json/);
    assert.match(corrupt.result, /"use_count": 9/);
  });

  test("bad arguments or unreadable files never crash past 128", async () => {
    assert.equal((await memsync(["merge-driver"])).code, 2);
    const r = await memsync(["merge-driver", "/nonexistent/O", "/nonexistent/A", "/nonexistent/B"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot read/);
  });
});

describe("native git with the memsync merge driver", () => {
  test("init registers the driver; native git merging two machines' touches sums the counts", async () => {
    const a = newStore();
    assert.match(fs.readFileSync(path.join(a, ".git/config"), "utf8"), /\[merge "memsync"\][^[]*driver = .*merge-driver %O %A %B %P %L/);
    const id = (await memsyncJson(["--store", a, "save", "shared memory"])).memory.id;
    assert.equal(git(a, "add", "-A").status, 0);
    assert.equal(git(a, "commit", "-qm", "save").status, 0);
    const b = path.join(tempDir(), "b");
    assert.equal(git(path.dirname(b), "clone", "-q", a, b).status, 0);
    assert.equal((await memsync(["init", b])).code, 0, "init on a clone registers the driver there");
    for (let i = 0; i < 3; i++) await memsyncJson(["--store", a, "touch", id]);
    for (let i = 0; i < 2; i++) await memsyncJson(["--store", b, "touch", id, "--boost"]);
    await memsyncJson(["--store", b, "update", id, "--add-tag", "from-b"]);
    for (const dir of [a, b]) {
      assert.equal(git(dir, "commit", "-qam", "touch").status, 0);
    }
    const pull = git(b, "pull", "--no-rebase", "-q", "origin", "main");
    assert.equal(pull.status, 0, pull.stderr);
    const merged = JSON.parse(fs.readFileSync(path.join(b, "memories", `${id}.json`), "utf8"));
    assert.equal(merged.use_count, 5, "3 touches on a + 2 on b");
    assert.equal(merged.strength, 1.2);
    assert.deepEqual(merged.meta.tags, ["from-b"]);
    assert.equal(git(b, "fsck", "--strict").status, 0);
    assert.match(git(b, "log", "--format=%s", "-1").stdout, /Merge/);
    // memsync reads the merged store
    assert.equal((await memsyncJson(["--store", b, "get", id])).found[0].memory.use_count, 5);
  });

  test("two clones touching in the same second: native git calls the driver and both uses count", async () => {
    const a = newStore();
    const id = (await memsyncJson(["--store", a, "save", "used on both at once"])).memory.id;
    assert.equal(git(a, "add", "-A").status, 0);
    assert.equal(git(a, "commit", "-qm", "save").status, 0);
    const b = path.join(tempDir(), "b");
    assert.equal(git(path.dirname(b), "clone", "-q", a, b).status, 0);
    assert.equal((await memsync(["init", b])).code, 0);
    const runs = await Promise.all([a, b].map((d) => memsyncAsync(["--store", d, "touch", id])));
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    for (const dir of [a, b]) assert.equal(git(dir, "commit", "-qam", "touch").status, 0);
    const pull = git(b, "pull", "--no-rebase", "-q", "origin", "main");
    assert.equal(pull.status, 0, pull.stderr);
    assert.equal(JSON.parse(fs.readFileSync(path.join(b, "memories", `${id}.json`), "utf8")).use_count, 2);
  });

  test("doctor reports a missing registration", async () => {
    const s = newStore();
    assert.equal((await memsync(["--store", s, "doctor"])).code, 0);
    const cfg = path.join(s, ".git/config");
    fs.writeFileSync(cfg, fs.readFileSync(cfg, "utf8").replace(/\[merge "memsync"\][^[]*/, ""));
    const r = await memsync(["--store", s, "doctor", "--json"]);
    assert.equal(r.code, 6);
    const out = JSON.parse(r.stdout);
    assert.equal(out.checks.find((c: { check: string }) => c.check === "merge driver").ok, false);
    assert.equal((await memsync(["init", s])).code, 0);
    assert.equal((await memsync(["--store", s, "doctor"])).code, 0, "init repairs it");
  });
});

