import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { makeGist } from "../../src/core/gist.ts";
import { binaryThenInProcess, fromTemplate, git, initStore, memsyncCase, memsyncJson as memsyncJsonProcess, newStore, snapshot } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// memsync consolidate end to end: the compiled binary on a real store, native git to read history.

const A = [
  ["Use cursor pagination for list endpoints in the public API; page size defaults to 50", "--tag", "api,pagination", "--strength", "1.0"],
  ["For list endpoints in the public API use cursor pagination, with a default page size of 50", "--tag", "api", "--strength", "1.5", "--entity", "PostgreSQL"],
  ["Public API list endpoints: cursor pagination, page size default 50", "--tag", "pagination", "--strength", "0.8"],
];
const B = [["The nightly export job times out after thirty seconds when the warehouse is cold"], ["Nightly export job timeout: thirty seconds when the warehouse is cold"]];
const OTHERS = [["Postgres connection pool size is 20 in production"], ["Redis keeps sessions for the web dashboard"], ["Tabs in Go files, spaces in YAML files"]];

const save = async (store: string, args: string[], env?: Record<string, string>) => (await memsyncJson(["--store", store, "save", ...args], { env })).memory.id as string;
/** save as a process, for the fixture built once (fromTemplate takes a function that returns when done) */
const saveProcess = (store: string, args: string[]) => memsyncJsonProcess(["--store", store, "save", ...args]).memory.id as string;

function readRecord(store: string, kind: "memories" | "relations", id: string): any {
  for (const p of [path.join(store, kind, `${id}.json`), path.join(store, kind, id.slice(-2), `${id}.json`)]) {
    if (fs.existsSync(p)) return JSON.parse(fs.readFileSync(p, "utf8"));
  }
  return null;
}

function allRecords(store: string, kind: "memories" | "relations"): any[] {
  const out: any[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else if (e.name.endsWith(".json")) out.push(JSON.parse(fs.readFileSync(path.join(dir, e.name), "utf8")));
    }
  };
  walk(path.join(store, kind));
  return out;
}

/** A store with two clusters of near-duplicates, unrelated notes, relations, all committed. */
function build(store: string) {
  initStore(store);
  const a = A.map((args) => saveProcess(store, args));
  const b = B.map((args) => saveProcess(store, args));
  const others = OTHERS.map((args) => saveProcess(store, args));
  // near-duplicates that must stay out: archived, another project
  const archived = saveProcess(store, ["Use cursor pagination for list endpoints in the public API; page size defaults to 50 items"]);
  memsyncJsonProcess(["--store", store, "archive", archived]);
  const elsewhere = saveProcess(store, ["Use cursor pagination for list endpoints in the public API; page size defaults to 50", "--project", "other"]);
  const rel = (from: string, to: string, type = "related") => memsyncJsonProcess(["--store", store, "relate", from, to, "--type", type]).relation.id as string;
  const rels = {
    toA0: rel(others[0]!, a[0]!), // moves to the new memory
    toA1: rel(others[0]!, a[1]!), // becomes the same as toA0: removed
    inside: rel(a[0]!, a[1]!, "supports"), // between two sources: removed
    fromA2: rel(a[2]!, others[1]!, "causes"), // moves
    unrelated: rel(others[1]!, others[2]!),
  };
  for (let i = 0; i < 3; i++) memsyncJsonProcess(["--store", store, "touch", a[0]!]);
  memsyncJsonProcess(["--store", store, "touch", a[1]!]);
  memsyncJsonProcess(["--store", store, "commit"]);
  return { a, b, others, archived, elsewhere, rels };
}

let built: ReturnType<typeof build> | undefined;
/** A copy of the store build() makes once per run of this file (22 memsync processes each time otherwise). */
function fixture() {
  const store = fromTemplate("consolidate fixture", (dir) => (built = build(dir)));
  return { store, ...built! };
}

const preview = async (store: string, extra: string[] = [], env?: Record<string, string>) => await memsyncJson(["--store", store, "consolidate", ...extra], { env });
const clusterOf = (out: any, member: string) => out.clusters.find((c: any) => c.members.some((m: any) => m.id === member));
const commits = (store: string) => git(store, "log", "--format=%s").stdout.trim().split("\n");
const notLocal = (rel: string) => rel.startsWith(".memsync") || rel.startsWith(".git");

