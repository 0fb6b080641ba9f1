import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { REPO, tempDir } from "../helpers/env.ts";
import { README_COMMANDS, readmeCommands } from "./commands.ts";

// README's commands as a new user types them, on a PATH with only Node, npm and git (and the
// system's tools): no Bun, no Deno, and a python3 that fails, since a fresh machine may lack it.

const freshPath = (() => {
  const shims = tempDir("memsync-fresh-path-");
  fs.writeFileSync(path.join(shims, "python3"), "#!/bin/sh\necho 'python3: not on this machine' >&2\nexit 127\n", { mode: 0o755 });
  fs.copyFileSync(path.join(shims, "python3"), path.join(shims, "python"));
  // node, npm, npx and git by link, not their folder: a folder such as /usr/local/bin may hold bun
  for (const tool of ["node", "npm", "npx", "git"]) {
    const where = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
    if (where) fs.symlinkSync(where, path.join(shims, tool));
  }
  return [shims, "/usr/bin", "/bin"].join(":");
})();

const freshEnv = () => ({ PATH: freshPath, HOME: tempDir("memsync-fresh-home-"), LANG: "C.UTF-8", NO_COLOR: "1" });

function fresh(command: string) {
  const r = spawnSync("bash", ["-c", command], { cwd: REPO, env: freshEnv(), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

type Result = { code: number | null; out: string; err: string };
const started = new Map<string, Promise<Result>>();

/** Each distinct command starts once, all at once: they mostly wait for npm and runtimes to start. */
function freshAsync(command: string): Promise<Result> {
  let p = started.get(command);
  if (!p) {
    p = new Promise((resolve) => {
      const child = spawn("bash", ["-c", command], { cwd: REPO, env: freshEnv(), stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.on("close", (code) => resolve({ code, out, err }));
    });
    started.set(command, p);
  }
  return p;
}

describe("README commands", () => {
  const readme = fs.readFileSync(path.join(REPO, "README.md"), "utf8");

  test("every command README shows is in tests/readme/commands.ts, and the list names nothing README does not show", () => {
    const shown = readmeCommands(readme);
    assert.deepEqual(shown.filter((c) => !(c in README_COMMANDS)), [], "README shows commands the list does not check");
    assert.deepEqual(Object.keys(README_COMMANDS).filter((c) => !shown.includes(c)), [], "the list names commands README no longer shows");
  });

  test("the fresh PATH has no bun, deno or python3 of its own", () => {
    for (const tool of ["bun", "deno"]) assert.notEqual(fresh(`command -v ${tool}`).code, 0, `${tool} is on the fresh PATH`);
    assert.equal(fresh("python3 -c 1").code, 127);
  });

  test("every npm script README names exists in package.json", () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).scripts as Record<string, string>;
    for (const c of readmeCommands(readme)) {
      const name = /^npm run (\S+)/.exec(c)?.[1] ?? (/^npm test$/.test(c) ? "test" : undefined);
      if (name) assert.ok(scripts[name], `npm script ${name}`);
    }
  });

  const quick = Object.entries(README_COMMANDS).filter(([shown, check]) => check.how !== "prose" && !shown.includes("npm run demo"));
  for (const [, check] of quick) if (check.how !== "prose") void freshAsync(check.run);
  for (const [shown, check] of quick) {
    if (check.how === "prose") continue;
    test(`${shown}  (as: ${check.run}${check.how === "resolves" && check.file ? `, and ${check.file} exists` : ""})`, { timeout: 300_000 }, async () => {
      const r = await freshAsync(check.run);
      assert.equal(r.code, 0, `${check.run} exited ${r.code}\n${r.err}`);
      if (check.how === "run" && check.stdout) assert.match(r.out, check.stdout);
      if (check.how === "resolves" && check.file) assert.ok(fs.existsSync(path.join(REPO, check.file)), check.file);
    });
  }

  test("npm run demo: needs no python3, and a second run shows the same as the first", { timeout: 600_000 }, () => {
    // ids, times and the demo store's machine name change between runs; nothing else may
    const norm = (s: string) =>
      s
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
        .replace(/\b[0-9a-f]{8}\b/g, "<id8>")
        .replace(/\d{4}-\d\d-\d\d(T[\d:.]+Z)?/g, "<date>")
        .replace(/^npm warn.*\n/gim, "");
    const first = fresh("npm run demo 2>&1");
    assert.equal(first.code, 0, first.out);
    assert.match(first.out, /^4 memories$/m);
    assert.match(first.out, /^memories: 4 \(active 4\)/m);
    const second = fresh("npm run demo 2>&1");
    assert.equal(second.code, 0, second.out);
    assert.equal(norm(second.out), norm(first.out));
  });
});
