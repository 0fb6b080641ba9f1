import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { makeGist } from "../../src/core/gist.ts";
import { binaryThenInProcess, fromTemplate, git, initStore, memsyncJson as memsyncJsonProcess, newStore, snapshot, tempDir } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// memsync split end to end: the compiled binary on a real store, native git to read history.

const COMPOSITE = [
  "We moved session storage to Redis because the connection count stays bounded under load.",
  "Cache keys for the public API include the tenant id and the API version.",
  "The nightly export job times out after exactly thirty seconds when the warehouse is cold.",
];

function readRecord(store: string, kind: "memories" | "relations", id: string): any {
  for (const p of [path.join(store, kind, `${id}.json`), path.join(store, kind, id.slice(-2), `${id}.json`)]) {
    if (fs.existsSync(p)) return JSON.parse(fs.readFileSync(p, "utf8"));
  }
  return null;
}

function allRelations(store: string): any[] {
  return fs
    .readdirSync(path.join(store, "relations"))
    .filter((n) => n.endsWith(".json"))
    .map((n) => JSON.parse(fs.readFileSync(path.join(store, "relations", n), "utf8")));
}

function build(store: string) {
  initStore(store);
  const saveProcess = (args: string[]) => memsyncJsonProcess(["--store", store, "save", ...args]).memory.id as string;
  const x = saveProcess([COMPOSITE.join(" "), "--tag", "redis,caching,export", "--entity", "Redis", "--strength", "1.4", "--type", "decision", "--project", "web"]);
  const other = saveProcess(["Postgres connection pool size is 20 in production"]);
  const later = saveProcess(["The export runbook lives in the wiki"]);
  const r1 = memsyncJsonProcess(["--store", store, "relate", other, x, "--type", "supports"]).relation.id as string;
  const r2 = memsyncJsonProcess(["--store", store, "relate", x, later, "--type", "causes"]).relation.id as string;
  for (let i = 0; i < 3; i++) memsyncJsonProcess(["--store", store, "touch", x]);
  memsyncJsonProcess(["--store", store, "commit"]);
  return { x, other, later, r1, r2 };
}

let built: ReturnType<typeof build> | undefined;
/** A composite memory with relations and uses, committed: built once per run of this file, each test gets a copy. */
function fixture() {
  const store = fromTemplate("split fixture", (dir) => (built = build(dir)));
  return { store, ...built! };
}

const commits = (store: string) => git(store, "log", "--format=%s").stdout.trim().split("\n");
const notLocal = (rel: string) => rel.startsWith(".memsync") || rel.startsWith(".git");

