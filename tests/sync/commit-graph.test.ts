import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { descendsFrom, mergeBases } from "../../src/sync/commit-graph.ts";
import { tempDir } from "../helpers/env.ts";

// memsync's merge bases and ancestry against native git's, on random histories made by native git:
// branches, merges (criss-cross ones too), and clocks that run backwards, loose and packed.

function gitIn(dir: string, args: string[], env: Record<string, string> = {}): string {
  const r = spawnSync("git", args, { cwd: dir, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@x", ...env } });
  if (r.status !== 0 && !(args[0] === "merge-base" && r.status === 1)) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

/**
 * A random history of n commits, written by one `git fast-import` (a `git commit-tree` each would be
 * n processes); returns their ids, oldest first.
 */
function randomHistory(dir: string, n: number, seed: number): string[] {
  let x = seed;
  const rnd = (k: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % k;
  };
  gitIn(dir, ["init", "-q", "-b", "main"]);
  const stream: string[] = [];
  const marks: number[] = [];
  let clock = 1_700_000_000;
  for (let i = 0; i < n; i++) {
    // mostly forward in time; one commit in six from a clock up to a day behind
    clock += rnd(6) === 0 ? -rnd(86_400) : 60 + rnd(600);
    const parents = new Set<number>();
    if (marks.length) {
      // a tip near the end (branches), sometimes a second one (merges)
      parents.add(marks[Math.max(0, marks.length - 1 - rnd(6))]!);
      if (rnd(4) === 0) parents.add(marks[Math.max(0, marks.length - 1 - rnd(12))]!);
    }
    const [from, ...merges] = [...parents];
    const message = `c${i}`;
    stream.push(`commit refs/heads/main\nmark :${i + 1}\nauthor T <t@x> ${clock} +0000\ncommitter T <t@x> ${clock} +0000\ndata ${message.length}\n${message}\n`);
    if (from) stream.push(`from :${from}\n`, ...merges.map((m) => `merge :${m}\n`));
    stream.push("\n");
    marks.push(i + 1);
  }
  const marksFile = path.join(dir, ".git", "marks");
  const r = spawnSync("git", ["fast-import", "--quiet", `--export-marks=${marksFile}`], { cwd: dir, input: stream.join(""), encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const oid = new Map(fs.readFileSync(marksFile, "utf8").trim().split("\n").map((l) => l.split(" ") as [string, string]));
  return marks.map((m) => oid.get(`:${m}`)!);
}

async function compare(gitdir: string, dir: string, commits: string[], pairs: number, seed: number): Promise<number> {
  let x = seed;
  const pick = () => commits[(x = (x * 69069 + 1) % 2 ** 31) % commits.length]!;
  let nontrivial = 0;
  for (let i = 0; i < pairs; i++) {
    const a = pick();
    const b = pick();
    const want = gitIn(dir, ["merge-base", "--all", a, b]).split("\n").filter(Boolean).sort();
    const got = (await mergeBases(gitdir, a, b)).sort();
    assert.deepEqual(got, want, `merge-base --all ${a} ${b}`);
    if (want.length && !want.includes(a) && !want.includes(b)) nontrivial++;
    // b is an ancestor of a exactly when git's only merge base of the two is b (git merge-base --is-ancestor's rule)
    const isAnc = want.length === 1 && want[0] === b;
    assert.equal(await descendsFrom(gitdir, a, b), isAnc && a !== b, `${a} descends from ${b}`);
  }
  return nontrivial;
}

test("merge bases and ancestry agree with native git on random histories with merges and skewed clocks, loose and packed", { timeout: 120_000 }, async () => {
  const root = tempDir();
  let nontrivial = 0;
  let some = "";
  for (const seed of [3, 17]) {
    const dir = path.join(root, `h${seed}`);
    fs.mkdirSync(dir);
    const commits = randomHistory(dir, 70, seed);
    some = commits.at(-1)!;
    nontrivial += await compare(path.join(dir, ".git"), dir, commits, 30, seed);
    // the same history packed: read through the pack
    const packed = path.join(root, `p${seed}`);
    fs.cpSync(dir, packed, { recursive: true });
    gitIn(packed, ["update-ref", "refs/heads/main", commits.at(-1)!]);
    const tags = spawnSync("git", ["update-ref", "--stdin"], { cwd: packed, input: commits.map((c) => `update refs/tags/t${c.slice(0, 8)} ${c}\n`).join(""), encoding: "utf8" });
    assert.equal(tags.status, 0, tags.stderr);
    gitIn(packed, ["repack", "-a", "-d", "-q"]);
    gitIn(packed, ["prune-packed"]);
    assert.equal(fs.readdirSync(path.join(packed, ".git/objects")).filter((d) => /^[0-9a-f]{2}$/.test(d)).length, 0, "every object packed");
    nontrivial += await compare(path.join(packed, ".git"), packed, commits, 12, seed + 1);
  }
  assert.ok(nontrivial >= 10, `pairs with a base that is neither tip: ${nontrivial}`);
  // a commit the repository does not have is no ancestor (a remote's head not fetched yet)
  assert.equal(await descendsFrom(path.join(root, "h17/.git"), some, "0".repeat(40)), false);
});
