import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { isMemsyncError } from "../core/errors.ts";
import { readRawMeta } from "../store/store.ts";
import { nodeFs } from "../store/fs-port.ts";
import { KIND_DIR, META_FILE } from "../store/layout.ts";
import type { OpsEnv } from "./context.ts";

// Checks of a store's git set-up, each with what to do about it.

export interface Check {
  check: string;
  ok: boolean;
  detail: string;
}

const ATTRIBUTE_LINES = [`${KIND_DIR.memory}/** merge=memsync`, `${KIND_DIR.relation}/** merge=memsync`, `${META_FILE} merge=memsync`];

function executable(word: string): boolean {
  if (!word.includes("/")) return spawnSync("sh", ["-c", `command -v ${word}`]).status === 0;
  try {
    fs.accessSync(word, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first word of a shell command line, unquoted. */
function firstWord(command: string): string {
  const m = /^\s*(?:'((?:[^']|'\\'')*)'|(\S+))/.exec(command);
  return (m?.[1]?.replace(/'\\''/g, "'") ?? m?.[2] ?? "").trim();
}

export async function doctor(env: OpsEnv): Promise<{ ok: boolean; checks: Check[] }> {
  const root = env.storeRoot;
  const checks: Check[] = [];
  try {
    readRawMeta(nodeFs, root);
    checks.push({ check: "store", ok: true, detail: `memsync store at ${root}` });
  } catch (e) {
    if (!isMemsyncError(e)) throw e;
    checks.push({ check: "store", ok: false, detail: e.message });
    return { ok: false, checks };
  }
  const attrs = fs.existsSync(`${root}/.gitattributes`) ? fs.readFileSync(`${root}/.gitattributes`, "utf8") : "";
  const missing = ATTRIBUTE_LINES.filter((l) => !attrs.split("\n").some((x) => x.trim() === l));
  checks.push({
    check: "gitattributes",
    ok: missing.length === 0,
    detail: missing.length === 0 ? "records use merge=memsync" : `.gitattributes lacks: ${missing.join("; ")} (run: memsync init)`,
  });
  if (!fs.existsSync(`${root}/.git`)) {
    checks.push({ check: "git repository", ok: false, detail: `${root} is not a git repository (run: memsync init)` });
    return { ok: false, checks };
  }
  checks.push({ check: "git repository", ok: true, detail: ".git present" });
  const { mergeDriverConfig } = await import("../sync/repo-init.ts");
  const driver = await mergeDriverConfig(root);
  if (!driver) {
    checks.push({ check: "merge driver", ok: false, detail: "merge.memsync.driver is not registered in .git/config: native git would merge records as text (run: memsync init)" });
  } else {
    const bin = firstWord(driver);
    const ok = executable(bin) && driver.includes("merge-driver");
    checks.push({
      check: "merge driver",
      ok,
      detail: ok ? `registered: ${driver}` : `registered as "${driver}", but ${bin} is not an executable memsync (run: memsync init)`,
    });
  }
  const nativeGit = spawnSync("git", ["--version"], { encoding: "utf8" });
  checks.push({
    check: "native git",
    ok: true,
    detail: nativeGit.status === 0 ? `${nativeGit.stdout.trim()} (uses the merge driver)` : "not installed (memsync does not need it; the driver is for native git)",
  });
  return { ok: checks.every((c) => c.ok), checks };
}
