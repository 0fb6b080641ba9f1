// MCP tools/call over Streamable HTTP at 10k memories: latency (p50/p99) and CPU per call of
// search (memsync profile), save (memsync profile) and open_nodes (memory profile), the SDK's
// client against mcpMount served by Bun.serve in this process (so the CPU figure includes the
// client's share: an upper bound for the server's), with the store kept open and its index kept
// merged as `memsync serve` does.
//
// usage: [MERGED=1] bun scripts/bench-lib/mcp-http.ts STORE_10K [calls] [era: auto|legacy]
// STORE_10K is copied to a scratch folder first (e.g. .bench/store-10000 from scripts/bench).
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { mcpMount } from "../../src/faces/mcp/http.ts";
import { processGate } from "../../src/ops/gate.ts";
import { keepIndexMerged } from "../../src/ops/index-upkeep.ts";
import { KeptStore } from "../../src/ops/kept-store.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { scratchCopy } from "./generate.ts";

const [src, callsArg, eraArg] = process.argv.slice(2);
if (!src) {
  console.error("usage: bun scripts/bench-lib/mcp-http.ts STORE_10K [calls] [auto|legacy]");
  process.exit(2);
}
const calls = Number(callsArg ?? 200);
const era = (eraArg ?? "auto") as "auto" | "legacy";
const store = path.join(path.dirname(path.resolve(src)), `${path.basename(src)}-mcp-scratch`);
scratchCopy(path.resolve(src), store);
const base = opsEnvOf({ vars: { MEMSYNC_MACHINE: "bench" }, cwd: store, home: store, hostName: "bench", user: null }, store);
// as `memsync serve` runs its /mcp (faces/api/app.ts): one store kept open across calls, its
// index merged while idle (before this, every call opened and closed the store)
const kept = new KeptStore(base.storeRoot, base.open);
const env = { ...base, kept };
const upkeep = keepIndexMerged(kept, () => processGate.idle);
const mount = mcpMount(() => ({ env }));
// MERGED=1: the index merged before timing (the steady state of a server whose upkeep has run;
// the copy's index is as the generator wrote it, one memory at a time)
if (process.env.MERGED) while (await kept.use((st) => st.mergeIndexStep(64)));
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (r) => (await mount(r)) ?? new Response("no", { status: 404 }) });

async function client(p: string): Promise<Client> {
  const c = new Client({ name: "bench", version: "1" }, { versionNegotiation: { mode: era } });
  await c.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}${p}`)));
  return c;
}

const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function bench(name: string, c: Client, args: (i: number) => [string, Record<string, unknown>]): Promise<void> {
  for (let i = 0; i < 5; i++) await c.callTool({ name: args(i)[0], arguments: args(i)[1] }); // warm
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const [tool, a] = args(i);
    const t0 = performance.now();
    const r = (await c.callTool({ name: tool, arguments: a })) as { isError?: boolean; content: { text?: string }[] };
    times.push(performance.now() - t0);
    if (r.isError) throw new Error(`${tool}: ${r.content[0]?.text}`);
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(28)} p50 ${q(times, 0.5).toFixed(1)} ms  p99 ${q(times, 0.99).toFixed(1)} ms  CPU ${((cpu.user + cpu.system) / 1000 / calls).toFixed(1)} ms/call  (${calls} calls, ${era})`);
}

const words = ["connection timeout", "cache", "pagination", "retry", "postgres", "deploy", "auth token", "queue"];
const m = await client("/mcp");
await bench("search (memsync)", m, (i) => ["search", { query: words[i % words.length] }]);
await bench("save (memsync)", m, (i) => ["save", { memory: { content: `bench memory ${i} about ${words[i % words.length]}` } }]);
const g = await client("/mcp/memory");
await g.callTool({ name: "create_entities", arguments: { entities: Array.from({ length: 50 }, (_, i) => ({ name: `E${i}`, entityType: "bench", observations: [`o${i}`] })) } });
await bench("open_nodes (memory)", g, (i) => ["open_nodes", { names: [`E${i % 50}`, `E${(i * 7) % 50}`] }]);
await m.close();
await g.close();
server.stop(true);
upkeep.stop();
kept.close();