describe("memsync split", () => {
  test("parts inherit strength, uses and age, get their own labels; split_from provenance; relations copied; one commit", async () => {
    const f = fixture();
    const original = readRecord(f.store, "memories", f.x);
    const before = commits(f.store);
    const out = await memsyncJson([
      "--store", f.store, "split", f.x,
      "--part", COMPOSITE[0]!, "--part", COMPOSITE[1]!, "--part", COMPOSITE[2]!,
      "--part-tags", "2:caching,api", "--part-entities", "3:Warehouse,Nightly Export",
    ]);
    assert.equal(out.original_is, "removed");
    const ids = out.parts.map((p: any) => p.id) as string[];
    assert.equal(ids.length, 3);
    for (const [i, id] of ids.entries()) {
      const p = readRecord(f.store, "memories", id);
      assert.equal(p.content, COMPOSITE[i]);
      assert.equal(p.strength, 1.4);
      assert.equal(p.use_count, 3);
      assert.equal(p.created_at, original.created_at);
      assert.ok(p.last_used >= original.last_used);
      assert.equal(p.type, "decision");
      assert.equal(p.project, "web");
      assert.equal(p.gist, makeGist(p.content, "moderate", p.entities));
    }
    assert.deepEqual(readRecord(f.store, "memories", ids[0]!).meta.tags, ["redis", "caching", "export"]);
    assert.deepEqual(readRecord(f.store, "memories", ids[1]!).meta.tags, ["caching", "api"]);
    assert.deepEqual(readRecord(f.store, "memories", ids[2]!).entities, ["Warehouse", "Nightly Export"]);
    assert.deepEqual(readRecord(f.store, "memories", ids[0]!).entities, ["Redis"]);
    assert.equal(readRecord(f.store, "memories", f.x), null, "the original is removed");

    const rels = allRelations(f.store);
    const prov = rels.filter((r) => r.relation_type === "split_from").sort((a, b) => a.metadata.split_index - b.metadata.split_index);
    assert.deepEqual(
      prov.map((r) => [r.from_memory_id, r.to_memory_id, r.metadata]),
      ids.map((id, i) => [id, f.x, { split_index: i, total_splits: 3 }]),
    );
    // the original's relations: now on every part, the old ones gone, none naming the original
    assert.equal(readRecord(f.store, "relations", f.r1), null);
    assert.equal(readRecord(f.store, "relations", f.r2), null);
    const rest = rels.filter((r) => r.relation_type !== "split_from");
    assert.deepEqual(rest.filter((r) => r.relation_type === "supports").map((r) => `${r.from_memory_id}>${r.to_memory_id}`).sort(), ids.map((id) => `${f.other}>${id}`).sort());
    assert.deepEqual(rest.filter((r) => r.relation_type === "causes").map((r) => `${r.from_memory_id}>${r.to_memory_id}`).sort(), ids.map((id) => `${id}>${f.later}`).sort());
    assert.ok(rest.every((r) => r.from_memory_id !== f.x && r.to_memory_id !== f.x));
    assert.equal((await memsyncJson(["--store", f.store, "status"])).health, "healthy");

    await memsyncJson(["--store", f.store, "commit"]);
    const after = commits(f.store);
    assert.equal(after.length, before.length + 1);
    assert.equal(after[0], `split: decompose ${f.x.slice(-8)} into 3 atomic memories (${ids.map((id) => id.slice(-8)).join(", ")})`);
    const files = git(f.store, "show", "--no-renames", "--name-status", "--format=", "HEAD").stdout.trim().split("\n");
    assert.equal(files.length, 1 + 3 + 3 + 6 + 2 + 1, "the original, 3 parts, 3 split_from, 6 copies, 2 removed relations, .meta.json (the role)");
    assert.ok(files.includes(`D\tmemories/${f.x}.json`));
    assert.equal(git(f.store, "status", "--porcelain").stdout, "");
  });

  test("--archive keeps the original, archived, with its relations; the parts hold only their provenance", async () => {
    const f = fixture();
    const out = await memsyncJson(["--store", f.store, "split", f.x, "--part", COMPOSITE[0]!, "--part", COMPOSITE.slice(1).join(" "), "--archive"]);
    assert.equal(out.original_is, "archived");
    const original = readRecord(f.store, "memories", f.x);
    assert.equal(original.status, "archived");
    assert.equal(original.content, COMPOSITE.join(" "));
    assert.equal(readRecord(f.store, "relations", f.r1).to_memory_id, f.x);
    assert.equal(readRecord(f.store, "relations", f.r2).from_memory_id, f.x);
    const ids = out.parts.map((p: any) => p.id) as string[];
    const naming = allRelations(f.store).filter((r) => ids.includes(r.from_memory_id) || ids.includes(r.to_memory_id));
    assert.deepEqual(naming.map((r) => r.relation_type), ["split_from", "split_from"]);
    // the archived original is no split candidate and no cluster member
    assert.equal((await memsyncJson(["--store", f.store, "split", "--candidates"])).candidates.some((c: any) => c.id === f.x), false);
  });

  test("--input gives parts as JSON, with labels and fields per part; each part gets its own gist", async () => {
    const f = fixture();
    const wordy =
      "We decided that in order to keep the connection count bounded we should basically move all of the session storage over to Redis, which is actually something that the team already runs in production and really knows very well by now.";
    const file = path.join(tempDir(), "parts.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        parts: [
          { content: wordy, tags: ["sessions"], importance: "high" },
          { content: COMPOSITE[1], entities: ["Public API"], meta: { context: "cache review" } },
          COMPOSITE[2],
        ],
      }),
    );
    const out = await memsyncJson(["--store", f.store, "split", f.x, "--input", file]);
    const [p1, p2, p3] = out.parts.map((p: any) => readRecord(f.store, "memories", p.id));
    assert.deepEqual(p1.meta.tags, ["sessions"]);
    assert.ok(p1.gist && p1.gist.length < wordy.length);
    assert.equal(p1.gist, makeGist(wordy, "moderate", p1.entities));
    assert.equal(p1.importance, "high");
    assert.deepEqual(p2.entities, ["Public API"]);
    assert.equal(p2.meta.context, "cache review");
    assert.equal(p3.content, COMPOSITE[2]);
    assert.deepEqual(p3.meta.tags, ["redis", "caching", "export"]);
  });

  test("a part's text is kept as given, even when it reads as a number", async () => {
    const f = fixture();
    const out = await memsyncJson(["--store", f.store, "split", f.x, "--part", "007", "--part=1e3", "--part", "a, b, c"]);
    assert.deepEqual(out.parts.map((p: any) => readRecord(f.store, "memories", p.id).content), ["007", "1e3", "a, b, c"]);
  });

  test("bad input is refused plainly and changes nothing", async () => {
    const f = fixture();
    const before = snapshot(f.store, notLocal);
    const missing = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";
    const cases: [string[], number, RegExp][] = [
      [[f.x, "--part", "only one"], 2, /at least two parts/],
      [[], 2, /give the id of the memory to split/],
      [[f.x, "--part", "a", "--part", "b", "--part-tags", "3:x"], 4, /--part-tags 3: there are 2 parts/],
      [[f.x, "--part", "a", "--part", "b", "--part-tags", "x"], 4, /--part-tags takes PART:LIST/],
      [[f.x, "--part", "a", "--part", "  "], 4, /part 2 is empty/],
      [[f.x, "--part=a", "--part=  "], 4, /part 2 is empty/],
      [[missing, "--part", "a", "--part", "b"], 3, /not found/],
      [["not-an-id", "--part", "a", "--part", "b"], 4, /invalid id/],
      [[f.x, "--candidates"], 2, /give no id/],
    ];
    for (const [args, code, message] of cases) {
      const r = await memsync(["--store", f.store, "split", ...args]);
      assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
    assert.deepEqual(snapshot(f.store, notLocal), before);
  });

  test("--candidates lists memories worth splitting with reasons and suggested parts, read-only", async () => {
    const f = fixture();
    const long = [
      ...COMPOSITE,
      "Frontend bundles are served with an immutable cache header and a content hash in the file name.",
      "Latency at the ninety-ninth percentile went down by a third after the index change on the orders table.",
      "Onboarding docs for new engineers now start with the local development setup through docker compose.",
    ].join(" ");
    assert.ok(long.length > 500);
    const y = (await memsyncJson(["--store", f.store, "save", long])).memory.id as string;
    const before = snapshot(f.store, notLocal);
    const out = await memsyncJson(["--store", f.store, "split", "--candidates"]);
    const c = out.candidates.find((x: any) => x.id === y);
    assert.ok(c, JSON.stringify(out));
    assert.match(c.reasons.join("; "), /distinct ideas; long: \d+ characters/);
    assert.ok(c.parts.length >= 3);
    assert.equal(c.parts.join(" "), long);
    const atomic = (await memsyncJson(["--store", f.store, "save", "Use tabs in Go files"])).memory.id;
    assert.ok(!(await memsyncJson(["--store", f.store, "split", "--candidates"])).candidates.some((x: any) => x.id === atomic));
    const text = await memsync(["--store", f.store, "split", "--candidates", "--limit", "1"]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /part 1: /);
    await memsync(["--store", f.store, "delete", atomic]);
    assert.deepEqual(snapshot(f.store, notLocal), before);
  });

  test("the maintainer role: a second machine is refused (exit 5) until --claim-maintainer; candidates need no role", async () => {
    const f = fixture();
    await memsyncJson(["--store", f.store, "maintainer", "--claim"], { env: { MEMSYNC_MACHINE: "laptop" } });
    const desktop = { MEMSYNC_MACHINE: "desktop" };
    const args = ["--store", f.store, "split", f.x, "--part", COMPOSITE[0]!, "--part", COMPOSITE[1]!];
    const r = await memsync(args, { env: desktop });
    assert.equal(r.code, 5);
    assert.match(r.stderr, /belongs to machine laptop/);
    assert.ok(readRecord(f.store, "memories", f.x));
    assert.equal((await memsync(["--store", f.store, "split", "--candidates"], { env: desktop })).code, 0);
    const out = await memsyncJson([...args, "--claim-maintainer"], { env: desktop });
    assert.deepEqual(out.maintainer, { machine: "desktop", claimed: true });
  });
});
