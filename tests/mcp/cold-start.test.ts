import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { memsync, newStore, REPO, tempDir } from "../helpers/env.ts";

// The MCP SDK costs start-up: only `mcp` (and serve) may load it. Each run below is the source
// under Bun with a preload that records every module resolution; the hook, save and recall paths
// must resolve nothing of the SDK nor of faces/mcp, and `mcp` must (else the check proves nothing).

const BUN = path.join(REPO, "node_modules/.bin/bun");

function imports(args: string[], input: string, store: string): string {
  const trace = path.join(tempDir("memsync-trace-"), "imports.log");
  const r = memsync(args, { command: [BUN, "--preload", path.join(REPO, "tests/mcp/trace-imports.ts"), "src/main.ts"], input, env: { TRACE_FILE: trace, MEMSYNC_HOME: store } });
  assert.ok(fs.existsSync(trace), `no trace: ${r.stderr}`);
  return fs.readFileSync(trace, "utf8");
}

const MCP = /@modelcontextprotocol|faces\/mcp\//;

describe("cold start: the MCP SDK loads only inside mcp", () => {
  const store = newStore();
  const hookInput = JSON.stringify({ session_id: "s1", transcript_path: "/dev/null", cwd: REPO, hook_event_name: "SessionStart", source: "startup" });
  test("hook, save and recall resolve nothing of it", () => {
    for (const [args, input] of [
      [["hook", "SessionStart"], hookInput],
      [["hook", "UserPromptSubmit"], JSON.stringify({ session_id: "s1", transcript_path: "/dev/null", cwd: REPO, hook_event_name: "UserPromptSubmit", prompt: "how do we paginate?" })],
      [["save", "Use cursor pagination"], ""],
      [["recall", "pagination"], ""],
    ] as [string[], string][]) {
      const log = imports(args, input, store);
      assert.ok(log.includes("faces/cli/main.ts"), `${args[0]}: the trace saw the run`);
      assert.doesNotMatch(log, MCP, `${args.join(" ")} must not load the MCP SDK`);
    }
  });

  test("mcp does (the check can fail)", () => {
    assert.match(imports(["mcp"], "", store), MCP);
  });
});
