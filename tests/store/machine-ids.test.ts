import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { nodeFs } from "../../src/store/fs-port.ts";
import { machineAndReplica, machineId } from "../../src/store/machine.ts";
import { type OpsEnv, originOf } from "../../src/ops/context.ts";
import { hostOpsEnv } from "../../src/runtime/ops-env.ts";
import { Store } from "../../src/store/store.ts";
import { newStore, tempDir } from "../helpers/env.ts";

// A write's origin takes the machine id and the replica id from one read of machine.json: the same
// ids machineId gives and the file keeps, made once, a name given by MEMSYNC_MACHINE used as is.

test("the machine and replica ids: made once, kept in machine.json, the machine named by an override", () => {
  const root = tempDir("memsync-machine-");
  const first = machineAndReplica(nodeFs, root, "Build Box");
  assert.match(first.machine, /^build-box-[0-9a-f]{6}$/);
  assert.match(first.replica, /^build-box\.[0-9a-f]{8}$/);
  assert.deepEqual(machineAndReplica(nodeFs, root, "Build Box"), first, "read back, not made again");
  assert.equal(machineId(nodeFs, root, "Build Box"), first.machine);
  const file = JSON.parse(fs.readFileSync(path.join(root, ".memsync/machine.json"), "utf8"));
  assert.deepEqual([file.machine_id, file.replica], [first.machine, first.replica]);
  assert.deepEqual(machineAndReplica(nodeFs, root, "Build Box", "Laptop One"), { machine: "laptop-one", replica: first.replica });
});

// issue 16: the host name names an id only when one is made; a save's origin on a checkout that
// has its ids must not look it up (a process's first look-up loads node:os, ~0.3 ms of a cold save)
test("a write's origin reads the host name only while machine.json lacks an id", async () => {
  const root = newStore();
  let reads = 0;
  const env = Object.defineProperty({ ...hostOpsEnv(undefined, root) }, "hostName", { get: () => (reads++, "Build Box") }) as OpsEnv;
  fs.rmSync(path.join(root, ".memsync/machine.json"), { force: true });
  const store = await Store.open(root);
  try {
    const first = originOf(store, env);
    assert.ok(reads >= 1, "the ids are made from the host name");
    assert.match(first.machine ?? "", /^build-box-[0-9a-f]{6}$/);
    reads = 0;
    const again = originOf(store, env);
    assert.equal(reads, 0, "ids kept in machine.json: the host name is not read");
    assert.deepEqual([again.machine, again.replica], [first.machine, first.replica]);
  } finally {
    store.close();
  }
});
