import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { currentProject } from "../../src/ops/project.ts";
import { git, tempDir } from "../helpers/env.ts";

// currentProject on real repositories made by native git: plain, nested folders, linked
// worktrees (.git is a file), submodule-style gitdir files, no remote, no repository.

function repo(remote?: string): string {
  const dir = path.join(tempDir("memsync-proj-"), "Billing-App");
  fs.mkdirSync(dir);
  assert.equal(git(dir, "init", "-q").status, 0);
  if (remote) assert.equal(git(dir, "remote", "add", "origin", remote).status, 0);
  return dir;
}

describe("currentProject", () => {
  test("the normalized origin, from the top or any folder below", () => {
    const dir = repo("git@github.com:Acme/Billing.git");
    const deep = path.join(dir, "src", "api");
    fs.mkdirSync(deep, { recursive: true });
    assert.equal(currentProject(dir), "github.com/acme/billing");
    assert.equal(currentProject(deep), "github.com/acme/billing");
  });

  test("a linked worktree reads the main repository's config", () => {
    const dir = repo("https://github.com/acme/billing");
    fs.writeFileSync(path.join(dir, "f"), "x");
    git(dir, "add", "f");
    assert.equal(git(dir, "commit", "-qm", "c").status, 0);
    const wt = path.join(path.dirname(dir), "wt-feature");
    assert.equal(git(dir, "worktree", "add", "-q", wt).status, 0);
    assert.ok(fs.statSync(path.join(wt, ".git")).isFile());
    assert.equal(currentProject(wt), "github.com/acme/billing");
  });

  test("a .git file pointing at a git dir of its own (a submodule)", () => {
    const parent = repo("git@github.com:acme/parent.git");
    const modules = path.join(parent, ".git", "modules", "lib");
    fs.mkdirSync(modules, { recursive: true });
    fs.writeFileSync(path.join(modules, "config"), '[remote "origin"]\n\turl = git@github.com:acme/lib.git\n');
    const sub = path.join(parent, "lib");
    fs.mkdirSync(sub);
    fs.writeFileSync(path.join(sub, ".git"), "gitdir: ../.git/modules/lib\n");
    assert.equal(currentProject(sub), "github.com/acme/lib");
  });

  test("no remote, or only a local path: local:<folder>; no repository: null", () => {
    assert.equal(currentProject(repo()), "local:billing-app");
    assert.equal(currentProject(repo("/srv/git/billing.git")), "local:billing-app");
    const plain = tempDir("memsync-plain-");
    assert.equal(currentProject(plain), null);
    assert.equal(currentProject(path.join(plain, "does", "not", "exist")), null);
  });
});
