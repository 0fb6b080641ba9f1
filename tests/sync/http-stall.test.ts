import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync, memsyncAsync, memsyncJson, tempDir } from "../helpers/env.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";

// A sync never waits for ever on the network: a remote that accepts a request and never answers,
// or stops half-way through a pack, is given up on after MEMSYNC_HTTP_IDLE_TIMEOUT_MS of silence,
// with one line on stderr and exit 9 (timeout), and nothing half-applied.

/** In front of a real git server: forwards everything, or, when told, stalls one kind of request. */
async function stallingProxy(target: string): Promise<{ url: string; stall: (what: "none" | "silent" | "mid-pack") => void; close: () => Promise<void> }> {
  let mode: "none" | "silent" | "mid-pack" = "none";
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    if (mode === "silent") {
      held.add(res); // accepted, never answered
      return;
    }
    const upstream = http.request(new URL(req.url ?? "/", target), { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      if (mode === "mid-pack" && req.url?.endsWith("/git-upload-pack")) {
        // the first bytes of the answer, then silence with the connection open
        up.once("data", (chunk: Buffer) => {
          res.write(chunk.subarray(0, Math.min(chunk.length, 64)));
          held.add(res);
          up.destroy();
        });
        return;
      }
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hub.git`,
    stall: (m) => {
      mode = m;
    },
    close: () =>
      new Promise((r) => {
        for (const res of held) res.destroy();
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}

const IDLE = { MEMSYNC_HTTP_IDLE_TIMEOUT_MS: "1500" };

describe("a stalled HTTP remote", () => {
  test("silent, then stopping mid-pack: each sync ends with exit 9 and one line, nothing half-applied; the next sync completes", async () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const server = await startGitHttpServer(root);
    const proxy = await stallingProxy(server.url("hub.git"));
    try {
      const a = path.join(root, "a");
      assert.equal(memsync(["init", a]).code, 0);
      assert.equal(memsync(["--store", a, "remote", "set", proxy.url, "--insecure-http"]).code, 0);
      memsyncJson(["--store", a, "save", "first memory, pushed through the proxy"]);
      assert.equal((await memsyncAsync(["--store", a, "sync"])).code, 0);
      const b = path.join(root, "b");
      assert.equal((await memsyncAsync(["clone", proxy.url, b, "--insecure-http"])).code, 0);
      const later = memsyncJson(["--store", a, "save", "second memory, reaches b only after the stalls"]).memory.id as string;
      assert.equal((await memsyncAsync(["--store", a, "sync"])).code, 0);

      const tracked = () => git(b, "rev-parse", "refs/remotes/origin/main").stdout.trim();
      const before = { head: git(b, "rev-parse", "HEAD").stdout.trim(), tracked: tracked() };
      for (const mode of ["silent", "mid-pack"] as const) {
        proxy.stall(mode);
        const t0 = Date.now();
        const r = await memsyncAsync(["--store", b, "sync"], { env: IDLE });
        assert.equal(r.code, 9, `${mode}: ${r.stderr}`);
        assert.match(r.stderr, /^memsync: the remote sent nothing for 1\.5 s \(http:\/\/127\.0\.0\.1:\d+\/hub\.git\).*MEMSYNC_HTTP_IDLE_TIMEOUT_MS/);
        assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
        assert.ok(Date.now() - t0 < 60_000, `${mode}: gave up in ${Date.now() - t0} ms`);
        assert.deepEqual({ head: git(b, "rev-parse", "HEAD").stdout.trim(), tracked: tracked() }, before, `${mode}: nothing moved`);
        assert.equal(memsync(["--store", b, "get", later]).code, 3, `${mode}: the second memory is not there yet`);
      }
      proxy.stall("none");
      const r = await memsyncAsync(["--store", b, "sync"], { env: IDLE });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(memsync(["--store", b, "get", later]).code, 0);
      assert.equal(git(b, "fsck", "--strict", "--no-dangling").status, 0);
    } finally {
      await proxy.close();
      await server.close();
    }
  });
});
