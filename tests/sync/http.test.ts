import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git, memsyncAsync, readMemoryFile, tempDir } from "../helpers/env.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// Sync over smart HTTP against native `git http-backend` on 127.0.0.1, with a token. The server
// runs in this process, so every command that talks to it runs asynchronously (memsyncAsync).

const TOKEN = "s3cret-token-for-tests";


const readMemory = readMemoryFile;

describe("memsync sync over smart HTTP", () => {
  test("two machines through a token-protected server; the token never reaches config, history or logs", async () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const server = await startGitHttpServer(root, TOKEN);
    try {
      const env = { MEMSYNC_GIT_TOKEN: TOKEN };
      const mk = async (name: string) => {
        const dir = path.join(root, name);
        assert.equal((await memsync(["init", dir])).code, 0);
        assert.equal((await memsync(["--store", dir, "remote", "set", server.url("hub.git"), "--insecure-http"])).code, 0);
        return dir;
      };
      const a = await mk("a");
      const b = await mk("b");
      const x = (await memsyncJson(["--store", a, "save", "over http"], { env })).memory.id;
      const first = await memsyncAsync(["--store", a, "sync", "--json"], { env });
      assert.equal(first.code, 0, first.stderr);
      assert.equal((await memsyncAsync(["--store", b, "sync"], { env })).code, 0);
      for (let i = 0; i < 3; i++) await memsyncJson(["--store", a, "touch", x]);
      for (let i = 0; i < 2; i++) await memsyncJson(["--store", b, "touch", x]);
      for (const dir of [a, b, a]) {
        const r = await memsyncAsync(["--store", dir, "sync"], { env });
        assert.equal(r.code, 0, r.stderr);
      }
      assert.equal(readMemory(a, x).use_count, 5);
      assert.equal(readMemory(b, x).use_count, 5);
      // no token: a clear refusal, nothing lost
      await memsyncJson(["--store", a, "save", "waits for the token"]);
      const denied = await memsyncAsync(["--store", a, "sync"]);
      assert.equal(denied.code, 6);
      assert.match(denied.stderr, /refused access|MEMSYNC_GIT_TOKEN/);
      assert.equal((await memsyncAsync(["--store", a, "sync"], { env })).code, 0);
      for (const dir of [a, b]) {
        assert.doesNotMatch(fs.readFileSync(path.join(dir, ".git/config"), "utf8"), new RegExp(TOKEN));
        assert.doesNotMatch(git(dir, "log", "--all", "-p").stdout, new RegExp(TOKEN));
      }
      assert.ok(server.requests.some((r) => r.includes("git-receive-pack") && r.endsWith("auth=yes")));
    } finally {
      await server.close();
    }
  });

  test("the server drops a push mid-request: the retry loses nothing", async () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const server = await startGitHttpServer(root);
    try {
      const a = path.join(root, "a");
      assert.equal((await memsync(["init", a])).code, 0);
      assert.equal((await memsync(["--store", a, "remote", "set", server.url("hub.git"), "--insecure-http"])).code, 0);
      const ids: string[] = [];
      for (const i of [0, 1, 2]) ids.push((await memsyncJson(["--store", a, "save", `memory ${i} before the outage`])).memory.id);
      server.failNextPush();
      const broken = await memsyncAsync(["--store", a, "sync"]);
      assert.equal(broken.code, 6, broken.stderr);
      assert.match(broken.stderr, /cannot be reached/);
      const again = await memsyncAsync(["--store", a, "sync"]);
      assert.equal(again.code, 0, again.stderr);
      const check = path.join(root, "check");
      assert.equal(git(root, "clone", "-q", path.join(root, "hub.git"), check).status, 0);
      for (const id of ids) assert.ok(readMemory(check, id), `${id} reached the remote`);
    } finally {
      await server.close();
    }
  });
  test("five machines pushing at once over HTTP: every memory is on the remote afterwards", async () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const server = await startGitHttpServer(root);
    try {
      const dirs: string[] = [];
      const ids: string[] = [];
      for (const [i, name] of ["m1", "m2", "m3", "m4", "m5"].entries()) {
        const dir = path.join(root, name);
        assert.equal((await memsync(["init", dir])).code, 0);
        assert.equal((await memsync(["--store", dir, "remote", "set", server.url("hub.git"), "--insecure-http"])).code, 0);
        dirs.push(dir);
        ids.push((await memsyncJson(["--store", dir, "save", `memory ${i} pushed over http at the same time`])).memory.id as string);
      }
      const runs = await Promise.all(dirs.map((d) => memsyncAsync(["--store", d, "sync", "--json"])));
      for (const r of runs) assert.equal(r.code, 0, r.stderr);
      // (when the five overlap, as they usually do, some pushes are refused and retried after a
      // merge; a run where they happen to finish one after another still has to hold all five)
      const check = path.join(root, "check");
      assert.equal(git(root, "clone", "-q", path.join(root, "hub.git"), check).status, 0);
      for (const id of ids) assert.ok(readMemory(check, id), `memory ${id} is on the remote`);
      assert.equal(git(path.join(root, "hub.git"), "fsck", "--strict").status, 0);
    } finally {
      await server.close();
    }
  });
  test("a server that declines the push (a hook, a protected branch) is said so at once; the commits wait locally", async () => {
    const root = tempDir();
    const bare = path.join(root, "hub.git");
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    fs.writeFileSync(path.join(bare, "hooks/pre-receive"), "#!/bin/sh\necho 'main is protected' >&2\nexit 1\n", { mode: 0o755 });
    const server = await startGitHttpServer(root);
    try {
      const a = path.join(root, "a");
      assert.equal((await memsync(["init", a])).code, 0);
      assert.equal((await memsync(["--store", a, "remote", "set", server.url("hub.git"), "--insecure-http"])).code, 0);
      await memsyncJson(["--store", a, "save", "kept while the server says no"]);
      const r = await memsyncAsync(["--store", a, "sync"]);
      assert.equal(r.code, 6, r.stderr);
      assert.match(r.stderr, /^memsync: the remote refused the push \(http:\/\/127\.0\.0\.1:\d+\/hub\.git\): .*declined.*; your commits are kept locally\n$/);
      // counted, not timed (a loaded machine is slow either way): one push, no retry loop against a refusal
      assert.equal(server.requests.filter((q) => q.startsWith("POST ") && q.includes("/git-receive-pack")).length, 1, server.requests.join("\n"));
      assert.ok((await memsyncJson(["--store", a, "status"])).unpushed_commits >= 2);
      assert.equal(git(bare, "rev-parse", "--verify", "-q", "refs/heads/main").status, 1, "nothing reached the remote");
    } finally {
      await server.close();
    }
  });
});
