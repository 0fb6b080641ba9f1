import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createApi } from "../../src/faces/api/app.ts";
import { hostOpsEnv } from "../../src/runtime/ops-env.ts";
import { newStore, readMemoryFile, saveMany } from "../helpers/env.ts";

// Pages whose lists are paged or bounded, in-process (app.request, no browser): split candidates a
// page at a time, and a bulk forget whose dry run lists only the newest 100 of a larger match yet
// deletes every match on confirm (one batch here: a batch is 5,000). One store saved by one process.

const IDEAS = [
  "We moved session storage to Redis because the connection count stays bounded under load.",
  "Cache keys for the public API include the tenant id and the API version.",
  "The nightly export job times out after exactly thirty seconds when the warehouse is cold.",
  "Frontend bundles are served with an immutable cache header and a content hash in the file name.",
  "Onboarding docs for new engineers now start with the local development setup through docker compose.",
  "Latency at the ninety-ninth percentile went down by a third after the index change on the orders table.",
];

describe("paged pages", () => {
  let store: string;
  let ids: string[];
  let api: ReturnType<typeof createApi>;
  const HOST = { host: "127.0.0.1:7457" };
  const get = async (u: string) => {
    const r = await api.app.request(u, { headers: HOST });
    return { status: r.status, text: await r.text() };
  };

  before(() => {
    store = newStore();
    // 22 long memories of several distinct ideas each (split candidates), and 110 short ones of one project
    const long = Array.from({ length: 22 }, (_, i) => ({ content: `Note ${i}: ${IDEAS.join(" ")}`, project: "keep" }));
    const short = Array.from({ length: 110 }, (_, i) => ({ content: `Old staging host number ${i} was retired`, project: "old-staging" }));
    ids = saveMany(store, [...long, ...short]);
    api = createApi({ env: hostOpsEnv(store), self: [], guard: { listenHost: "127.0.0.1", allowHosts: [], token: null } });
  });
  after(() => api.close());

  test("split candidates: 20 a page, then a link for the rest", async () => {
    const first = await get("/ui/split");
    assert.equal(first.status, 200);
    assert.equal(first.text.match(/Split into \d+<\/button>/g)?.length, 20);
    assert.match(first.text, /href="\/ui\/split\?limit=40">Show 2 more</);
    const all = await get("/ui/split?limit=40");
    assert.equal(all.text.match(/Split into \d+<\/button>/g)?.length, 22);
    assert.doesNotMatch(all.text, /Show \d+ more/);
  });

  test("forget: the dry run lists 100 of 110 and counts 110; confirm deletes all 110 and nothing else", async () => {
    const preview = await get("/ui/forget?project=old-staging");
    assert.match(preview.text, /<strong>110<\/strong> memories match/);
    assert.equal(preview.text.match(/<tr><td><a href="\/ui\/m\//g)?.length, 100);
    assert.match(preview.text, /and 10 more\./);
    // no status chosen forgets every status, and the form says so (search's default is another)
    assert.match(preview.text, /<option value="">any status<\/option>/);
    const post = (expected: number) =>
      api.app.request("/ui/forget", {
        method: "POST",
        headers: { ...HOST, "sec-fetch-site": "same-origin", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ project: "old-staging", expected: String(expected) }).toString(),
      });
    const stale = await post(109);
    assert.equal(stale.status, 409, "a count that changed since the preview deletes nothing");
    assert.ok(readMemoryFile(store, ids[22]!));
    const done = await post(110);
    assert.equal(done.status, 303);
    assert.match(decodeURIComponent(done.headers.get("location") ?? ""), /Forgot 110 memories/);
    for (const id of ids.slice(22)) assert.equal(readMemoryFile(store, id), null);
    for (const id of ids.slice(0, 22)) assert.ok(readMemoryFile(store, id));
  });
});
