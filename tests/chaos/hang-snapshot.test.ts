import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { hangSnapshot } from "./harness.ts";

// The chaos harness's record of a hung process (a long run's one hung sync was not explainable
// afterwards): a real process blocked in a system call, read through /proc and strace.
test("a hung process's snapshot names its threads, their wait, its open files and its system calls", { timeout: 30_000 }, async () => {
  const child = spawn("sleep", ["30"], { stdio: ["ignore", "pipe", "pipe"] });
  await new Promise((r) => setTimeout(r, 200));
  try {
    const info = hangSnapshot(child.pid!, "partial stderr line");
    assert.match(info, new RegExp(`^pid ${child.pid} `));
    assert.match(info, /cmdline: sleep 30/);
    assert.match(info, /thread \d+ sleep: state S wchan \S+ syscall \d+/);
    assert.match(info, /fd 1 -> (pipe|socket):/);
    assert.match(info, /Process \d+ attached/, "strace attached (.ci/run installs it; ptrace allowed)");
    assert.match(info, /stderr so far: partial stderr line/);
    assert.match(info, /strace -f -p \d+ for 2 s/);
  } finally {
    child.kill("SIGKILL");
  }
  assert.match(hangSnapshot(2 ** 22 + 12345, ""), /\(gone\)/, "a process gone meanwhile is said so");
});
