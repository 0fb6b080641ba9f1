import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, test } from "node:test";
import { CATALOGUE } from "../../src/ops/catalogue/index.ts";
import { filesUnder, memsync, newStore, readMemoryFile } from "../helpers/env.ts";
import { hub } from "../helpers/hub.ts";
import { loadSecrets, leaks } from "../helpers/secrets.ts";
import { get, post, type Server, startServer } from "../helpers/server.ts";

// `memsync serve`'s routes, spoken to over HTTP: one route per catalogue entry (POST, and GET for
// reads), the OpenAPI document, health, errors as {"error": {code, message}} with their statuses.
// One server for the file (starting one is the slow part).

let store: string;
let s: Server;
const v1 = (p: string) => `${s.url}/v1/${p}`;

before(async () => {
  store = newStore();
  s = await startServer(store);
});
after(async () => {
  assert.equal(await s.stop(), 0, s.stderr());
});

describe("memsync serve: the routes", () => {
  test("every catalogue entry is a route: POST with {} answers its output or a coded error, never an internal one or an unknown route", async () => {
    const doc = (await get(v1("openapi.json"))).body;
    assert.equal(doc.openapi, "3.1.0");
    const other = newStore();
    const t = await startServer(other);
    try {
      for (const info of CATALOGUE) {
        const item = doc.paths[`/v1/${info.name}`];
        assert.ok(item?.post, `${info.name} has a POST route in openapi.json`);
        assert.equal(Boolean(item.get), info.readOnly, `${info.name}: GET only for reads`);
        assert.equal(item.post.summary, info.summary);
        assert.equal(item.post.requestBody.content["application/json"].schema.type, "object");
        const r = await post(`${t.url}/v1/${info.name}`, {});
        assert.ok(r.status === 200 || (r.status >= 400 && r.status !== 500), `${info.name}: ${r.status} ${JSON.stringify(r.body)}`);
        if (r.status !== 200) {
          assert.equal(typeof r.body.error.code, "string", info.name);
          assert.doesNotMatch(r.body.error.message, /no operation/, info.name);
        }
      }
    } finally {
      assert.equal(await t.stop(), 0);
    }
  });

  test("a memory's life over HTTP: save, get, update, touch, relate, unrelate, archive, delete; reads by GET and POST", async () => {
    const a = await post(v1("save"), { memory: { content: "Use cursor pagination for the orders API", type: "decision", tags: ["api", "pagination"], project: "shop" } });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const id: string = a.body.memory.id;
    assert.equal(readMemoryFile(store, id).content, "Use cursor pagination for the orders API");
    const b = await post(v1("save"), { memories: [{ content: "Redis holds the sessions", tags: ["cache"] }, { content: "Postgres is the main database" }] });
    assert.equal(b.body.saved.length, 2);
    const other: string = b.body.saved[0].memory.id;

    assert.equal((await post(v1("get"), { ids: [id] })).body.found[0].memory.id, id);
    assert.equal((await get(v1(`get?ids=${id.slice(-8)}&ids=${other}`))).body.found.length, 2);
    const up = await post(v1("update"), { id, patch: { importance: "high" }, edits: { add_tags: ["orders"] } });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(readMemoryFile(store, id).importance, "high");
    assert.ok(readMemoryFile(store, id).meta.tags.includes("orders"));
    await post(v1("touch"), { ids: [id], boost: true });
    assert.equal(readMemoryFile(store, id).use_count, 1);

    // reads: GET with the query string (repeated parameters for arrays, numbers, booleans)
    const found = await get(v1("search?query=pagination&tag=api&tag=orders&limit=5&scores=true"));
    assert.equal(found.status, 200);
    assert.deepEqual(found.body.hits.map((h: any) => h.memory.id), [id]);
    assert.equal(typeof found.body.decay_scores[id], "number");
    assert.deepEqual((await post(v1("search"), { query: "pagination", tag: ["api"] })).body.hits.length, 1);
    assert.equal((await get(v1("list?limit=2"))).body.memories.length, 2);
    assert.match((await get(v1("recall?query=how%20do%20we%20paginate%20orders&project=shop"))).body.text, /cursor pagination/);
    assert.match((await get(v1("context?project=shop"))).body.text, /cursor pagination/);
    assert.equal((await get(v1("status"))).body.health, "healthy");
    assert.equal((await get(v1("conflicts"))).body.total, 0);

    const rel = await post(v1("relate"), { from: id, to: other, type: "supports" });
    assert.equal(rel.status, 200, JSON.stringify(rel.body));
    const relId: string = rel.body.relation.id;
    assert.equal((await post(v1("unrelate"), { ids: [relId] })).status, 200);
    await post(v1("archive"), { ids: [other] });
    assert.equal(readMemoryFile(store, other).status, "archived");
    assert.equal((await post(v1("delete"), { ids: [other] })).status, 200);
    assert.equal(readMemoryFile(store, other), null);
  });

  test("errors: the status follows the code, the body is {error: {code, message}}, and never echoes what was sent", async () => {
    const bad = await post(v1("touch"), { ids: ["../../etc/passwd"] });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "invalid_input");
    const missing = await post(v1("update"), { id: "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d", patch: { importance: "low" } });
    assert.equal(missing.status, 404, JSON.stringify(missing.body));
    assert.equal(missing.body.error.code, "not_found");
    assert.equal((await post(v1("sync"), {})).status, 503); // no remote: unavailable
    const wrongMethod = await fetch(v1("touch"));
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get("allow"), "POST");
    assert.equal((await get(v1("no-such-op"))).status, 404);
    assert.equal((await get(`${s.url}/elsewhere`)).body.error.code, "not_found");
    const notJson = await post(v1("save"), "{not json");
    assert.equal(notJson.status, 400);
    // a body holding a secret, refused: the refusal names the field, never the value
    const secret = "sk-proj-" + "Zx9".repeat(16);
    const refused = [
      await post(v1("save"), { memory: { content: 42, context: secret } }),
      await post(v1("search"), { query: secret, limit: "x" + secret }),
      await post(v1("save"), `{"memory": {"content": "${secret}"`),
      await get(v1(`search?query=a&limit=${secret}`)),
    ];
    for (const r of refused) {
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.ok(!JSON.stringify(r.body).includes(secret.slice(-12)), JSON.stringify(r.body));
    }
  });

  test("a secret sent over HTTP never reaches a file in the store", async () => {
    const cases = loadSecrets().slice(0, 6);
    for (const c of cases) {
      const r = await post(v1("save"), { memory: { content: `Deploy notes: ${c.text}`, context: c.text } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    const all = filesUnder(store).filter((f) => !f.includes("/.git/")).map((f) => fs.readFileSync(f).toString("latin1"));
    for (const c of cases) for (const text of all) assert.ok(!leaks(text, c.secret), `${c.kind} leaked`);
  });

  test("health: the store's health, unpushed commits, and the last sync with its result; POST /v1/sync runs one", async () => {
    const h = await get(v1("health"));
    assert.equal(h.status, 200);
    assert.equal(h.body.health, "healthy");
    assert.equal(h.body.unpushed_commits, null); // no remote
    assert.equal(h.body.sync.last.ok, false); // the sync refused above, for want of a remote
    const { bare } = hub();
    assert.equal(memsync(["--store", store, "remote", "set", bare]).code, 0);
    const [one, two] = await Promise.all([post(v1("sync"), {}), post(v1("sync"), { direction: "sync" })]);
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.deepEqual(one.body, two.body); // the second joined the first: one sync, not two
    assert.ok(one.body.commit.commits.length >= 1);
    const after = (await get(v1("health"))).body;
    assert.equal(after.unpushed_commits, 0);
    assert.equal(after.uncommitted_changes, 0); // the sync committed every journaled change
    // a CLI write and a server write are each one more, in the count health keeps as the journal grows
    assert.equal(memsync(["--store", store, "save", "counted by health"]).code, 0);
    assert.equal((await post(v1("save"), { memory: { content: "counted by health too" } })).status, 200);
    assert.equal((await get(v1("health"))).body.uncommitted_changes, 2);
    assert.equal(after.sync.last.ok, true);
    assert.ok(Date.parse(after.sync.last.finished_at) > Date.now() - 60_000);
  });

  test("health is cheap: a call answers from the last full check; ?full=1 runs one (a file broken in place is found then)", async () => {
    const saved = await post(v1("save"), { memory: { content: "broken in place for the health check" } });
    const id: string = saved.body.memory.id;
    const file = filesUnder(store, `${id}.json`)[0]!;
    assert.ok(file, "the saved memory's file");
    const before = (await get(v1("health"))).body;
    assert.equal(before.health, "healthy");
    assert.equal(before.full_check.every_s, 60);
    const text = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, "{not json"); // same folder mtime may not move: only a full check re-stats files
    try {
      const full = (await get(`${v1("health")}?full=1`)).body;
      assert.equal(full.health, "degraded", JSON.stringify(full));
      assert.match(full.reasons.join(" "), /corrupt/);
      assert.ok(Date.parse(full.full_check.at) > Date.now() - 60_000);
      // the next plain call reports that check, without running another
      const next = (await get(v1("health"))).body;
      assert.equal(next.health, "degraded");
      assert.equal(next.full_check.at, full.full_check.at);
      assert.equal(next.full_check.running, false);
    } finally {
      fs.writeFileSync(file, text);
      assert.equal((await get(`${v1("health")}?full=1`)).body.health, "healthy");
    }
  });
});
