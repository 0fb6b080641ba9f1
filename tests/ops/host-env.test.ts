import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { cwd, hostName, userName } from "../../src/runtime/host.ts";
import { hostOpsEnv, hostReadEnv, opsEnvOf } from "../../src/runtime/ops-env.ts";
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

// a settled get reads only the store folder and the busy timeout (faces/cli/commands/settled-get.ts)
test("the read env is the ops env's store folder and busy timeout, whatever the variables say", () => {
  const saved = { MEMSYNC_HOME: process.env.MEMSYNC_HOME, MEMSYNC_BUSY_TIMEOUT_MS: process.env.MEMSYNC_BUSY_TIMEOUT_MS };
  try {
    for (const home of [undefined, "", "rel/home", "/abs/home"]) {
      for (const busy of [undefined, "", "250", "0", "-5", "x", "1e3"]) {
        for (const store of [undefined, "given", "/abs/given"]) {
          for (const [k, v] of [["MEMSYNC_HOME", home], ["MEMSYNC_BUSY_TIMEOUT_MS", busy]] as const) {
            if (v === undefined) delete process.env[k];
            else process.env[k] = v;
          }
          const full = hostOpsEnv(store);
          const read = hostReadEnv(store);
          assert.deepEqual(read, { storeRoot: full.storeRoot, ...(full.open ? { open: full.open } : {}) }, `${home} ${busy} ${store}`);
        }
      }
    }
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});
