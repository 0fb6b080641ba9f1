import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { unmergedIndexPaths, updateGitIndex } from "../../src/sync/git-index.ts";
import { writeLooseObject } from "../../src/sync/loose-objects.ts";
import { git, tempDir } from "../helpers/env.ts";

// git's index as memsync updates it (src/sync/git-index.ts), read back by native git.

function repo(): { dir: string; gitdir: string } {
  const dir = path.join(tempDir(), "r");
  assert.equal(git(tempDir(), "init", "-q", dir).status, 0);
  for (const f of ["a.json", "b.json", "m/c.json"]) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), `${f}\n`);
  }
  assert.equal(git(dir, "add", "-A").status, 0);
  assert.equal(git(dir, "commit", "-qm", "one").status, 0);
  return { dir, gitdir: path.join(dir, ".git") };
}

async function put(r: { dir: string; gitdir: string }, rel: string, text: string) {
  fs.mkdirSync(path.dirname(path.join(r.dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(r.dir, rel), text);
  return { oid: await writeLooseObject(r.gitdir, "blob", new TextEncoder().encode(text)), size: Buffer.byteLength(text) };
}

const staged = (dir: string) => git(dir, "ls-files", "-s").stdout;

describe("git's index, updated by memsync", () => {
  test("entries set and removed in one atomic replacement; native git reads it and sees the files clean", async () => {
    const r = repo();
    const b = await put(r, "b.json", "b changed\n");
    const d = await put(r, "m/d.json", "new\n");
    fs.rmSync(path.join(r.dir, "a.json"));
    await updateGitIndex(r.gitdir, new Map([["b.json", b], ["m/d.json", d], ["a.json", null]]));
    assert.deepEqual(git(r.dir, "ls-files").stdout.trim().split("\n"), ["b.json", "m/c.json", "m/d.json"]);
    assert.match(staged(r.dir), new RegExp(`100644 ${d.oid} 0\tm/d.json`));
    assert.equal(git(r.dir, "diff", "--quiet").status, 0, "the files equal the index");
    assert.deepEqual(fs.readdirSync(r.gitdir).filter((n) => n.startsWith("memsync-") || n === "index.lock"), [], "no lock or temp left");
  });

  test("a version 3 index (an intent-to-add entry) keeps its entries; a missing index is created", async () => {
    const r = repo();
    fs.writeFileSync(path.join(r.dir, "later.json"), "later\n");
    assert.equal(git(r.dir, "add", "-N", "later.json").status, 0);
    assert.equal(fs.readFileSync(path.join(r.gitdir, "index")).readUInt32BE(4), 3);
    const e = await put(r, "e.json", "e\n");
    await updateGitIndex(r.gitdir, new Map([["e.json", e]]));
    assert.deepEqual(git(r.dir, "ls-files").stdout.trim().split("\n"), ["a.json", "b.json", "e.json", "later.json", "m/c.json"]);
    assert.match(git(r.dir, "status", "--porcelain").stdout, /^ A later.json$/m, "still intent-to-add");
    fs.rmSync(path.join(r.gitdir, "index"));
    await updateGitIndex(r.gitdir, new Map([["e.json", e]]));
    assert.equal(staged(r.dir), `100644 ${e.oid} 0\te.json\n`);
  });

  test("a lock left by a killed memsync is taken over; git's own lock is waited for, then refused with what to do", async () => {
    const r = repo();
    const e = await put(r, "e.json", "e\n");
    // what a kill between taking the lock and renaming it leaves: index.lock, and memsync's temp sharing its inode
    const tmp = path.join(r.gitdir, "memsync-index-999-x.tmp");
    fs.copyFileSync(path.join(r.gitdir, "index"), tmp);
    fs.linkSync(tmp, path.join(r.gitdir, "index.lock"));
    await updateGitIndex(r.gitdir, new Map([["e.json", e]]));
    assert.match(staged(r.dir), /\te\.json$/m);
    assert.equal(fs.existsSync(path.join(r.gitdir, "index.lock")), false);
    assert.equal(fs.existsSync(tmp), false);
    // a lock of git's: not ours to remove
    fs.writeFileSync(path.join(r.gitdir, "index.lock"), "");
    const before = fs.readFileSync(path.join(r.gitdir, "index"));
    const f = await put(r, "f.json", "f\n");
    await assert.rejects(updateGitIndex(r.gitdir, new Map([["f.json", f]]), 200), (err: Error & { code?: string }) => err.code === "unavailable" && /index is locked/.test(err.message));
    assert.deepEqual(fs.readFileSync(path.join(r.gitdir, "index")), before);
    assert.equal(fs.existsSync(path.join(r.gitdir, "index.lock")), true);
    // released within the wait: taken then
    setTimeout(() => fs.rmSync(path.join(r.gitdir, "index.lock")), 100);
    await updateGitIndex(r.gitdir, new Map([["f.json", f]]), 2_000);
    assert.match(staged(r.dir), /\tf\.json$/m);
  });

  test("unresolved conflicts are found; a version 4 index is refused, not rewritten", async () => {
    const r = repo();
    assert.equal(git(r.dir, "checkout", "-qb", "side").status, 0);
    fs.writeFileSync(path.join(r.dir, "a.json"), "side\n");
    assert.equal(git(r.dir, "commit", "-qam", "side").status, 0);
    assert.equal(git(r.dir, "checkout", "-q", "-").status, 0);
    fs.writeFileSync(path.join(r.dir, "a.json"), "main\n");
    assert.equal(git(r.dir, "commit", "-qam", "main").status, 0);
    assert.notEqual(git(r.dir, "merge", "side").status, 0);
    assert.deepEqual(unmergedIndexPaths(r.gitdir), ["a.json"]);
    assert.equal(git(r.dir, "merge", "--abort").status, 0);
    assert.deepEqual(unmergedIndexPaths(r.gitdir), []);
    assert.equal(git(r.dir, "update-index", "--index-version", "4").status, 0);
    const before = fs.readFileSync(path.join(r.gitdir, "index"));
    const e = await put(r, "e.json", "e\n");
    await assert.rejects(updateGitIndex(r.gitdir, new Map([["e.json", e]])), /index-version 2/);
    assert.deepEqual(fs.readFileSync(path.join(r.gitdir, "index")), before);
  });

  test("changes at the start, middle and end of a larger index, and removals of paths it lacks, leave every other entry as it was", async () => {
    const r = repo();
    // 300 files over folders (names sharing prefixes, a folder's name a prefix of a file's)
    for (let i = 0; i < 300; i++) fs.mkdirSync(path.join(r.dir, `m/${i % 7}`), { recursive: true });
    for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(r.dir, `m/${i % 7}/f${i}.json`), `${i}\n`);
    fs.writeFileSync(path.join(r.dir, "m/0.json"), "zero\n");
    assert.equal(git(r.dir, "add", "-A").status, 0);
    assert.equal(git(r.dir, "commit", "-qm", "many").status, 0);
    const before = staged(r.dir).trim().split("\n");
    const first = await put(r, "0.json", "first\n"); // before every entry
    const mid = await put(r, "m/3/f101.json", "changed\n"); // an entry replaced
    const added = await put(r, "m/3/f1010.json", "added\n"); // between two entries
    const last = await put(r, "zz/last.json", "last\n"); // after every entry
    fs.rmSync(path.join(r.dir, "m/6/f6.json"));
    await updateGitIndex(r.gitdir, new Map<string, { oid: string; size: number } | null>([
      ["m/3/f101.json", mid], ["zz/last.json", last], ["m/6/f6.json", null], ["m/6/absent.json", null], ["0.json", first], ["m/3/f1010.json", added],
    ]));
    const expected = new Map(before.map((l) => [l.split("\t")[1]!, l] as const));
    expected.delete("m/6/f6.json");
    for (const [p, o] of [["0.json", first], ["m/3/f101.json", mid], ["m/3/f1010.json", added], ["zz/last.json", last]] as const) expected.set(p, `100644 ${o.oid} 0\t${p}`);
    const got = staged(r.dir).trim().split("\n");
    assert.deepEqual(got, [...expected.values()].sort((a, b) => { const x = Buffer.from(a.split("\t")[1]!), y = Buffer.from(b.split("\t")[1]!); return Buffer.compare(x, y); }));
    assert.equal(git(r.dir, "diff", "--quiet").status, 0, "the files equal the index");
    assert.equal(git(r.dir, "fsck", "--no-progress").status, 0);
  });
});
