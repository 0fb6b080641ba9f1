import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { describe, test } from "node:test";
import { httpClient, MAX_REDIRECTS } from "../../src/sync/http-client.ts";
import { checkHttpUrl, isLoopback, safeUrl } from "../../src/sync/remote-url.ts";
import { binaryThenInProcess, git, memsyncAsync, readMemoryFile, snapshot, tempDir } from "../helpers/env.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// Credentials over HTTP(S) remotes: the token never follows a redirect to another origin, plain
// http:// only to this machine and only when asked for, and no URL carries a secret (nor does a
// message repeat one).

const TOKEN = "tok3n-that-must-stay-home-91f2";

/** A loopback server that answers with `handle` and keeps one line per request (`line`) in `seen`. */
async function loggingServer(
  line: (req: http.IncomingMessage) => string,
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(line(req));
    handle(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const askForCredentials = (res: http.ServerResponse) => {
  res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' });
  res.end();
};

/** A server that records the Authorization header of every request and answers 401. */
const recorder = () => loggingServer((req) => `${req.method} ${req.url} authorization=${req.headers.authorization ?? ""}`, (_req, res) => askForCredentials(res));

/** A remote that asks for credentials, then redirects every authenticated request to `target`. */
const redirector = (target: string) =>
  loggingServer(
    (req) => `${req.method} ${req.url} auth=${req.headers.authorization ? "yes" : "no"}`,
    (req, res) => {
      if (!req.headers.authorization) return askForCredentials(res);
      res.writeHead(302, { Location: `${target}${req.url}` });
      res.end();
    },
  );

async function store(root: string, name: string): Promise<string> {
  const dir = path.join(root, name);
  assert.equal((await memsync(["init", dir])).code, 0);
  // the index exists from the first command on: later snapshots compare the store itself
  assert.equal((await memsync(["--store", dir, "status"])).code, 0);
  return dir;
}

const config = (dir: string) => fs.readFileSync(path.join(dir, ".git/config"), "utf8");

describe("redirects never carry the token to another origin", () => {
  test("a 302 to another port: sync, pull and clone are refused and the other server receives nothing", async () => {
    const other = await recorder();
    const remote = await redirector(other.url);
    try {
      const root = tempDir();
      const a = await store(root, "a");
      assert.equal((await memsync(["--store", a, "remote", "set", `${remote.url}/hub.git`, "--insecure-http"])).code, 0);
      await memsyncJson(["--store", a, "save", "stays here"]);
      const env = { MEMSYNC_GIT_TOKEN: TOKEN };
      for (const cmd of ["sync", "pull"]) {
        const r = await memsyncAsync(["--store", a, cmd], { env });
        assert.deepEqual(other.seen, [], "the other origin received nothing (no token, no request)");
        assert.equal(r.code, 6, r.stderr);
        assert.match(r.stderr, /^memsync: the remote redirects to another origin \(http:\/\/127\.0\.0\.1:\d+\/hub\.git\); memsync sends nothing there/);
        assert.equal(r.stderr.split("\n").length, 2, "one line");
        assert.doesNotMatch(r.stderr + r.stdout, new RegExp(TOKEN));
      }
      const c = await memsyncAsync(["clone", `${remote.url}/hub.git`, path.join(root, "c"), "--insecure-http"], { env });
      assert.equal(c.code, 6, c.stderr);
      // the remote was asked with the token (that is its own origin), the other server never
      assert.ok(remote.seen.some((s) => s.endsWith("auth=yes")), remote.seen.join("\n"));
      assert.deepEqual(other.seen, []);
      assert.ok((await memsyncJson(["--store", a, "status"])).unpushed_commits >= 1, "the commit waits locally");
    } finally {
      await remote.close();
      await other.close();
    }
  });

  test("a redirect within the same server is followed with the token, and pushes reach the new address", async () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const server = await startGitHttpServer(root, TOKEN, { redirect: { from: "/moved.git/", to: "/hub.git/" } });
    try {
      const a = await store(root, "a");
      const b = await store(root, "b");
      for (const dir of [a, b]) assert.equal((await memsync(["--store", dir, "remote", "set", server.url("moved.git"), "--insecure-http"])).code, 0);
      const env = { MEMSYNC_GIT_TOKEN: TOKEN };
      const x = (await memsyncJson(["--store", a, "save", "through a moved repository"])).memory.id;
      const first = await memsyncAsync(["--store", a, "sync"], { env });
      assert.equal(first.code, 0, first.stderr);
      const second = await memsyncAsync(["--store", b, "sync"], { env });
      assert.equal(second.code, 0, second.stderr);
      assert.equal(readMemoryFile(b, x).content, "through a moved repository");
      // the first request is redirected; from then on the operation asks the new address itself
      const log = server.requests.join("\n");
      assert.match(log, /^GET \/moved\.git\/info\/refs\?service=git-upload-pack auth=no\nGET \/hub\.git\/info\/refs\?service=git-upload-pack auth=no\nGET \/hub\.git\/info\/refs\?service=git-upload-pack auth=yes\n/);
      assert.match(log, /POST \/hub\.git\/git-receive-pack auth=yes/);
      assert.match(log, /POST \/hub\.git\/git-upload-pack auth=yes/);
      assert.doesNotMatch(log, /POST \/moved/);
      assert.doesNotMatch(config(a), new RegExp(TOKEN));
    } finally {
      await server.close();
    }
  });
});

describe("memsync's HTTP client", () => {
  const auth = { Authorization: `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}` };

  test("a same-origin redirect keeps the Authorization header; another origin gets nothing", async () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const server = await startGitHttpServer(root, TOKEN, { redirect: { from: "/moved.git/", to: "/hub.git/" } });
    const other = await recorder();
    const away = await redirector(other.url);
    try {
      const res = await httpClient().request({ url: `${server.url("moved.git")}/info/refs?service=git-upload-pack`, headers: auth });
      assert.equal(res.statusCode, 200);
      assert.equal(res.url, `${server.url("hub.git")}/info/refs?service=git-upload-pack`);
      assert.equal(res.headers["content-type"], "application/x-git-upload-pack-advertisement");
      let bytes = 0;
      for await (const chunk of res.body) bytes += chunk.byteLength;
      assert.ok(bytes > 0);
      assert.deepEqual(server.requests, ["GET /moved.git/info/refs?service=git-upload-pack auth=yes", "GET /hub.git/info/refs?service=git-upload-pack auth=yes"]);
      await assert.rejects(httpClient().request({ url: `${away.url}/x.git/info/refs?service=git-upload-pack`, headers: auth }), /redirects to another origin/);
      assert.deepEqual(other.seen, []);
    } finally {
      await server.close();
      await other.close();
      await away.close();
    }
  });

  test("redirects are bounded, and a POST is never redirected by 302", async () => {
    let hits = 0;
    const loop = http.createServer((req, res) => {
      hits++;
      res.writeHead(302, { Location: req.url === "/post" ? "/elsewhere" : `/r${hits}` });
      res.end();
    });
    await new Promise<void>((r) => loop.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(loop.address() as AddressInfo).port}`;
    try {
      await assert.rejects(httpClient().request({ url: `${base}/start` }), new RegExp(`redirected more than ${MAX_REDIRECTS} times`));
      assert.equal(hits, MAX_REDIRECTS + 1);
      await assert.rejects(httpClient().request({ url: `${base}/post`, method: "POST", body: [new Uint8Array([1, 2, 3])] }), /redirected a POST request/);
    } finally {
      await new Promise((r) => loop.close(r));
    }
  });
});

describe("plain http:// only to this machine, and only when asked for", () => {
  test("without --insecure-http: refused in one line, nothing changed; with it, a loopback URL is kept for later syncs", async () => {
    const root = tempDir();
    const a = await store(root, "a");
    const before = snapshot(a);
    const r = await memsync(["--store", a, "remote", "set", "http://127.0.0.1:9/hub.git"]);
    assert.equal(r.code, 4);
    assert.match(r.stderr, /^memsync: plain http:\/\/ sends the token and the memories unencrypted \(http:\/\/127\.0\.0\.1:9\/hub\.git\): use https:\/\/, or for a server on this machine give --insecure-http to remote set or clone\n$/);
    assert.deepEqual(snapshot(a), before);
    const c = await memsync(["clone", "http://localhost:9/hub.git", path.join(root, "c")]);
    assert.equal(c.code, 4);
    assert.ok(!fs.existsSync(path.join(root, "c")), "clone made nothing");

    assert.equal((await memsync(["--store", a, "remote", "set", "http://127.0.0.1:9/hub.git", "--insecure-http"])).code, 0);
    assert.match(config(a), /insecureHttp = http:\/\/127\.0\.0\.1:9\/hub\.git/);
    // allowed for that URL only: a remote changed by hand is checked again
    assert.equal(git(a, "config", "remote.origin.url", "http://127.0.0.1:10/other.git").status, 0);
    const changed = await memsync(["--store", a, "sync"]);
    assert.equal(changed.code, 4, changed.stderr);
    assert.match(changed.stderr, /plain http:\/\//);
    // a remote set again without the flag forgets it
    assert.equal((await memsync(["--store", a, "remote", "set", "https://git.example.com/hub.git"])).code, 0);
    assert.doesNotMatch(config(a), /insecureHttp/);
  });

  test("a host that is not this machine is refused even with --insecure-http", async () => {
    const root = tempDir();
    const a = await store(root, "a");
    const before = snapshot(a);
    for (const url of ["http://git.example.com/hub.git", "http://10.0.0.7/hub.git", "http://[::2]/hub.git", "http://127.0.0.1.example.com/x.git"]) {
      const r = await memsync(["--store", a, "remote", "set", url, "--insecure-http"]);
      assert.equal(r.code, 4, url);
      assert.match(r.stderr, /would send the token and the memories unencrypted: use https:\/\/ \(--insecure-http allows only a server on this machine\)\n$/);
      assert.equal(r.stderr.split("\n").length, 2);
    }
    assert.deepEqual(snapshot(a), before);
    const c = await memsync(["clone", "http://git.example.com/hub.git", path.join(root, "c"), "--insecure-http"]);
    assert.equal(c.code, 4);
    assert.ok(!fs.existsSync(path.join(root, "c")));
  });

  test("which hosts are this machine", async () => {
    for (const h of ["127.0.0.1", "127.8.9.10", "localhost", "LOCALHOST", "[::1]", "::1", "app.localhost"]) assert.ok(isLoopback(h), h);
    for (const h of ["10.0.0.1", "128.0.0.1", "127.0.0.1.example.com", "localhost.example.com", "[::2]", "0.0.0.0", "example.com"]) assert.ok(!isLoopback(h), h);
  });
});

describe("no secret in a remote URL, nor in a message", () => {
  test("a token in the query or in the user part is refused without being repeated", async () => {
    const root = tempDir();
    const a = await store(root, "a");
    const before = snapshot(a);
    const secret = "glpat-Qm7xV2kT9sLp4RwZ8nYb";
    for (const url of [
      `https://gitlab.example.com/team/mem.git?private_token=${secret}`,
      `https://git.example.com/x.git?access_token=${secret}`,
      `https://git.example.com/x.git?ref=main&token=${secret}`,
      `https://git.example.com/x.git?apiKey=${secret}`,
      `https://git.example.com/x.git?X-Auth=${secret}`,
      `https://git.example.com/x.git?client_secret=${secret}`,
      `https://git.example.com/x.git?password=${secret}`,
      `https://${secret}@git.example.com/x.git`,
      `https://oauth2:${secret}@git.example.com/x.git`,
      `ssh://me:${secret}@git.example.com/x.git`,
    ]) {
      const r = await memsync(["--store", a, "remote", "set", url]);
      assert.equal(r.code, 4, url);
      assert.doesNotMatch(r.stderr, new RegExp(secret), r.stderr);
      assert.doesNotMatch(r.stderr, /Qm7x|Yb\b/);
      assert.equal(r.stderr.split("\n").length, 2);
      const c = await memsync(["clone", url, path.join(root, "c")]);
      assert.equal(c.code, 4);
      assert.doesNotMatch(c.stderr, new RegExp(secret));
    }
    assert.deepEqual(snapshot(a), before);
    assert.ok(!fs.existsSync(path.join(root, "c")));
    const q = await memsync(["--store", a, "remote", "set", `https://gitlab.example.com/team/mem.git?private_token=${secret}`]);
    assert.match(q.stderr, /must not carry a secret in its query \(https:\/\/gitlab\.example\.com\/team\/mem\.git\?private_token=\*\*\*\): put the token in MEMSYNC_GIT_TOKEN/);
  });

  test("safeUrl and checkHttpUrl", async () => {
    assert.equal(safeUrl("https://u:p@h.example/x.git?a=1&token=2#f"), "https://***@h.example/x.git?a=***&token=***");
    assert.equal(safeUrl("not a url ?token=abc"), "not a url ?***");
    assert.equal(checkHttpUrl("https://h.example/x.git?ref=main", false), "https://h.example/x.git?ref=main");
    assert.equal(checkHttpUrl("http://127.0.0.1:8080/x.git#frag", true), "http://127.0.0.1:8080/x.git");
  });
});
