import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";

// A real git smart-HTTP server for tests: native `git http-backend` run as CGI behind a small
// HTTP server on 127.0.0.1, port 0. Optional token (Basic auth, the token as password), a
// redirect within the server, and a fault to inject: drop the connection of the next push
// mid-request. memsync reaches it with --insecure-http (plain http to a loopback host).

export interface GitHttpServer {
  url: (repo: string) => string;
  close: () => Promise<void>;
  /** The next receive-pack (push) request has its connection destroyed mid-request. */
  failNextPush: () => void;
  /** Requests from now on wait, unanswered, until the returned function is called (a sync held in flight). Hold every request (or those whose URL matches) until the returned function is called. */
  hold: (matching?: RegExp) => () => void;
  /** How many requests are being held now. */
  heldCount: () => number;
  requests: string[];
}

export interface ServerOptions {
  /** Answer every request under `from` with a redirect to the same path under `to` (same server). */
  redirect?: { from: string; to: string; status?: number };
}

export async function startGitHttpServer(projectRoot: string, token?: string, opts: ServerOptions = {}): Promise<GitHttpServer> {
  let failPush = false;
  const requests: string[] = [];
  let held: (() => void)[] | null = null;
  let holding: RegExp | undefined;
  const server = http.createServer((req, res) => {
    if (held && (!holding || holding.test(req.url ?? ""))) held.push(() => serve(req, res));
    else serve(req, res);
  });
  function serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(`${req.method} ${url.pathname}${url.search} auth=${req.headers.authorization ? "yes" : "no"}`);
    const r = opts.redirect;
    if (r && url.pathname.startsWith(r.from)) {
      res.writeHead(r.status ?? 302, { Location: `${r.to}${url.pathname.slice(r.from.length)}${url.search}` });
      res.end();
      return;
    }
    if (token) {
      const auth = req.headers.authorization ?? "";
      const given = auth.startsWith("Basic ") ? Buffer.from(auth.slice(6), "base64").toString().split(":").slice(1).join(":") : "";
      if (given !== token) {
        res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' });
        res.end("authentication required");
        return;
      }
    }
    if (failPush && url.pathname.endsWith("/git-receive-pack")) {
      failPush = false;
      req.socket.destroy();
      return;
    }
    // stderr is not read: ignored, so a chatty backend can never block on a full pipe
    const cgi = spawn("git", ["http-backend"], {
      stdio: ["pipe", "pipe", "ignore"],
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: "1",
        REMOTE_USER: "memsync-test", // lets http-backend accept pushes
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"] ?? ""),
        GIT_HTTP_MAX_REQUEST_BUFFER: "100M",
      },
    });
    req.pipe(cgi.stdin);
    // a client killed mid-request: the backend would wait on its stdin for ever
    res.on("close", () => {
      if (!res.writableFinished && cgi.exitCode === null) cgi.kill("SIGKILL");
    });
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString().split("\r\n")) {
        const i = line.indexOf(":");
        if (i < 0) continue;
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === "status") status = Number.parseInt(v, 10);
        else headers[k] = v;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on("end", () => res.end());
    cgi.on("error", () => res.destroy());
  }
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (repo) => `http://127.0.0.1:${port}/${repo}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
    failNextPush: () => {
      failPush = true;
    },
    hold: (matching?: RegExp) => {
      const queue: (() => void)[] = [];
      held = queue;
      holding = matching;
      return () => {
        if (held === queue) held = null;
        for (const go of queue.splice(0)) go();
      };
    },
    heldCount: () => held?.length ?? 0,
    requests,
  };
}