describe("memsync consolidate: preview", () => {
  test("shows each cluster with members, cohesion and the merged memory, and changes nothing", async () => {
    const f = fixture();
    const before = snapshot(f.store, notLocal);
    const out = await preview(f.store);
    assert.equal(out.mode, "preview");
    assert.equal(out.clusters.length, 2);
    const ca = clusterOf(out, f.a[0]!);
    assert.deepEqual(ca.members.map((m: any) => m.id).sort(), [...f.a].sort(), "archived and other-project duplicates stay out");
    assert.match(ca.id, /^c[0-9a-f]{12}$/);
    assert.ok(ca.cohesion >= 0.6 && ca.cohesion <= 1);
    assert.deepEqual(ca.merged.tags.sort(), ["api", "pagination"]);
    assert.equal(ca.merged.use_count, 4);
    assert.equal(ca.merged.strength, Math.round(Math.min(1.5 + Math.min(ca.cohesion * 3 * 0.1, 0.5), 2) * 1e6) / 1e6);
    assert.deepEqual(clusterOf(out, f.b[0]!).members.map((m: any) => m.id).sort(), [...f.b].sort());
    assert.ok(out.stats.candidates < (out.memories * (out.memories - 1)) / 2, "not every pair compared");
    const text = await memsync(["--store", f.store, "consolidate"]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, new RegExp(`cluster ${ca.id}  cohesion ${ca.cohesion}  3 memories`));
    assert.match(text.stdout, /memsync consolidate --apply/);
    assert.deepEqual(snapshot(f.store, notLocal), before);
  });

  test("cluster ids are stable across runs and after an unrelated memory arrives; --cluster finds them later", async () => {
    const f = fixture();
    const ids = async () => (await preview(f.store)).clusters.map((c: any) => c.id).sort();
    const first = await ids();
    assert.deepEqual(await ids(), first);
    await save(f.store, ["Terraform state lives in an S3 bucket with DynamoDB locking"]);
    assert.deepEqual(await ids(), first);
    const one = await preview(f.store, ["--cluster", first[0]!]);
    assert.deepEqual(one.clusters.map((c: any) => c.id), [first[0]]);
  });

  test("a higher threshold finds fewer clusters; bad input is refused plainly", async () => {
    const f = fixture();
    assert.equal((await preview(f.store, ["--threshold", "0.99"])).clusters.length, 0);
    const cases: [string[], number, RegExp][] = [
      [["--cluster", "not-a-cluster"], 4, /invalid cluster id/],
      [["--cluster", "c000000000000"], 3, /no cluster c000000000000 at threshold 0.6/],
      [["--cluster", "000000000000"], 4, /invalid cluster id "000000000000"/],
      [["--apply", "--link"], 2, /not both/],
      [["--threshold", "2"], 4, /--threshold must be a number from 0.05 to 1/],
    ];
    for (const [i, [args, code, message]] of cases.entries()) {
      const r = await memsyncCase(i, ["--store", f.store, "consolidate", ...args]);
      assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split("\n").length, 1);
    }
  });
});

