import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

// scripts/chaos-recheck.ts re-judges a kept run folder with today's checker: a save acknowledged
// in ops.jsonl and missing on a clone is a finding (exit 1), found on every clone it passes (0),
// and a folder that is no chaos run is refused (2).

const M = "01a20b58-ccce-76a8-8173-2b84eaeff707";
const script = path.join(import.meta.dirname, "../../scripts/chaos-recheck.ts");
const recheck = (dir: string) => spawnSync(process.execPath, [script, dir], { encoding: "utf8" });

test("chaos-recheck: a missing acknowledged save is a finding, found everywhere it passes, a non-run is refused", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-recheck-"));
  try {
    const save = { seq: 1, clone: 0, kind: "save", args: ["save", "x"], start: 1, end: 2, code: 0, signal: null, killed: false, hung: false, burst: false, phase: "chaos", stdout: "", stderr: "", memory: M, content: "kept" };
    const final = (clone: number) => ({ ...save, seq: 10 + clone, clone, kind: "sync", args: ["sync"], start: 5, end: 6, phase: "final", memory: undefined, content: undefined });
    fs.writeFileSync(path.join(dir, "ops.jsonl"), [save, final(0), final(1)].map((r) => JSON.stringify(r)).join("\n") + "\n");
    for (const c of [0, 1]) fs.mkdirSync(path.join(dir, `clone-${c}`, "memories"), { recursive: true });
    fs.writeFileSync(path.join(dir, "clone-0", "memories", `${M}.json`), JSON.stringify({ id: M, content: "kept", use_count: 0, status: "active" }));

    const missing = recheck(dir);
    assert.equal(missing.status, 1, missing.stderr);
    assert.match(missing.stdout, /FAIL saved: memory .*missing on clone-1/);

    fs.writeFileSync(path.join(dir, "clone-1", "memories", `${M}.json`), JSON.stringify({ id: M, content: "kept", use_count: 0, status: "active" }));
    const whole = recheck(dir);
    assert.equal(whole.status, 0, whole.stdout + whole.stderr);
    assert.match(whole.stdout, /every data check passes/);

    fs.rmSync(path.join(dir, "ops.jsonl"));
    const none = recheck(dir);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /^chaos-recheck: no ops\.jsonl in /);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
