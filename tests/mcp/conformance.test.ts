import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { newStore, REPO } from "../helpers/env.ts";
import { mountInProcess } from "./client.ts";

// @modelcontextprotocol/conformance (0.1.16) against the Streamable HTTP face, on the scenarios
// that concern a server of any tools (its other scenarios call the test tools of its own
// "everything" server). Its server mode takes only a URL: it cannot drive a stdio server, so
// `memsync mcp` over stdio is covered by stdio.test.ts with the SDK's client instead.


const CLI = path.join(REPO, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
let server: { port: number; stop(force?: boolean): void };

before(async () => {
  server = await mountInProcess(newStore());
});
after(() => server?.stop(true));

async function scenario(name: string, endpoint: string): Promise<void> {
  // run beside this process's server: spawnSync would block the event loop that answers it
  const { spawn } = await import("node:child_process");
  const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
    const p = spawn(process.execPath, [CLI, "server", "--url", `http://127.0.0.1:${server.port}${endpoint}`, "--scenario", name], { env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
    let text = "";
    p.stdout.on("data", (d) => (text += d));
    p.stderr.on("data", (d) => (text += d));
    p.on("close", (code) => resolve({ code, text }));
  });
  const m = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(out.text);
  assert.ok(m, `no result from the conformance run: ${out.text.slice(-500)}`);
  assert.equal(m[3], "0", out.text.slice(-1500));
  assert.ok(Number(m[1]) > 0);
}

describe("MCP conformance (HTTP)", () => {
  for (const [name, endpoint] of [
    ["server-initialize", "/mcp"],
    ["tools-list", "/mcp"],
    ["dns-rebinding-protection", "/mcp"],
    ["resources-list", "/mcp/memory"],
  ]) {
    test(`${name} on ${endpoint}`, () => scenario(name!, endpoint!));
  }
});
