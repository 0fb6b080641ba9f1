import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { localProjectId, normalizeRemoteUrl, remoteUrlFromConfig } from "../../src/core/project-id.ts";

// A project is identified the same way on every machine: its git remote, normalized.

describe("normalizeRemoteUrl", () => {
  test("every way of writing one GitHub repository gives one id", () => {
    for (const url of [
      "git@github.com:Org/Repo.git",
      "https://github.com/org/repo",
      "https://github.com/org/repo.git",
      "https://github.com/org/repo/",
      "ssh://git@github.com/org/repo.git",
      "ssh://git@github.com:22/org/repo.git",
      "https://user:ghtoken123@github.com/Org/Repo.git",
      "http://www.github.com/org/repo",
      "git://github.com/org/repo.git",
      "git+ssh://git@github.com/org/repo.git",
      "  https://GitHub.com/ORG/REPO.git  ",
    ]) {
      assert.equal(normalizeRemoteUrl(url), "github.com/org/repo", url);
    }
  });

  test("nested groups, ports and other hosts", () => {
    assert.equal(normalizeRemoteUrl("git@gitlab.com:group/sub/project.git"), "gitlab.com/group/sub/project");
    assert.equal(normalizeRemoteUrl("https://git.example.com:8443/team/app.git"), "git.example.com/team/app");
    assert.equal(normalizeRemoteUrl("git@ssh.dev.azure.com:v3/org/proj/repo"), "dev.azure.com/org/proj/repo");
    assert.equal(normalizeRemoteUrl("https://org@dev.azure.com/org/proj/_git/repo"), "dev.azure.com/org/proj/repo");
  });

  test("credentials never survive", () => {
    const id = normalizeRemoteUrl("https://x-access-token:ghs_abcdef0123456789@github.com/org/repo.git");
    assert.equal(id, "github.com/org/repo");
  });

  test("local paths and non-URLs are no remote id", () => {
    for (const url of ["/srv/git/repo.git", "../repo", "file:///srv/git/repo.git", "C:\\repos\\app", "", "not a url", "C:/repos/app"]) {
      assert.equal(normalizeRemoteUrl(url), null, url);
    }
  });
});

describe("remoteUrlFromConfig", () => {
  test("origin first, else the first remote by name; comments and quotes handled", () => {
    const config = `[core]\n\trepositoryformatversion = 0\n[remote "upstream"]\n\turl = git@github.com:up/repo.git\n[remote "origin"] # mine\n\turl = "https://github.com/me/repo.git" ; fork\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`;
    assert.equal(remoteUrlFromConfig(config), "https://github.com/me/repo.git");
    assert.equal(remoteUrlFromConfig(`[remote "zeta"]\nurl = z\n[remote "alpha"]\nurl = a\n`), "a");
    assert.equal(remoteUrlFromConfig("[core]\nbare = false\n"), null);
  });

  test("local ids are clearly local", () => {
    assert.equal(localProjectId("MyApp"), "local:myapp");
    assert.equal(localProjectId(""), null);
  });
});
