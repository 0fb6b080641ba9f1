import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { newStore, readMemoryFile, tempDir } from "../helpers/env.ts";
import { post, withServer } from "../helpers/server.ts";

// Where promoted notes are written is the server machine's choice (MEMSYNC_VAULT where it runs),
// never a request's: a client that could name the vault could make the server write files in any
// folder it may write to.

describe("promote over the API", () => {
  test("a vault named by a request is refused and nothing is written; the server's MEMSYNC_VAULT is used", async () => {
    const store = newStore();
    const vault = path.join(tempDir(), "vault");
    const elsewhere = path.join(tempDir(), "not-here");
    await withServer(
      store,
      async (s) => {
        const id = (await post(`${s.url}/v1/save`, { memory: { content: "Promote me through the API" } })).body.memory.id as string;
        const refused = await post(`${s.url}/v1/promote`, { ids: [id], vault: elsewhere });
        assert.equal(refused.status, 400, JSON.stringify(refused.body));
        assert.equal(refused.body.error.code, "invalid_input");
        assert.match(refused.body.error.message, /^vault: .*MEMSYNC_VAULT/);
        assert.equal(fs.existsSync(elsewhere), false, "no folder made where the request said");
        assert.equal(readMemoryFile(store, id).status, "active");

        const done = await post(`${s.url}/v1/promote`, { ids: [id] });
        assert.equal(done.status, 200, JSON.stringify(done.body));
        assert.equal(done.body.vault, vault);
        assert.equal(path.dirname(done.body.promoted[0].note), vault);
        assert.ok(fs.existsSync(done.body.promoted[0].note));
        assert.equal(readMemoryFile(store, id).status, "promoted");
      },
      { env: { MEMSYNC_VAULT: vault } },
    );
  });
});