describe("memsync consolidate --apply", () => {
  test("merges by the rules, moves every relation, leaves nothing dangling, in exactly one commit", async () => {
    const f = fixture();
    const ca = clusterOf(await preview(f.store), f.a[0]!);
    const before = commits(f.store);
    const out = await memsyncJson(["--store", f.store, "consolidate", "--apply", "--cluster", ca.id]);
    assert.equal(out.applied.length, 1);
    const n = out.applied[0].into as string;
    const merged = readRecord(f.store, "memories", n);
    const sources = f.a.map((id) => ({ id, content: A[f.a.indexOf(id)]![0] }));
    // content: neither short note is inside the longest: all three, longest first
    assert.equal(merged.content, [...sources].sort((x, y) => y.content!.length - x.content!.length).map((s) => s.content).join("\n\n"));
    assert.deepEqual(merged.meta.tags.sort(), ["api", "pagination"]);
    assert.deepEqual(merged.entities, ["PostgreSQL"]);
    assert.equal(merged.use_count, 4);
    assert.equal(merged.strength, Math.round(Math.min(1.5 + Math.min(ca.cohesion * 3 * 0.1, 0.5), 2) * 1e6) / 1e6);
    assert.equal(merged.status, "active");
    assert.ok(merged.gist, "a fresh gist of the merged content");
    assert.equal(merged.gist, makeGist(merged.content, "moderate", merged.entities));
    for (const id of f.a) assert.equal(readRecord(f.store, "memories", id), null, "sources removed");

    const rels = allRecords(f.store, "relations");
    const prov = rels.filter((r) => r.relation_type === "consolidated_from");
    assert.deepEqual(prov.map((r) => r.to_memory_id).sort(), [...f.a].sort());
    for (const r of prov) {
      assert.equal(r.from_memory_id, n);
      assert.deepEqual(r.metadata, { cluster_id: ca.id, cluster_cohesion: ca.cohesion });
    }
    // nothing else names a removed memory; no self relations; no (from, to, type) twice
    const alive = new Set(allRecords(f.store, "memories").map((m) => m.id));
    for (const r of rels) {
      assert.ok(alive.has(r.from_memory_id), `relation ${r.id} from a live memory`);
      if (r.relation_type !== "consolidated_from") assert.ok(alive.has(r.to_memory_id), `relation ${r.id} to a live memory`);
      assert.notEqual(r.from_memory_id, r.to_memory_id);
    }
    const triples = rels.map((r) => `${r.from_memory_id} ${r.to_memory_id} ${r.relation_type}`);
    assert.equal(new Set(triples).size, triples.length);
    assert.equal(readRecord(f.store, "relations", f.rels.toA0).to_memory_id, n);
    assert.equal(readRecord(f.store, "relations", f.rels.fromA2).from_memory_id, n);
    assert.equal(readRecord(f.store, "relations", f.rels.toA1), null);
    assert.equal(readRecord(f.store, "relations", f.rels.inside), null);
    assert.equal(readRecord(f.store, "relations", f.rels.unrelated).from_memory_id, f.others[1]);
    assert.equal((await memsyncJson(["--store", f.store, "status"])).health, "healthy");

    // exactly one commit, with the plain message, holding every change and .meta.json
    await memsyncJson(["--store", f.store, "commit"]);
    const after = commits(f.store);
    assert.equal(after.length, before.length + 1);
    assert.equal(after[0], `consolidate: merge ${out.applied[0].sources.map((id: string) => id.slice(-8)).join(", ")} into ${n.slice(-8)}`);
    const files = git(f.store, "show", "--no-renames", "--name-status", "--format=", "HEAD").stdout.trim().split("\n");
    const status = (p: string) => files.find((l) => l.endsWith(p))?.split("\t")[0];
    assert.equal(status(`${n}.json`), "A");
    for (const id of f.a) assert.equal(status(`${id}.json`), "D");
    assert.equal(status(".meta.json"), "M");
    assert.equal(files.length, 1 + 1 + 3 + 3 + 2 + 2, "meta, new memory, 3 sources, 3 provenance, 2 moved, 2 removed");
    const meta = JSON.parse(fs.readFileSync(path.join(f.store, ".meta.json"), "utf8"));
    assert.ok(meta.last_consolidation_at >= merged.created_at);
    assert.equal(meta.settings.maintainer, "test-machine");
    assert.equal(git(f.store, "status", "--porcelain").stdout, "");

    // the cluster is gone; the other one is still there with the same id
    const again = await preview(f.store);
    assert.deepEqual(again.clusters.map((c: any) => c.members.map((m: any) => m.id).sort()), [[...f.b].sort()]);
  });

  test("--apply without --cluster merges every cluster in one commit", async () => {
    const f = fixture();
    const before = commits(f.store).length;
    const out = await memsyncJson(["--store", f.store, "consolidate", "--apply"]);
    assert.equal(out.applied.length, 2);
    await memsyncJson(["--store", f.store, "commit"]);
    const log = commits(f.store);
    assert.equal(log.length, before + 1);
    // names every source and what it went into, cluster by cluster (6 ids named, then "+N more")
    const named = out.applied.map((x: any) => {
      const shown = x.sources.slice(0, 3).map((id: string) => id.slice(-8));
      return `${shown.join(", ")}${x.sources.length > 3 ? `, +${x.sources.length - 3} more` : ""} into ${x.into.slice(-8)}`;
    });
    assert.equal(log[0], `consolidate: merge 5 memories into 2: ${named.join("; ")}`);
    assert.equal((await preview(f.store)).clusters.length, 0);
  });

  test("--link relates each cluster's members both ways instead, once", async () => {
    const f = fixture();
    const cb = clusterOf(await preview(f.store), f.b[0]!);
    const out = await memsyncJson(["--store", f.store, "consolidate", "--link", "--cluster", cb.id]);
    assert.equal(out.applied[0].relations_created.length, 2);
    for (const id of out.applied[0].relations_created) {
      const r = readRecord(f.store, "relations", id);
      assert.equal(r.relation_type, "related");
      assert.ok(r.strength > 0.6 && r.strength <= 1);
      assert.deepEqual(r.metadata, { cluster_id: cb.id, cluster_cohesion: cb.cohesion });
    }
    const pairs = out.applied[0].relations_created.map((id: string) => readRecord(f.store, "relations", id)).map((r: any) => `${r.from_memory_id}>${r.to_memory_id}`).sort();
    assert.deepEqual(pairs, [`${f.b[0]}>${f.b[1]}`, `${f.b[1]}>${f.b[0]}`].sort());
    for (const id of f.b) assert.ok(readRecord(f.store, "memories", id), "linking keeps the memories");
    await memsyncJson(["--store", f.store, "commit"]);
    const before = commits(f.store);
    assert.match(before[0]!, new RegExp(`^consolidate: link 2 memories of cluster ${cb.id} \\(2 relations\\)$`));
    // again: nothing new, no commit
    assert.equal((await memsyncJson(["--store", f.store, "consolidate", "--link", "--cluster", cb.id])).applied[0].relations_created.length, 0);
    await memsyncJson(["--store", f.store, "commit"]);
    assert.deepEqual(commits(f.store), before);
  });
});

