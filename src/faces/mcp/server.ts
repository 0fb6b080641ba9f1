import { createMcpHandler, McpServer, type McpHttpHandler } from "@modelcontextprotocol/server";
import { MemsyncError } from "../../core/errors.ts";
import type { OpCall } from "../../ops/catalogue/index.ts";
import { EDITION } from "../../runtime/edition.ts";
import pkg from "../../../package.json" with { type: "json" };

// The MCP face: one server factory per profile, served over stdio (`memsync mcp`) or Streamable
// HTTP (`mcpHandler`, for `memsync serve` to mount at /mcp/<profile>). The official v2 SDK serves
// both protocol generations from the same factory: the 2026-07-28 revision (server/discover,
// per-request _meta) and the 2025 initialize handshake Claude Code still sends. This module and
// the SDK are loaded only by `mcp` and `serve` (the CLI imports it lazily).

export const PROFILES = ["memsync", "memory", "cortexgraph"] as const;
export type Profile = (typeof PROFILES)[number];

export function profileNamed(name: string | undefined): Profile {
  const p = name ?? "memsync";
  if ((PROFILES as readonly string[]).includes(p)) return p as Profile;
  throw new MemsyncError("usage", `unknown tool profile ${JSON.stringify(p.slice(0, 40))}: memsync, memory or cortexgraph`);
}

/** What every tool call runs with: the store and working directory (fresh per call). */
export type CallFactory = () => OpCall;

const INSTRUCTIONS: Record<Profile, string> = {
  memsync:
    "memsync: a git-synced memory store. recall or search before deciding; save (or remember) decisions, preferences and solutions; get opens memories by id in full; touch records a use.",
  memory: "A knowledge graph of entities, their observations and relations (the reference memory server's tools), kept in memsync's store.",
  cortexgraph:
    "CortexGraph's tools over memsync's git-synced store: search_memory or search_unified before deciding, save_memory what is worth keeping, open_memories for the whole text, touch_memory to reinforce what was used.",
};

/** A live connection's era: stdio's resource subscriptions watch the store (never a prebuilt instance's). */
export interface ServerOptions {
  subscriptions?: "legacy" | "modern";
}

export async function makeServer(profile: Profile, callOf: CallFactory, o: ServerOptions = {}): Promise<McpServer> {
  const server = new McpServer(
    { name: profile === "memsync" ? "memsync" : `memsync-${profile}`, version: `${pkg.version}${EDITION === "edge" ? "-edge" : ""}` },
    { instructions: INSTRUCTIONS[profile] },
  );
  if (profile === "memsync") await (await import("./tools-memsync.ts")).registerMemsyncTools(server, callOf);
  else if (profile === "memory") {
    const { KG_URI, registerMemoryTools } = await import("./tools-memory.ts");
    registerMemoryTools(server, callOf);
    if (o.subscriptions) (await import("./subscriptions.ts")).offerSubscriptions(server, o.subscriptions, () => callOf().env.storeRoot, [KG_URI]);
  }
  else (await import("./tools-cortexgraph.ts")).registerCortexgraphTools(server, callOf);
  return server;
}

/** A fetch-shaped Streamable HTTP handler for one profile (modern per-request; 2025-era stateless). */
export async function mcpHandler(profile: Profile, callOf: CallFactory, options: { maxRequestBodySize?: number } = {}): Promise<McpHttpHandler> {
  // the memory profile's resource: 2026-07-28 listens are fed from a watch of the store
  const bus = profile === "memory" ? (await import("./subscriptions.ts")).listenBus(() => callOf().env.storeRoot, ["memory://knowledge-graph"]) : undefined;
  return createMcpHandler(
    async (ctx) => {
      const s = await makeServer(profile, callOf);
      // only a 2026-07-28 request can listen: the 2025 stateless fallback keeps no session to notify
      if (bus && ctx.era === "modern") s.server.registerCapabilities({ resources: { subscribe: true } });
      return s;
    },
    { legacy: "stateless", responseMode: "auto", ...(bus ? { bus } : {}), ...options },
  );
}

/** Serve one profile over this process's stdin/stdout until stdin closes. */
export async function serveStdioUntilClosed(profile: Profile, callOf: CallFactory): Promise<void> {
  const { serveStdio, StdioServerTransport } = await import("@modelcontextprotocol/server/stdio");
  // build the tool definitions before the first message, so the first answer does not wait on them
  await makeServer(profile, callOf);
  const transport = new StdioServerTransport();
  // the connection ends when stdin does (the stdio binding: exit when the client closes our input)
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  const handle = serveStdio((ctx) => makeServer(profile, callOf, { subscriptions: ctx.era }), { transport, onerror: (e) => process.stderr.write(`memsync mcp: ${e.message}\n`) });
  await closed;
  await handle.close();
}
