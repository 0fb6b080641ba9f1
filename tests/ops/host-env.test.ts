import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { cwd, hostName, userName } from "../../src/runtime/host.ts";
import { hostOpsEnv, opsEnvOf } from "../../src/runtime/ops-env.ts";
import { selfCommand } from "../../src/runtime/self.ts";

// The CLI's ops environment looks up the host name, the user and this program's command line only
// when an operation reads them (a get reads none): what it gives must be what the eager values give.

test("this process's ops environment: the host's values, read late, copied and listed like any others", () => {
  const store = path.join(os.tmpdir(), "memsync-host-env");
  const env = hostOpsEnv(store);
  const eager = opsEnvOf({ store, vars: { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, MEMSYNC_HOME: process.env.MEMSYNC_HOME }, cwd: cwd(), home: process.env.HOME || os.homedir(), hostName: hostName(), user: userName(), self: selfCommand() });
  assert.equal(env.storeRoot, store);
  assert.equal(env.hostName, hostName());
  assert.equal(env.user, userName());
  assert.equal(env.driverCommand, eager.driverCommand);
  assert.match(env.driverCommand!, / merge-driver %O %A %B %P %L$/);
  const copy = { ...env };
  assert.deepEqual([copy.hostName, copy.user, copy.driverCommand], [env.hostName, env.user, env.driverCommand]);
  assert.ok(Object.keys(env).includes("user") && Object.keys(env).includes("driverCommand"));
  assert.equal(JSON.parse(JSON.stringify(env)).hostName, hostName());
});