describe("memsync consolidate: uses counted once", () => {
  test("the parts of a split merged back hold the original's uses once, not once per part", async () => {
    const store = newStore();
    const id = await save(store, ["Redis caches the web sessions with a one day TTL and Redis caches the API tokens with a one day TTL"]);
    for (let i = 0; i < 3; i++) await memsyncJson(["--store", store, "touch", id]);
    const split = await memsyncJson(["--store", store, "split", id, "--part", "Redis caches the web sessions with a one day TTL", "--part", "Redis caches the API sessions with a one day TTL"]);
    assert.deepEqual(split.parts.map((p: { use_count: number }) => p.use_count), [3, 3], "each part holds the original's three uses");
    await memsyncJson(["--store", store, "consolidate", "--apply", "--threshold", "0.3"]);
    const left = allRecords(store, "memories");
    assert.equal(left.length, 1);
    // three touches: the merged memory counts three uses (it counted six, one copy per part)
    assert.equal(left[0].use_count, 3);
  });
});

describe("memsync consolidate: a cluster too long to merge", () => {
  test("is shown as such, left out of --apply, refused when named, and can still be linked", async () => {
    const store = newStore();
    const body = Array.from({ length: 2000 }, (_, i) => `note${i % 997} word${(i * 7) % 1009}`).join(" ");
    const ids: string[] = [];
    for (const end of ["first ending", "second ending"]) ids.push((await memsyncJson(["--store", store, "save", "-"], { input: `${body} ${end}` })).memory.id as string);
    const out = await preview(store);
    assert.equal(out.clusters.length, 1);
    const c = out.clusters[0];
    assert.equal(c.merged, null);
    assert.match(c.problem, /over the limit of 50000/);
    assert.match((await memsync(["--store", store, "consolidate"])).stdout, /cannot be merged: .*over the limit/);
    assert.equal((await memsyncJson(["--store", store, "consolidate", "--apply"])).applied.length, 0);
    const named = await memsync(["--store", store, "consolidate", "--apply", "--cluster", c.id]);
    assert.equal(named.code, 5);
    assert.match(named.stderr, /cannot be merged: .*--link relates its memories instead/);
    for (const id of ids) assert.ok(readRecord(store, "memories", id));
    assert.equal((await memsyncJson(["--store", store, "consolidate", "--link"])).applied[0].relations_created.length, 2);
  });
});

describe("memsync consolidate: the maintainer role", () => {
  test("a second machine is refused (exit 5, nothing changed) until it claims the role; a preview needs no role", async () => {
    const f = fixture();
    const laptop = { MEMSYNC_MACHINE: "laptop" };
    const desktop = { MEMSYNC_MACHINE: "desktop" };
    await memsyncJson(["--store", f.store, "maintainer", "--claim"], { env: laptop });
    const ca = clusterOf(await preview(f.store, [], desktop), f.a[0]!);
    const before = snapshot(f.store, notLocal);
    for (const mode of ["--apply", "--link"]) {
      const r = await memsync(["--store", f.store, "consolidate", mode, "--cluster", ca.id], { env: desktop });
      assert.equal(r.code, 5, r.stderr);
      assert.match(r.stderr, /^memsync: maintenance of this store belongs to machine laptop \(this is desktop\); .*--claim-maintainer/);
    }
    assert.deepEqual(snapshot(f.store, notLocal), before);
    const out = await memsyncJson(["--store", f.store, "consolidate", "--apply", "--cluster", ca.id, "--claim-maintainer"], { env: desktop });
    assert.deepEqual(out.maintainer, { machine: "desktop", claimed: true });
    assert.equal(JSON.parse(fs.readFileSync(path.join(f.store, ".meta.json"), "utf8")).settings.maintainer, "desktop");
    // now the laptop is the one refused
    assert.equal((await memsync(["--store", f.store, "consolidate", "--apply"], { env: laptop })).code, 5);
  });
});
