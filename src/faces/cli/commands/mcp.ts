import { usageError } from "../../../core/errors.ts";
import { cwd } from "../../../runtime/host.ts";
import { selfCommand } from "../../../runtime/self.ts";
import { json } from "../format.ts";
import { type Flags, opsEnv, storeRoot, str } from "../options.ts";
import type { CommandResult } from "../result.ts";
import { claudeEnv } from "./hook.ts";

// `memsync mcp [--tools PROFILE]`: an MCP server over stdio (only MCP on stdout; it returns when
// stdin closes); `memsync mcp install|uninstall [--project|--user]`: Claude Code's entry for it.
// The MCP SDK is imported here, lazily, and by nothing on the hook, save or recall paths.

export async function mcpCmd(action: string | undefined, flags: Flags): Promise<CommandResult> {
  const { profileNamed } = await import("../../mcp/server.ts");
  const profile = profileNamed(str(flags, "tools"));
  if (action === undefined || action === "serve") {
    if (flags.project || flags.user) throw usageError("--project and --user are for memsync mcp install|uninstall");
    const { serveStdioUntilClosed } = await import("../../mcp/server.ts");
    const here = cwd();
    // one store kept open across the calls (ops/kept-store.ts), not one opened per call
    const [{ KeptStore }, { keepIndexMerged }, { processGate }, base] = await Promise.all([
      import("../../../ops/kept-store.ts"),
      import("../../../ops/index-upkeep.ts"),
      import("../../../ops/gate.ts"),
      Promise.resolve(opsEnv(flags)),
    ]);
    const kept = new KeptStore(base.storeRoot, base.open);
    const env = { ...base, kept };
    // the full-text index merged between calls (ops/index-upkeep.ts)
    const upkeep = keepIndexMerged(kept, () => processGate.idle);
    try {
      await serveStdioUntilClosed(profile, () => ({ env, cwd: here }));
    } finally {
      upkeep.stop();
      kept.close();
    }
    return { stdout: "" };
  }
  if (action !== "install" && action !== "uninstall") throw usageError("usage: memsync mcp [install|uninstall] [--tools memsync|memory|cortexgraph] [--project|--user]");
  if (flags.project && flags.user) throw usageError("give --project or --user, not both");
  const scope = flags.project ? "project" : "user";
  const { installMcp, uninstallMcp } = await import("../../mcp/install.ts");
  if (action === "install") {
    // a project's file is shared with its team: `memsync` from PATH; a user's: this binary
    const self = selfCommand();
    const command = scope === "project" ? "memsync" : self[0]!;
    const pre = [...(scope === "project" ? [] : self.slice(1)), ...(flags.store !== undefined ? ["--store", storeRoot(flags)] : [])];
    const out = installMcp(cwd(), claudeEnv(), { scope, profile, command, pre });
    if (flags.json) return { stdout: json(out) };
    return { stdout: `memsync MCP server ${JSON.stringify(out.name)} (${profile} tools) ${out.changed} in ${out.file}\n` };
  }
  const out = uninstallMcp(cwd(), claudeEnv(), scope, profile);
  if (flags.json) return { stdout: json(out) };
  return { stdout: out.changed === "removed" ? `removed memsync's MCP server ${JSON.stringify(out.name)} from ${out.file}\n` : `no memsync MCP server ${JSON.stringify(out.name)} in ${out.file}\n` };
}
