import { Hono } from "hono";

// The floor of the API benchmark (api-bench.ts): a minimal Hono app on Bun.serve, compiled like
// dist/memsync, taking the same requests (POST /v1/<op> with a JSON body, GET /v1/health) and
// answering small JSON without touching a store. What memsync serve costs above it is memsync's.
//
//   api-floor --listen 127.0.0.1:0     prints "api-floor: listening on http://HOST:PORT"

const app = new Hono();
app.get("/v1/health", (c) => c.json({ health: "healthy" }));
app.post("/v1/:op", async (c) => {
  const body = (await c.req.json()) as Record<string, unknown>;
  return c.json({ op: c.req.param("op"), keys: Object.keys(body) });
});

const i = process.argv.indexOf("--listen");
const m = /^(.+):(\d+)$/.exec(i >= 0 ? (process.argv[i + 1] ?? "") : "127.0.0.1:0");
const hostname = m?.[1] ?? "127.0.0.1";
const server = Bun.serve({ fetch: app.fetch, hostname, port: Number(m?.[2] ?? 0) });
process.stdout.write(`api-floor: listening on http://${hostname}:${server.port}\n`);
