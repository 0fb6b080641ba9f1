import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { OpCall } from "../../src/ops/catalogue/index.ts";
import { runOp } from "../../src/ops/catalogue/run.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { tempDir } from "../helpers/env.ts";

// Recall keeps each memory's terms in the process (a server ranks the same memories on every
// prompt): a memory changed since must be ranked on its new words, never on the kept ones.

function callIn(dir = tempDir("memsync-kept-")): OpCall {
  const env = opsEnvOf({ store: "store", vars: { MEMSYNC_MACHINE: "kept-test" }, cwd: dir, home: dir, hostName: "host", user: "tester" });
  return { env, cwd: dir };
}

const ids = async (c: OpCall, query: string): Promise<string[]> => ((await runOp<any>("recall", c, { query })).items as { id: string }[]).map((i) => i.id);

describe("recall's kept terms", () => {
  test("an updated memory is ranked on its new text, in the same process", async () => {
    const c = callIn();
    const id = (await runOp<any>("save", c, { memory: { content: "The billing worker reads invoices from Postgres replicas." } })).memory.id as string;
    await runOp("save", c, { memory: { content: "Deploys go out on Tuesdays after the staging soak." } });
    // recalled twice: the second ranks on the terms kept from the first
    assert.deepEqual(await ids(c, "postgres replicas for invoices"), [id]);
    assert.deepEqual(await ids(c, "postgres replicas for invoices"), [id]);
    await runOp("update", c, { id, patch: { content: "The billing worker reads invoices from a Cassandra cluster." } });
    assert.deepEqual(await ids(c, "cassandra cluster"), [id]);
    assert.deepEqual(await ids(c, "postgres replicas"), []);
  });

  test("an entity given later is found by it", async () => {
    const c = callIn();
    const id = (await runOp<any>("save", c, { memory: { content: "Rate limits are enforced at the edge proxy.", entities: ["envoy"] } })).memory.id as string;
    assert.deepEqual(await ids(c, "nginx"), []);
    await runOp("update", c, { id, patch: { entities: ["nginx"] } });
    assert.deepEqual(await ids(c, "nginx"), [id]);
  });
});
