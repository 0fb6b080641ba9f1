import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync, newStore, tempDir } from "../helpers/env.ts";

// A fetch from a remote on a local path (sync/exchange.ts fetchTheirs) must leave the store whole:
// git's own fsck finds every object reachable from every ref, after merges both ways and after a
// tracking ref that names a commit the remote never had. (Written as the safety net of a fetch
// that copied only the commits after the tracking ref; measured, that was no cheaper than the
// walk, and was not kept: these still guard the walk.)

const ok = (args: string[]) => {
  const r = memsync(args);
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  return r;
};

const fsck = (dir: string) => {
  const r = git(dir, "fsck", "--full", "--no-dangling");
  assert.equal(r.status, 0, `git fsck in ${dir}: ${r.stdout} ${r.stderr}`);
};

const head = (dir: string, ref = "HEAD") => git(dir, "rev-parse", ref).stdout.trim();

describe("a fetch from a local-path remote", () => {
  test("after merges both ways the store is whole and at the remote's commit", () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const hub = path.join(root, "hub.git");
    const a = newStore();
    ok(["--store", a, "remote", "set", hub]);
    for (let i = 0; i < 12; i++) ok(["--store", a, "save", `Service ${i} pages the on-call engineer after five minutes.`]);
    ok(["--store", a, "sync"]);
    const b = path.join(root, "b");
    ok(["clone", hub, b]);
    for (let round = 0; round < 3; round++) {
      ok(["--store", a, "save", `Round ${round}: the staging database is reset nightly (a).`]);
      ok(["--store", b, "save", `Round ${round}: the release train leaves on Thursdays (b).`]);
      ok(["--store", a, "sync"]);
      ok(["--store", b, "sync"]); // a merge of a's commit, pushed
      ok(["--store", a, "sync"]); // b's commit and merge, fetched since a's tracking ref
      fsck(a);
      fsck(b);
      assert.equal(head(a), git(root, "--git-dir", hub, "rev-parse", "main").stdout.trim());
    }
  });

  test("a tracking ref naming a commit the remote never had: the fetch still leaves the store whole", () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const hub = path.join(root, "hub.git");
    const a = newStore();
    ok(["--store", a, "remote", "set", hub]);
    ok(["--store", a, "save", "Invoices are archived after a year."]);
    ok(["--store", a, "sync"]);
    const b = path.join(root, "b");
    ok(["clone", hub, b]);
    ok(["--store", b, "save", "Backups are tested every quarter."]);
    ok(["--store", b, "sync"]);
    // a's tracking ref moved to a local commit of its own (as if another remote had been set)
    ok(["--store", a, "save", "Only the tracking ref knows this one."]);
    ok(["--store", a, "commit"]);
    assert.equal(git(a, "update-ref", "refs/remotes/origin/main", head(a)).status, 0);
    ok(["--store", a, "sync"]);
    fsck(a);
    assert.equal(git(a, "merge-base", "--is-ancestor", head(b), head(a)).status, 0);
  });
});
