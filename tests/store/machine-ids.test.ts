import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { nodeFs } from "../../src/store/fs-port.ts";
import { machineAndReplica, machineId } from "../../src/store/machine.ts";
import { tempDir } from "../helpers/env.ts";

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
