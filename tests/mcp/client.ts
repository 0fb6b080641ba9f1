import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { BIN, REPO, tempDir } from "../helpers/env.ts";

// The SDK's own client driving the compiled binary over stdio: `legacy` opens with the 2025
// initialize handshake (as Claude Code does), `auto` probes with server/discover and speaks the
// 2026-07-28 revision.

export type Era = "legacy" | "auto";

export interface Connected {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

/** The environment of a server run: a fake home, never the real one; no MEMSYNC_* of the caller's. */
export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("MEMSYNC_")) env[k] = v;
  return { ...env, HOME: tempDir("memsync-mcp-home-"), MEMSYNC_MACHINE: "test-machine", ...extra };
}

export async function connect(args: string[], era: Era, env: Record<string, string>, command: string[] = [BIN]): Promise<Connected> {
  const client = new Client({ name: "memsync-tests", version: "1.0.0" }, { versionNegotiation: { mode: era } });
  const transport = new StdioClientTransport({ command: command[0]!, args: [...command.slice(1), ...args], env, cwd: REPO, stderr: "pipe" });
  let err = "";
  transport.stderr?.on("data", (d) => (err += d));
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** A tool call's answer, as the tests compare it. */
export interface Answer {
  isError: boolean;
  text: string;
  structured: unknown;
}

export async function call(c: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const r = (await c.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown };
  return { isError: r.isError === true, text: r.content.map((x) => x.text ?? "").join(""), structured: r.structuredContent };
}

declare const Bun: { serve(o: { port: number; hostname: string; fetch(r: Request): Promise<Response> }): { port: number; stop(force?: boolean): void } };

/**
 * `serve`'s MCP mount (/mcp, /mcp/<profile>) over a store, run in this process by Bun.serve on an
 * ephemeral loopback port: the HTTP transport without a server process to start per test.
 */
export async function mountInProcess(store: string): Promise<{ port: number; base: string; stop(force?: boolean): void }> {
  const { mcpMount } = await import("../../src/faces/mcp/http.ts");
  const { opsEnvOf } = await import("../../src/runtime/ops-env.ts");
  const home = tempDir();
  const env = opsEnvOf({ vars: { MEMSYNC_MACHINE: "test-machine" }, cwd: home, home, hostName: "test", user: null }, store);
  const mount = mcpMount(() => ({ env }));
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (r) => (await mount(r)) ?? new Response("not here", { status: 404 }) });
  return { port: server.port, base: `http://127.0.0.1:${server.port}`, stop: (_force?: boolean) => server.stop(true) };
}

/** A tool's answer that succeeded, its text being its structuredContent's JSON; that content. */
export function okJson(a: Answer, what: string): any {
  assert.equal(a.isError, false, `${what}: ${a.text}`);
  assert.deepEqual(JSON.parse(a.text), a.structured, `${what}: the text is the structuredContent's JSON`);
  return a.structured;
}
