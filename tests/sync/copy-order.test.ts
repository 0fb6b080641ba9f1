import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { checkConnectivity } from "../../src/sync/connectivity.ts";
import { copyReachable, readObjectFrom, referencesOf, walkChildrenFirst } from "../../src/sync/objects.ts";
import { git, tempDir } from "../helpers/env.ts";

// copyReachable writes children before what names them, over a history far deeper than any
// call stack, and the connectivity check finds what a repository lacks.

/** A bare repository with `n` commits in a line (fast-import: seconds, not minutes), each changing one file unless `same` (one tree for all). */
function longHistory(n: number, same = false): string {
  const repo = path.join(tempDir(), "long.git");
  assert.equal(git(tempDir(), "init", "-q", "--bare", "-b", "main", repo).status, 0);
  let stream = "";
  for (let i = 1; i <= n; i++) {
    const data = `change ${i}\n`;
    stream += `commit refs/heads/main\ncommitter T <t@example.com> ${1_700_000_000 + i} +0000\ndata 1\nc\n`;
    if (!same || i === 1) stream += `M 100644 inline f${i % 7}.txt\ndata ${Buffer.byteLength(data)}\n${data}\n`;
  }
  const r = spawnSync("git", ["fast-import", "--quiet"], { cwd: repo, input: stream, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return repo;
}

describe("copying objects children first", () => {
  test("each object is written after everything it names", async () => {
    const src = longHistory(40);
    const tip = git(src, "rev-parse", "main").stdout.trim();
    const written = new Set<string>();
    const order: string[] = [];
    await walkChildrenFirst(
      [{ oid: tip, kind: "commit", path: "", commit: null }],
      (at) => readObjectFrom(src, at.oid),
      async (at, obj) => {
        for (const child of referencesOf(at, obj)) assert.ok(written.has(child.oid), `${at.oid} left before ${child.oid}`);
        written.add(at.oid);
        order.push(at.oid);
      },
    );
    assert.equal(order.at(-1), tip, "the tip commit comes last");
    assert.equal(order.length, 40 * 3, "every commit, tree and blob once");
    const dst = path.join(tempDir(), "dst.git");
    assert.equal(git(tempDir(), "init", "-q", "--bare", "-b", "main", dst).status, 0);
    assert.equal(await copyReachable(src, dst, tip), order.length);
  });

  test("a history 100,000 commits deep is walked without recursion, oldest commit first", async () => {
    // commits made up in memory (the walk does not care where objects come from): fake ids, a
    // header naming the parent
    const N = 100_000;
    const id = (i: number) => i.toString(16).padStart(40, "0");
    const tree = "f".repeat(40);
    let first: string | null = null;
    let count = 0;
    await walkChildrenFirst(
      [{ oid: id(N), kind: "commit", path: "", commit: null }],
      async (at) => {
        if (at.oid === tree) return null;
        const i = Number.parseInt(at.oid, 16);
        const header = `tree ${tree}\n${i > 1 ? `parent ${id(i - 1)}\n` : ""}author T <t@x> 0 +0000\n\nc\n`;
        return { type: "commit", content: new TextEncoder().encode(header) };
      },
      async (at) => {
        first ??= at.oid;
        count++;
      },
    );
    assert.equal(first, id(1), "the oldest commit is written first");
    assert.equal(count, N);
  });

  test("2,000 commits in a line: copied whole, git fsck agrees, the check reads the newest 20", async () => {
    const src = longHistory(2_000, true);
    const dst = path.join(tempDir(), "dst.git");
    assert.equal(git(tempDir(), "init", "-q", "--bare", "-b", "main", dst).status, 0);
    const tip = git(src, "rev-parse", "main").stdout.trim();
    assert.equal(await copyReachable(src, dst, tip), 2_002);
    fs.writeFileSync(path.join(dst, "refs/heads/main"), `${tip}\n`);
    const fsck = git(dst, "fsck", "--strict", "--no-dangling");
    assert.equal(fsck.status, 0, fsck.stdout + fsck.stderr);
    const check = await checkConnectivity(dst);
    assert.deepEqual(check.missing, []);
    assert.equal(check.commits, 20);
  });

  test("a loose object is copied as its file's bytes, after they are checked: a damaged one is refused and not copied", async () => {
    const work = path.join(tempDir(), "src");
    assert.equal(git(tempDir(), "init", "-q", "-b", "main", work).status, 0);
    for (const [name, text] of [["a.txt", "alpha\n"], ["b.txt", "bravo\n"]] as const) fs.writeFileSync(path.join(work, name), text);
    assert.equal(git(work, "add", "-A").status, 0);
    assert.equal(git(work, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "two files").status, 0);
    const src = path.join(work, ".git");
    const tip = git(work, "rev-parse", "HEAD").stdout.trim();
    const loose = (gitdir: string, oid: string) => path.join(gitdir, "objects", oid.slice(0, 2), oid.slice(2));
    const dst = path.join(tempDir(), "dst.git");
    assert.equal(git(tempDir(), "init", "-q", "--bare", "-b", "main", dst).status, 0);
    assert.equal(await copyReachable(src, dst, tip), 4);
    for (const oid of [tip, git(work, "rev-parse", "HEAD^{tree}").stdout.trim(), git(work, "rev-parse", "HEAD:a.txt").stdout.trim()]) {
      assert.deepEqual(fs.readFileSync(loose(dst, oid)), fs.readFileSync(loose(src, oid)), `${oid}: git's own bytes`);
    }
    // b.txt's loose file replaced by a whole zlib stream of other content: refused, and not copied
    const b = git(work, "rev-parse", "HEAD:b.txt").stdout.trim();
    const forged = spawnSync("git", ["hash-object", "-w", "--stdin"], { cwd: work, input: "charlie\n", encoding: "utf8" }).stdout.trim();
    fs.chmodSync(loose(src, b), 0o644);
    fs.copyFileSync(loose(src, forged), loose(src, b));
    const dst2 = path.join(tempDir(), "dst2.git");
    assert.equal(git(tempDir(), "init", "-q", "--bare", "-b", "main", dst2).status, 0);
    await assert.rejects(copyReachable(src, dst2, tip), /is damaged/);
    assert.equal(fs.existsSync(loose(dst2, b)), false);
    assert.equal(fs.existsSync(loose(dst2, tip)), false, "nothing names what was refused");
  });

  test("the check names what is missing: a tree below the tip, a parent past the newest commits' reach", async () => {
    const src = longHistory(30);
    const gitdir = path.join(tempDir(), "copy.git");
    assert.equal(git(tempDir(), "init", "-q", "--bare", "-b", "main", gitdir).status, 0);
    const tip = git(src, "rev-parse", "main").stdout.trim();
    await copyReachable(src, gitdir, tip);
    fs.writeFileSync(path.join(gitdir, "refs/heads/main"), `${tip}\n`);
    const tree = git(gitdir, "rev-parse", "main^{tree}").stdout.trim();
    const old = git(gitdir, "rev-parse", "main~25").stdout.trim();
    for (const oid of [tree, old]) fs.rmSync(path.join(gitdir, "objects", oid.slice(0, 2), oid.slice(2)));
    const check = await checkConnectivity(gitdir, { recentCommits: 30 });
    const found = new Map(check.missing.map((m) => [m.oid, m.where]));
    assert.equal(found.get(tree), `root tree of commit ${tip.slice(0, 8)}`);
    assert.match(found.get(old) ?? "", /^parent of commit [0-9a-f]{8}$/);
    // the default reach (20 commits) does not get that far back: the check stays bounded
    assert.equal((await checkConnectivity(gitdir)).missing.some((m) => m.oid === old), false);
  });
});
