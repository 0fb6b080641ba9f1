import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { runDirect } from "../../src/ops/catalogue/direct.ts";
import type { OpCall } from "../../src/ops/catalogue/index.ts";
import { runOp } from "../../src/ops/catalogue/run.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { tempDir } from "../helpers/env.ts";
import { relatedPair } from "../helpers/related-pair.ts";

// A plain get or save runs without the catalogue (ops/catalogue/direct.ts): for every input it takes, it
// must give what the catalogue gives, results and errors alike; every input the entry's schema
// would refuse or change must go to the catalogue (null), so its refusals stay the schema's.

function callOn(store: string): OpCall {
  const dir = tempDir("memsync-direct-");
  return { env: opsEnvOf({ store, vars: {}, cwd: dir, home: dir, hostName: "host", user: "tester" }), cwd: dir };
}

/** What a promise gives: its value, or its error's code and message. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return { value: await p };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    return { code: err.code, message: err.message };
  }
}

describe("direct get: the catalogue's answers without the catalogue", () => {
  const { store, a, b, missing } = relatedPair();
  const call = callOn(store);

  const taken: string[][] = [[a], [b, a], [a.slice(-12)], [a.slice(0, 8)], [missing], [a, missing, a], ["not-an-id"], ["0000000"], [a.toUpperCase()], [`  ${a}  `]];
  for (const ids of taken) {
    test(`takes ${JSON.stringify(ids)} and answers as the catalogue`, async () => {
      const direct = runDirect("get", call, { ids });
      assert.ok(direct, "a plain list of ids runs directly");
      assert.deepEqual(await outcome(direct), await outcome(runOp("get", call, { ids })));
    });
  }

  const refused: Record<string, unknown>[] = [{ ids: [] }, { ids: [""] }, { ids: [`${a.slice(0, 8)}${"-".repeat(200)}`] }, { ids: [a, 7] }, { ids: a }, {}];
  for (const input of refused) {
    test(`leaves ${JSON.stringify(input).slice(0, 60)} to the catalogue`, async () => {
      assert.equal(runDirect("get", call, input), null);
      // and the catalogue refuses it (else the plain test would be narrower than it needs to be)
      assert.equal(((await outcome(runOp("get", call, input))) as { code?: string }).code, "invalid_input");
    });
  }

  test("only get, with ids alone, and never a call with a progress listener", () => {
    assert.equal(runDirect("touch", call, { ids: [a] }), null);
    // a key the schema would drop: the catalogue decides
    assert.equal(runDirect("get", call, { ids: [a], extra: 1 }), null);
    assert.equal(runDirect("get", { ...call, progress: () => {} }, { ids: [a] }), null);
  });
});

describe("direct save: the catalogue's memory without the catalogue", () => {
  // the same input saved once directly and once through the catalogue, each into a fresh store:
  // the same outcome but for the new id, times and the store's folder
  const norm = (o: unknown, store: string) =>
    JSON.parse(
      JSON.stringify(o)
        .replaceAll(store, "STORE")
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "ID")
        .replace(/"(created_at|last_used|updated_at)":\d+(\.\d+)?/g, '"$1":0')
        .replace(/"(machine|replica)":"[^"]*"/g, '"$1":"M"'),
    );
  const taken: Record<string, unknown>[] = [
    { content: "Use cursor pagination for list endpoints" },
    { content: "Retry with backoff", tags: ["ops", "billing"], type: "decision" },
    { content: "token ghp_" + "a1B2c3D4e5".repeat(4) + " is in the vault" },
    { content: "" },
    { content: "x", type: "no-such-type" },
    { content: "scoped", scope: "global", project: "p1" },
  ];
  for (const memory of taken) {
    test(`takes ${JSON.stringify(memory).slice(0, 60)} and answers as the catalogue`, async () => {
      const a = path.join(tempDir("memsync-direct-a-"), "store");
      const b = path.join(tempDir("memsync-direct-b-"), "store");
      const direct = runDirect("save", callOn(a), { memory: { ...memory } });
      assert.ok(direct, "one plain memory runs directly");
      assert.deepEqual(norm(await outcome(direct), a), norm(await outcome(runOp("save", callOn(b), { memory: { ...memory } })), b));
    });
  }
  test("leaves anything the schema would change or refuse to the catalogue", () => {
    const call = callOn(path.join(tempDir("memsync-direct-c-"), "store"));
    const withKey = (k: string) => {
      const o: Record<string, unknown> = { content: "x" };
      Object.defineProperty(o, k, { value: 1, enumerable: true });
      return o;
    };
    for (const input of [{ memories: [{ content: "x" }] }, { memory: { content: "x" }, labels: ["a"] }, { memory: ["x"] }, { memory: "x" }, { memory: Object.create(null) }, { memory: withKey("constructor") }, { memory: withKey("__proto__") }, {}]) {
      assert.equal(runDirect("save", call, input as Record<string, unknown>), null, JSON.stringify(input));
    }
  });
});

describe("direct status: the catalogue's report without the catalogue", () => {
  // a healthy store, one with a damaged record file, a folder that is no store, and a missing one
  const { store, a } = relatedPair();
  const damaged = relatedPair();
  const broken = path.join(damaged.store, "memories", `${damaged.a}.json`);
  fs.writeFileSync(broken, "{ not json");
  // written long enough ago: a file changed inside the racy window is looked at again by the next
  // status, so two statuses run within ~100 ms of the write could count the journal differently
  // (a fresh-clone CI run on a quiet machine did: 4 against 5); both must see the same store here
  const past = new Date(Date.now() - 10_000);
  fs.utimesSync(broken, past, past);
  const notStore = tempDir("memsync-direct-empty-");
  const missing = path.join(tempDir("memsync-direct-missing-"), "nowhere");
  for (const [label, root] of [["healthy", store], ["damaged", damaged.store], ["not a store", notStore], ["missing", missing]] as const) {
    test(`answers as the catalogue on a ${label} store`, async () => {
      const direct = runDirect("status", callOn(root), {});
      assert.ok(direct, "a plain status runs directly");
      const got = await outcome(direct);
      assert.deepEqual(got, await outcome(runOp("status", callOn(root), {})));
      if (label === "damaged") assert.equal((got as { value: { health: string } }).value.health, "degraded");
    });
  }
  test("leaves any input with a key to the catalogue, and a call with a progress listener", () => {
    assert.equal(runDirect("status", callOn(store), { extra: a }), null);
    assert.equal(runDirect("status", { ...callOn(store), progress: () => {} }, {}), null);
  });
});
