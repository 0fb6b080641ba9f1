import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { filesUnder, tempDir } from "../helpers/env.ts";
import fs from "node:fs";
import { call, connect, serverEnv } from "./client.ts";

// The memory profile's write tools answered with their input as given: a secret the store
// redacted came back in the answer (audit21). The answer is now what the records hold.

const SECRET = "hunter2-Zq8rT5vW";

describe("memory profile: a secret never comes back in an answer", () => {
  test("create_entities and add_observations answer the redacted text; giving it again adds nothing", async () => {
    const store = path.join(tempDir(), "store");
    const c = await connect(["--store", store, "mcp", "--tools", "memory"], "legacy", serverEnv());
    try {
      const created = await call(c.client, "create_entities", { entities: [{ name: "staging-db", entityType: "database", observations: [`password=${SECRET}`] }] });
      assert.equal(created.isError, false, created.text);
      assert.ok(!created.text.includes(SECRET) && !JSON.stringify(created.structured).includes(SECRET), created.text);
      assert.match(created.text, /password=\[REDACTED:password\]/);
      const added = await call(c.client, "add_observations", { observations: [{ entityName: "staging-db", contents: [`the db password is ${SECRET}`, "runs Postgres 16"] }] });
      assert.equal(added.isError, false, added.text);
      assert.ok(!added.text.includes(SECRET), added.text);
      // the same observation again (its secret and all) is the one kept: nothing added
      const again = await call(c.client, "add_observations", { observations: [{ entityName: "staging-db", contents: [`password=${SECRET}`] }] });
      assert.deepEqual((again.structured as { results: { addedObservations: string[] }[] }).results[0]!.addedObservations, []);
      const graph = await call(c.client, "read_graph", {});
      assert.ok(!graph.text.includes(SECRET), graph.text);
      assert.equal((graph.structured as { entities: { observations: string[] }[] }).entities[0]!.observations.length, 3);
    } finally {
      await c.close();
    }
    for (const f of filesUnder(store)) assert.ok(!fs.readFileSync(f).includes(SECRET), `${f} holds the secret`);
  });
});
