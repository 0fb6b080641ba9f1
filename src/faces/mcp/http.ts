import { hostHeaderValidationResponse, localhostAllowedHostnames, localhostAllowedOrigins, type McpHttpHandler, originValidationResponse } from "@modelcontextprotocol/server";
import { type CallFactory, mcpHandler, type Profile, PROFILES } from "./server.ts";

// A minimal mount of the MCP face over Streamable HTTP: /mcp (the memsync profile) and
// /mcp/<profile>, one handler per profile built on first use and kept (schemas once per process).
// `memsync serve` is to mount the same handlers behind its own checks (Origin, Host, bearer token
// off loopback, body limit); this mount does the loopback part itself, for tests and embedding.

export interface McpMountOptions {
  /** Host names the Host header may name (DNS rebinding); default: the loopback names. */
  hosts?: string[];
  /** Origin host names a browser request may come from; default: the loopback names. */
  origins?: string[];
  /** Largest POST body read, in bytes (default 4 MiB, the SDK's). */
  maxRequestBodySize?: number;
  /** Host, Origin and token already checked by the caller (`memsync serve`'s guard, with its own rules). */
  checked?: boolean;
}

/** A fetch function answering /mcp and /mcp/<profile>; undefined for any other path (the caller's). */
export function mcpMount(callOf: CallFactory, o: McpMountOptions = {}): (req: Request) => Promise<Response | undefined> {
  const handlers = new Map<Profile, Promise<McpHttpHandler>>();
  const hosts = o.hosts ?? localhostAllowedHostnames();
  const origins = o.origins ?? localhostAllowedOrigins();
  return async (req) => {
    const m = /^\/mcp(?:\/([a-z]+))?\/?$/.exec(new URL(req.url).pathname);
    if (!m) return undefined;
    const profile = (m[1] ?? "memsync") as Profile;
    if (!PROFILES.includes(profile)) return new Response(JSON.stringify({ error: { code: "not_found", message: `no MCP profile ${JSON.stringify(profile)}` } }), { status: 404, headers: { "content-type": "application/json" } });
    const refused = o.checked ? undefined : (hostHeaderValidationResponse(req, hosts) ?? originValidationResponse(req, origins));
    if (refused) return refused;
    let made = handlers.get(profile);
    if (!made) handlers.set(profile, (made = mcpHandler(profile, callOf, o.maxRequestBodySize ? { maxRequestBodySize: o.maxRequestBodySize } : {})));
    const h = await made;
    // a client that accepts only JSON (the spec asks for both) is tolerated: it is served as one
    // that accepts both, and a streamed answer is handed to it as its final JSON-RPC message
    const accept = req.headers.get("accept") ?? "";
    if (req.method !== "POST" || accept.includes("text/event-stream") || !accept.includes("application/json")) return h.fetch(req);
    const headers = new Headers(req.headers);
    headers.set("accept", "application/json, text/event-stream");
    const res = await h.fetch(new Request(req, { headers }));
    return (res.headers.get("content-type") ?? "").startsWith("text/event-stream") ? sseAsJson(res) : res;
  };
}

/** The last JSON-RPC response of an SSE answer, as a JSON answer. */
async function sseAsJson(res: Response): Promise<Response> {
  const text = await res.text();
  const messages = text
    .split(/\r?\n/)
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).trim())
    .filter((l) => l.startsWith("{"));
  const last = [...messages].reverse().find((m) => /"(result|error)"\s*:/.test(m));
  const headers = new Headers(res.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  return last === undefined ? new Response(null, { status: 202, headers }) : new Response(last, { status: res.status, headers });
}
