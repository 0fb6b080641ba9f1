import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { DEFAULT_DECAY, scoreMemory } from "../../src/core/decay.ts";
import { binaryThenInProcess, EDGE_BIN, git, memsyncCase, newStore, snapshot, tempDir } from "../helpers/env.ts";

// Decay scores, the shared settings, gc and promote, end to end through the compiled binary.
// Old memories are made by saving records with old timestamps (save --input). Each command's first
// run goes through the binary, its later runs in-process (binaryThenInProcess).

const { memsync, memsyncJson, saveMany } = binaryThenInProcess();

const DAY = 86_400;
const nowS = () => Math.floor(Date.now() / 1000);

/** Save a memory whose last use was `daysAgo` days ago; returns its id. */
async function saveAged(store: string, content: string, daysAgo: number, extra: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<string> {
  const t = nowS() - Math.round(daysAgo * DAY);
  const fields = { content, created_at: t - DAY, last_used: t, ...extra };
  return (await memsyncJson(["--store", store, "save", "--input", "-"], { input: JSON.stringify(fields), env })).memory.id as string;
}

/** Several such memories saved by one process (save --input with a JSON array); their ids in order. */
async function saveAgedMany(store: string, items: [content: string, daysAgo: number, extra?: Record<string, unknown>][]): Promise<string[]> {
  const records = items.map(([content, daysAgo, extra]) => {
    const t = nowS() - Math.round(daysAgo * DAY);
    return { content, created_at: t - DAY, last_used: t, ...extra };
  });
  return await saveMany(store, records);
}

const readMeta = (store: string) => JSON.parse(fs.readFileSync(path.join(store, ".meta.json"), "utf8"));
const memoryFile = (store: string, id: string) => path.join(store, "memories", `${id}.json`);
const exists = (store: string, id: string) => fs.existsSync(memoryFile(store, id));
const record = (store: string, id: string) => JSON.parse(fs.readFileSync(memoryFile(store, id), "utf8"));
/** The store's files that are synced (not the machine-local .memsync/ nor .git). */
const synced = (store: string) => snapshot(store, (rel) => rel === ".memsync" || rel === ".git");
/** Subjects and changed paths of the newest commit. */
function lastCommit(store: string): { subject: string; files: string[] } {
  const out = git(store, "log", "-1", "--format=%s", "--name-only").stdout.trim().split("\n");
  return { subject: out[0]!, files: out.slice(1).filter(Boolean).sort() };
}
const commits = (store: string) => Number(git(store, "rev-list", "--count", "HEAD").stdout.trim());

describe("memsync score", () => {
  test("the exponential model gives CortexGraph's reference values; the score agrees with the core function", async () => {
    const store = newStore();
    assert.equal((await memsync(["--store", store, "settings", "decay.model", "exponential"])).code, 0);
    const cases = [
      { days: 0, uses: 0, expect: 1.0 },
      { days: 0, uses: 1, expect: 1.5157 },
      { days: 0, uses: 5, expect: 2.9302 },
      { days: 3, uses: 0, expect: 0.50015 },
      { days: 12, uses: 0, expect: 0.0626 },
      { days: 13, uses: 0, expect: 0.0497 },
    ];
    const ids = await saveAgedMany(store, cases.map((c, i) => [`reference case ${i}`, c.days, { use_count: c.uses }]));
    const out = await memsyncJson(["--store", store, "score", ...ids]);
    assert.equal(out.settings.decay.model, "exponential");
    for (const [i, c] of cases.entries()) {
      const s = out.scores[i];
      const exact = scoreMemory(s, out.now, { ...DEFAULT_DECAY, model: "exponential" });
      assert.ok(Math.abs(s.score - exact) < 1e-12, `${s.score} vs ${exact}`);
      // the reference values are for exact ages; the seconds between the save and the score
      // (many on a loaded machine) are taken out by scoring the same record at the exact age
      const atAge = scoreMemory({ ...s, last_used: out.now - c.days * DAY }, out.now, { ...DEFAULT_DECAY, model: "exponential" });
      assert.ok(out.now - c.days * DAY - s.last_used < 600, `case ${i}: saved ${c.days} days old`);
      assert.ok(Math.abs(atAge - c.expect) < 1e-4, `case ${i}: ${atAge} is not ${c.expect}`);
    }
    assert.equal(out.scores[5].forget_in, 0, "13 days: under the forget threshold");
    assert.ok(out.scores[4].forget_in > 0 && out.scores[4].forget_in < DAY, "12 days: crosses within the day");
  });

  test("each model is used when chosen: three models, three scores; power law is the default", async () => {
    const store = newStore();
    const id = await saveAged(store, "a memory used three times, two days ago", 2, { use_count: 3 });
    const seen: Record<string, number> = {};
    for (const model of ["power_law", "exponential", "two_component"]) {
      if (model !== "power_law") assert.equal((await memsync(["--store", store, "settings", "decay.model", model])).code, 0);
      const out = await memsyncJson(["--store", store, "score", id]);
      assert.equal(out.settings.decay.model, model);
      seen[model] = out.scores[0].score;
      assert.ok(Math.abs(out.scores[0].score - scoreMemory(out.scores[0], out.now, { ...DEFAULT_DECAY, model: model as never })) < 1e-12);
    }
    assert.equal(new Set(Object.values(seen).map((s) => s.toFixed(6))).size, 3, JSON.stringify(seen));
  });

  test("text output, review priority in the danger zone, promotion verdict; unknown ids exit 3", async () => {
    const store = newStore();
    // power law: 0.25 is reached after about 7.7 days for an unused memory: in the danger zone
    const zone = await saveAged(store, "fading memory", 7.7);
    const out = (await memsyncJson(["--store", store, "score", zone])).scores[0];
    assert.ok(out.score > 0.15 && out.score < 0.35, String(out.score));
    assert.ok(out.review_priority > 0.9, String(out.review_priority));
    assert.deepEqual([out.promotion.eligible, out.promotion.reason], [false, "used 0 of 5 times"]);
    const text = (await memsync(["--store", store, "score", zone])).stdout;
    assert.match(text, /score 0\.2\d{3}  \(power_law\)/);
    assert.match(text, /falls under the forget threshold 0\.05 in \d+\.\d days/);
    const missing = await memsync(["--store", store, "score", zone, "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d"]);
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /not found: 0192f4c8/);
  });

  test("list and search --scores show each memory's score; the edge build scores too", async () => {
    const store = newStore();
    const fresh = await saveAged(store, "postgres fresh note", 0);
    const old = await saveAged(store, "postgres old note", 30);
    const listed = await memsyncJson(["--store", store, "list", "--scores"]);
    assert.deepEqual(Object.keys(listed.decay_scores).sort(), [fresh, old].sort());
    assert.ok(listed.decay_scores[fresh] > 0.99 && listed.decay_scores[old] < 0.2);
    const found = await memsyncJson(["--store", store, "search", "postgres", "--scores"]);
    assert.deepEqual(Object.keys(found.decay_scores).sort(), found.hits.map((h: { memory: { id: string } }) => h.memory.id).sort());
    assert.ok(Math.abs(found.decay_scores[old] - listed.decay_scores[old]) < 1e-4);
    // the text shows the score to four places (a loaded machine may take long enough between
    // these processes for the fresh memory's score to fall from 1.0000 to 0.9999)
    const line = new RegExp(`^ (\\d\\.\\d{4})  ${fresh}  `, "m").exec((await memsync(["--store", store, "list", "--scores"])).stdout);
    assert.ok(line, "a line with the fresh memory's score");
    assert.ok(Math.abs(Number(line[1]) - listed.decay_scores[fresh]) < 1e-3, line[0]);
    assert.equal((await memsyncJson(["--store", store, "list"])).decay_scores, undefined, "no scores unless asked");
    const edge = await memsync(["--store", store, "score", old, "--json"], { command: [EDGE_BIN] });
    assert.equal(edge.code, 0, edge.stderr);
  });
});

describe("memsync settings", () => {
  test("shows every setting with defaults, one by key; a change is validated and is one commit", async () => {
    const store = newStore();
    const all = (await memsyncJson(["--store", store, "settings"])).settings;
    assert.equal(all["decay.model"], "power_law");
    assert.equal(all["decay.alpha"], 1.1);
    assert.equal(all["decay.half_life_days"], 3);
    assert.equal(all["decay.beta"], 0.6);
    assert.equal(all["decay.fast_weight"], 0.7);
    assert.equal(all.forget_threshold, 0.05);
    assert.equal(all["danger_zone.min"], 0.15);
    assert.equal((await memsync(["--store", store, "settings", "forget_threshold"])).stdout, "0.05\n");
    await memsyncJson(["--store", store, "commit"]);
    const before = commits(store);
    const changed = await memsyncJson(["--store", store, "settings", "forget_threshold", "0.08"]);
    assert.deepEqual(changed.changed, { key: "forget_threshold", from: 0.05, to: 0.08 });
    assert.equal(readMeta(store).settings.forget_threshold, 0.08);
    await memsyncJson(["--store", store, "commit"]);
    assert.equal(commits(store), before + 1);
    assert.deepEqual(lastCommit(store), { subject: "settings: forget_threshold = 0.08", files: [".meta.json"] });
    // a half-life is accepted for a rate
    const rate = (await memsyncJson(["--store", store, "settings", "decay.lambda", "3d"])).changed.to;
    assert.ok(Math.abs(rate - Math.LN2 / (3 * DAY)) < 1e-15);
  });

  test("bad keys and values are refused, exit 4, nothing changed", async () => {
    const store = newStore();
    const before = fs.readFileSync(path.join(store, ".meta.json"), "utf8");
    const bad: [string[], RegExp][] = [
      [["decay.model", "linear"], /decay\.model must be one of power_law, exponential, two_component/],
      [["decay.alpha", "0"], /decay\.alpha/],
      [["decay.fast_weight", "1.5"], /fast_weight must be at most 1/],
      [["forget_threshold", "lots"], /forget_threshold takes a number/],
      [["danger_zone.min", "0.4"], /min < max/],
      [["maintainer", "someone"], /memsync maintainer --claim/],
      [["nope", "1"], /unknown setting "nope"/],
      [["promote.min_uses", "2.5"], /min_uses must be an integer/],
    ];
    // the first through the binary, the rest of the sweep through the same CLI in-process
    for (const [i, [args, message]] of bad.entries()) {
      const r = await memsyncCase(i, ["--store", store, "settings", ...args]);
      assert.equal(r.code, 4, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split("\n").length, 1);
    }
    assert.equal(fs.readFileSync(path.join(store, ".meta.json"), "utf8"), before);
  });

  test("a store whose .meta.json predates these settings works with the defaults", async () => {
    const store = newStore();
    const meta = readMeta(store);
    meta.settings = { layout: "auto", shard_threshold: 1000 };
    fs.writeFileSync(path.join(store, ".meta.json"), `${JSON.stringify(meta, null, 2)}\n`);
    const id = await saveAged(store, "an old store's memory", 1);
    assert.equal((await memsyncJson(["--store", store, "score", id])).settings.decay.model, "power_law");
    assert.equal((await memsyncJson(["--store", store, "settings"])).settings["promote.threshold"], 0.65);
    assert.equal((await memsyncJson(["--store", store, "gc"])).removed.length, 0);
    assert.equal(readMeta(store).settings.decay.model, "power_law", "written in full by the first change");
  });
});

describe("memsync gc", () => {
  test("deletes active memories under the forget threshold with their relations, one commit, last_gc_at recorded", async () => {
    const store = newStore();
    const [keep, keepUsed, old1, old2, promoted, archived] = await saveAgedMany(store, [
      ["used yesterday", 1],
      ["old but used a lot", 60, { use_count: 20 }],
      ["faded note one", 60],
      ["faded note two", 90],
      ["faded but promoted", 90, { status: "promoted" }],
      ["faded and archived", 90, { status: "archived" }],
    ]) as [string, string, string, string, string, string];
    const r1 = (await memsyncJson(["--store", store, "relate", keep, old1])).relation.id;
    const r2 = (await memsyncJson(["--store", store, "relate", old2, keepUsed, "--type", "supports"])).relation.id;
    const r3 = (await memsyncJson(["--store", store, "relate", keep, keepUsed])).relation.id;
    await memsyncJson(["--store", store, "commit"]);
    const before = commits(store);
    const t0 = nowS();
    const out = await memsyncJson(["--store", store, "gc"]);
    assert.deepEqual(out.removed.sort(), [old1, old2].sort());
    assert.deepEqual(out.relations_removed.sort(), [r1, r2].sort());
    assert.equal(out.scanned, 4, "active memories only");
    assert.ok(out.candidates.every((c: { score: number }) => c.score < 0.05));
    for (const id of [keep, keepUsed, promoted, archived]) assert.ok(exists(store, id), id);
    for (const id of [old1, old2]) assert.ok(!exists(store, id), id);
    assert.ok(fs.existsSync(path.join(store, "relations", `${r3}.json`)));
    assert.ok(readMeta(store).last_gc_at >= t0);
    // the index forgot them too: not found, not searched, not dangling, the same after a rebuild
    assert.equal((await memsync(["--store", store, "get", old1])).code, 3);
    assert.equal((await memsyncJson(["--store", store, "search", "faded", "--status", "all"])).total, 2, "only the promoted and the archived one");
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path.join(store, ".memsync/index.db"));
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    assert.deepEqual(
      ["memories", "memory_docs", "memory_fts", "files WHERE kind = 'memory'"].map((t) => count(`SELECT count(*) AS n FROM ${t}`)),
      [4, 4, 4, 4],
      "no row is left of a pruned memory",
    );
    assert.equal(count("SELECT count(*) AS n FROM memory_tags WHERE rid NOT IN (SELECT rid FROM memories)"), 0);
    db.close();
    const status = await memsyncJson(["--store", store, "status"]);
    assert.equal(status.health, "healthy");
    assert.deepEqual([status.memories.total, status.relations.total], [4, 1]);
    await memsyncJson(["--store", store, "reindex"]);
    assert.deepEqual([(await memsyncJson(["--store", store, "status"])).memories.total, (await memsyncJson(["--store", store, "search", "faded", "--status", "all"])).total], [4, 2]);
    await memsyncJson(["--store", store, "commit"]);
    assert.equal(commits(store), before + 1, "one commit");
    const c = lastCommit(store);
    assert.equal(c.subject, "gc: prune 2 memories and 2 relations");
    assert.deepEqual(c.files, [".meta.json", `memories/${old1}.json`, `memories/${old2}.json`, `relations/${r1}.json`, `relations/${r2}.json`].sort());
    assert.equal(git(store, "status", "--porcelain").stdout, "");
    // nothing left to prune: still recorded (a later second, so last_gc_at moves)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
    const again = await memsyncJson(["--store", store, "gc"]);
    assert.equal(again.removed.length, 0);
    await memsyncJson(["--store", store, "commit"]);
    assert.equal(lastCommit(store).subject, "gc: nothing to prune");
  });

  test("memories flat and in shard folders go in one commit, with nothing taken for an edit made outside memsync", async () => {
    const store = newStore();
    const flat = await saveAgedMany(store, [["faded flat one", 60], ["faded flat two", 70]]);
    await memsyncJson(["--store", store, "settings", "layout", "sharded"]);
    const sharded = await saveAgedMany(store, [["faded sharded one", 60], ["faded sharded two", 80], ["kept sharded", 0]]);
    assert.ok(fs.existsSync(path.join(store, "memories", sharded[0]!.slice(-2), `${sharded[0]}.json`)));
    assert.ok(fs.existsSync(path.join(store, "memories", `${flat[0]}.json`)));
    await memsyncJson(["--store", store, "commit"]);
    const before = commits(store);
    const out = await memsyncJson(["--store", store, "gc"]);
    assert.deepEqual(out.removed.sort(), [...flat, sharded[0], sharded[1]].sort());
    const journal = fs.readFileSync(path.join(store, ".memsync/journal.jsonl"), "utf8");
    assert.doesNotMatch(journal, /"op":"edit"/);
    await memsyncJson(["--store", store, "commit"]);
    assert.equal(commits(store), before + 1);
    assert.equal(lastCommit(store).subject, "gc: prune 4 memories");
    assert.equal((await memsyncJson(["--store", store, "status"])).health, "healthy");
  });

  test("--dry-run lists what would go with scores and changes nothing, on any machine", async () => {
    const store = newStore();
    await saveAged(store, "recent", 2);
    const old = await saveAged(store, "faded dry run note", 70);
    await memsyncJson(["--store", store, "maintainer", "--claim"], { env: { MEMSYNC_MACHINE: "laptop" } });
    await memsyncJson(["--store", store, "commit"]);
    const before = synced(store);
    const out = await memsyncJson(["--store", store, "gc", "--dry-run"], { env: { MEMSYNC_MACHINE: "desktop" } });
    assert.equal(out.dry_run, true);
    assert.deepEqual(out.candidates.map((c: { id: string }) => c.id), [old]);
    assert.ok(out.candidates[0].score < 0.05 && out.candidates[0].score > 0);
    assert.deepEqual(out.removed, []);
    const text = (await memsync(["--store", store, "gc", "--dry-run"])).stdout;
    assert.match(text, new RegExp(`^would prune 1 memory of 2 active \\(score under 0.05, power_law\\); nothing changed\\n  ${old}  0\\.0\\d{3}  uses 0  last used \\d{4}-\\d\\d-\\d\\d  faded dry run note\\n$`));
    assert.deepEqual(synced(store), before);
    assert.equal((await memsyncJson(["--store", store, "status"])).uncommitted_changes, 0);
  });

  test("--archive archives instead and keeps their relations; --limit takes the lowest scores first", async () => {
    const store = newStore();
    const [keep, a, b, c] = await saveAgedMany(store, [["kept", 0], ["faded a", 50], ["faded b, the oldest", 200], ["faded c", 100]]) as [string, string, string, string];
    const rel = (await memsyncJson(["--store", store, "relate", keep, a])).relation.id;
    const first = await memsyncJson(["--store", store, "gc", "--archive", "--limit", "2"]);
    assert.equal(first.under_threshold, 3);
    assert.deepEqual(first.removed, [b, c], "the lowest two, lowest first");
    for (const id of [b, c]) assert.equal(record(store, id).status, "archived");
    await memsyncJson(["--store", store, "commit"]);
    assert.equal(record(store, a).status, "active");
    const second = await memsyncJson(["--store", store, "gc", "--archive"]);
    assert.deepEqual(second.removed, [a]);
    assert.ok(fs.existsSync(path.join(store, "relations", `${rel}.json`)), "an archived memory keeps its relations");
    await memsyncJson(["--store", store, "commit"]);
    assert.equal(lastCommit(store).subject, "gc: archive 1 memory");
    assert.equal((await memsyncJson(["--store", store, "gc"])).removed.length, 0, "archived memories are not active: gc leaves them");
  });

  test("the chosen model decides: 20 days unused is kept by the power law, pruned by exponential", async () => {
    const store = newStore();
    const id = await saveAged(store, "twenty days unused", 20);
    assert.equal((await memsyncJson(["--store", store, "gc", "--dry-run"])).candidates.length, 0);
    await memsyncJson(["--store", store, "settings", "decay.model", "exponential"]);
    assert.deepEqual((await memsyncJson(["--store", store, "gc"])).removed, [id]);
  });

  test("an edit is a use for decay: gc keeps a faded memory edited or brought back from the archive a moment ago", async () => {
    const store = newStore();
    const [edited, labelled, restored, left, usage] = await saveAgedMany(store, [["faded, then edited", 90], ["faded, then tagged", 90], ["faded, archived, restored", 90], ["faded, left alone", 90], ["faded, use count set", 90]]) as [string, string, string, string, string];
    await memsyncJson(["--store", store, "update", restored, "--status", "archived"]);
    const t0 = nowS();
    await memsyncJson(["--store", store, "update", edited, "--content", "faded, then edited: the new wording"]);
    await memsyncJson(["--store", store, "update", labelled, "--add-tag", "kept"]);
    await memsyncJson(["--store", store, "update", restored, "--status", "active"]);
    // a usage-only patch is not an edit: it says what the counts are, not that anyone worked on it
    await memsyncJson(["--store", store, "update", usage, "--input", "-"], { input: JSON.stringify({ use_count: 1 }) });
    for (const id of [edited, labelled, restored]) assert.ok(record(store, id).last_used >= t0, "an edit moves last_used to now");
    assert.ok(record(store, usage).last_used < t0 - 80 * DAY);
    const out = await memsyncJson(["--store", store, "gc"]);
    assert.deepEqual([...out.removed].sort(), [left, usage].sort(), "only the memories nobody worked on go");
    for (const id of [edited, labelled, restored]) assert.ok(exists(store, id));
  });

  test("a memory used since the index saw it stays: the file is scored again before it goes", async () => {
    const store = newStore();
    const id = await saveAged(store, "edited in place by a sync", 80);
    await memsyncJson(["--store", store, "list"]);
    // rewrite the file in place as a pull would (same size: the folder's mtime does not move)
    const file = memoryFile(store, id);
    const rec = JSON.parse(fs.readFileSync(file, "utf8"));
    const text = fs.readFileSync(file, "utf8").replace(`"last_used": ${rec.last_used}`, `"last_used": ${nowS()}`);
    fs.writeFileSync(file, text);
    const out = await memsyncJson(["--store", store, "gc"]);
    assert.ok(exists(store, id));
    assert.equal(out.removed.length, 0);
  });

  test("the maintainer role: a second machine is refused (exit 5, nothing changed); --claim-maintainer takes over", async () => {
    const store = newStore();
    const old = await saveAged(store, "faded, for the role test", 90);
    const laptop = { MEMSYNC_MACHINE: "laptop" };
    const desktop = { MEMSYNC_MACHINE: "desktop" };
    const first = await memsync(["--store", store, "gc", "--limit", "0", "--json"], { env: laptop });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(JSON.parse(first.stdout).maintainer.claimed, true, "the first maintenance takes the free role");
    assert.equal(readMeta(store).settings.maintainer, "laptop");
    const old2 = await saveAged(store, "faded, second", 90);
    await memsyncJson(["--store", store, "commit"]);
    const before = synced(store);
    const refused = await memsync(["--store", store, "gc"], { env: desktop });
    assert.equal(refused.code, 5);
    assert.match(refused.stderr, /^memsync: maintenance of this store belongs to machine laptop \(this is desktop\); run it there, or take the role over with --claim-maintainer\n$/);
    assert.deepEqual(synced(store), before);
    const taken = await memsync(["--store", store, "gc", "--claim-maintainer"], { env: desktop });
    assert.equal(taken.code, 0, taken.stderr);
    assert.match(taken.stderr, /this machine \(desktop\) takes maintenance over from laptop/);
    assert.ok(!exists(store, old) && !exists(store, old2));
    assert.equal(readMeta(store).settings.maintainer, "desktop");
    await memsyncJson(["--store", store, "commit"]);
    assert.deepEqual(lastCommit(store), { subject: "gc: prune 1 memory", files: [".meta.json", `memories/${old2}.json`] });
    assert.equal((await memsync(["--store", store, "gc"], { env: laptop })).code, 5, "now the laptop is the other machine");
  });

  // a maintenance command takes the role in its transaction, then finds a named memory gone (a
  // pull deleted it): the role's change to .meta.json went with nothing to name it, never
  // committed, so git status showed it and the clones differed after a sync (kill matrix cell
  // removed / promote / killed at checkout-durable). It is put back with the rest.
  test("a maintenance command that fails after taking the role changes nothing (.meta.json put back)", async () => {
    const store = newStore();
    await saveAged(store, "kept", 1);
    await memsyncJson(["--store", store, "commit"]);
    const before = synced(store);
    const missing = "01234567-89ab-4cde-8f01-23456789abcd";
    const r = await memsync(["--store", store, "promote", missing, "--vault", tempDir(), "--claim-maintainer"], { env: { MEMSYNC_MACHINE: "desktop" } });
    assert.equal(r.code, 3, r.stderr);
    assert.deepEqual(synced(store), before, "no file changed");
    assert.equal(readMeta(store).settings.maintainer, null, "the role not taken");
    assert.equal(git(store, "status", "--porcelain").stdout, "", "git status clean");
  });

  test("bad options are refused before anything changes", async () => {
    const store = newStore();
    await saveAged(store, "faded", 90);
    const before = synced(store);
    const cases = [[["gc", "--limit=-1"], 2], [["gc", "--limit", "many"], 4], [["promote", "not-an-id", "--vault", tempDir()], 4], [["score"], 2]] as const;
    for (const [i, [args, code]] of cases.entries()) {
      const r = await memsyncCase(i, ["--store", store, ...args]);
      assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split("\n").length, 1);
    }
    assert.deepEqual(synced(store), before);
  });

  test("the edge build refuses gc and promote (exit 6) and changes nothing", async () => {
    const store = newStore();
    await saveAged(store, "faded", 90);
    const before = synced(store);
    for (const cmd of [["gc"], ["promote", "--auto", "--vault", tempDir()]]) {
      const r = await memsync(["--store", store, ...cmd], { command: [EDGE_BIN] });
      assert.equal(r.code, 6, r.stderr);
      assert.match(r.stderr, /is maintenance, which this edge build/);
    }
    assert.deepEqual(synced(store), before);
  });
});

describe("memsync promote", () => {
  test("a named memory becomes an Obsidian note (front matter, content, context) and is marked promoted, one commit", async () => {
    const store = newStore();
    const vault = path.join(tempDir(), "vault", "memsync");
    const id = await saveAged(store, "Use cursor pagination for list endpoints: offsets drift when rows are inserted", 1, {
      use_count: 2,
      meta: { tags: ["api", "node.js", "2024"], context: "reviewing the orders API", source: "code review" },
      type: "decision",
      project: "orders",
    });
    await memsyncJson(["--store", store, "commit"]);
    const out = await memsyncJson(["--store", store, "promote", id, "--vault", vault]);
    assert.equal(out.promoted.length, 1);
    const note = out.promoted[0].note as string;
    assert.equal(note, path.join(vault, `use-cursor-pagination-for-list-endpoints-${id.slice(-8)}.md`));
    assert.equal(out.promoted[0].reason, "requested");
    const text = fs.readFileSync(note, "utf8");
    const m = record(store, id);
    assert.equal(m.status, "promoted");
    assert.equal(m.promoted_to, note);
    assert.ok(m.promoted_at >= m.last_used);
    const iso = (s: number) => new Date(s * 1000).toISOString().replace(".000Z", "Z");
    assert.equal(
      text,
      [
        "---",
        `title: "Use cursor pagination for list endpoints: offsets drift when rows are inserted"`,
        `stm_id: "${id}"`,
        `created: "${iso(m.created_at)}"`,
        `last_used: "${iso(m.last_used)}"`,
        `promoted: "${iso(m.promoted_at)}"`,
        "tags:",
        `  - "api"`,
        `  - "node-js"`,
        `  - "_2024"`,
        `type: "decision"`,
        "use_count: 2",
        "strength: 1",
        `project: "orders"`,
        `source: "code review"`,
        "---",
        "",
        "Use cursor pagination for list endpoints: offsets drift when rows are inserted",
        "",
        "## Context",
        "",
        "reviewing the orders API",
        "",
      ].join("\n"),
    );
    await memsyncJson(["--store", store, "commit"]);
    // the first maintenance of a store takes the free maintainer role, in the same commit
    assert.deepEqual(lastCommit(store), { subject: `promote: ${id.slice(-8)} Use cursor pagination for list endpoints: offsets drift…`, files: [".meta.json", `memories/${id}.json`] });
    // promoted memories still show in list and are left alone by gc and by another promote
    const again = await memsyncJson(["--store", store, "promote", id, "--vault", vault]);
    assert.deepEqual(again.promoted, []);
    assert.match(again.skipped[0].reason, /already promoted to /);
  });

  test("--auto: real reinforcement is promoted, a fresh memory is not; --dry-run writes nothing", async () => {
    const store = newStore();
    const vault = path.join(tempDir(), "vault");
    const [fresh, reinforced, burst, faded, fewUses] = await saveAgedMany(store, [
      ["brand new, never used", 0],
      ["used six times, last yesterday", 1, { use_count: 6, created_at: nowS() - 60 * DAY }],
      ["used five times in its first days", 11, { use_count: 5, created_at: nowS() - 12 * DAY }],
      ["used five times long ago", 40, { use_count: 5, created_at: nowS() - 50 * DAY }],
      ["used four times today", 0, { use_count: 4 }],
    ]) as [string, string, string, string, string];
    await memsyncJson(["--store", store, "commit"]);
    const before = synced(store);
    const dry = await memsyncJson(["--store", store, "promote", "--auto", "--dry-run", "--vault", vault]);
    const chosen = Object.fromEntries(dry.promoted.map((p: { id: string; reason: string }) => [p.id, p.reason]));
    assert.deepEqual(chosen, { [reinforced]: "reinforced", [burst]: "burst" });
    assert.ok((await memsyncJson(["--store", store, "score", fresh])).scores[0].score > 0.999, "the fresh one scores 1.0 and still is not chosen");
    assert.ok(!fs.existsSync(vault), "a dry run writes no note");
    assert.deepEqual(synced(store), before);
    const real = await memsyncJson(["--store", store, "promote", "--auto", "--vault", vault]);
    assert.deepEqual(real.promoted.map((p: { id: string }) => p.id).sort(), [reinforced, burst].sort());
    assert.equal(fs.readdirSync(vault).length, 2);
    for (const id of [fresh, faded, fewUses]) assert.equal(record(store, id).status, "active");
    await memsyncJson(["--store", store, "commit"]);
    assert.deepEqual(lastCommit(store), { subject: "promote: 2 memories", files: [".meta.json", `memories/${burst}.json`, `memories/${reinforced}.json`].sort() });
    assert.equal((await memsyncJson(["--store", store, "promote", "--auto", "--vault", vault])).promoted.length, 0, "nothing twice");
  });

  test("never overwrites a user's file of the same name; reuses the note an interrupted promotion left", async () => {
    const store = newStore();
    const vault = tempDir();
    const [a, b] = await saveAgedMany(store, [["Deploy with blue green", 0], ["Rotate the signing keys", 0]]) as [string, string];
    const mine = path.join(vault, `deploy-with-blue-green-${a.slice(-8)}.md`);
    fs.writeFileSync(mine, "my own note, not memsync's\n");
    const left = path.join(vault, `rotate-the-signing-keys-${b.slice(-8)}.md`);
    fs.writeFileSync(left, `---\ntitle: "Rotate the signing keys"\nstm_id: "${b}"\n---\n\npartial\n`);
    const dry = await memsyncJson(["--store", store, "promote", a, b, "--dry-run", "--vault", vault]);
    assert.deepEqual(dry.promoted.map((p: { note: string }) => p.note), [path.basename(mine).replace(".md", "-2.md"), path.basename(left)]);
    const out = await memsyncJson(["--store", store, "promote", a, b, "--vault", vault]);
    assert.equal(fs.readFileSync(mine, "utf8"), "my own note, not memsync's\n");
    assert.equal(out.promoted[0].note, mine.replace(".md", "-2.md"));
    assert.equal(out.promoted[1].note, left);
    assert.equal(out.promoted[1].reused_note, true);
    assert.match(fs.readFileSync(left, "utf8"), /\nRotate the signing keys\n$/);
    assert.deepEqual(fs.readdirSync(vault).sort(), [path.basename(mine), path.basename(mine).replace(".md", "-2.md"), path.basename(left)].sort(), "no temp files left");
  });

  test("the vault comes from --vault or MEMSYNC_VAULT; none is a usage error; a note that cannot be written marks nothing", async () => {
    const store = newStore();
    const id = await saveAged(store, "a memory to promote", 0);
    const none = await memsync(["--store", store, "promote", id]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--vault DIR or set MEMSYNC_VAULT/);
    assert.equal((await memsync(["--store", store, "promote"])).code, 2, "neither ids nor --auto");
    const blocked = path.join(tempDir(), "a-file");
    fs.writeFileSync(blocked, "not a folder");
    const before = synced(store);
    const failed = await memsync(["--store", store, "promote", id, "--vault", path.join(blocked, "vault")]);
    assert.equal(failed.code, 6, failed.stderr);
    assert.match(failed.stderr, /cannot create the vault folder/);
    assert.deepEqual(synced(store), before, "no note, so the memory is not marked");
    assert.equal(record(store, id).status, "active");
    const vault = tempDir();
    const viaEnv = await memsyncJson(["--store", store, "promote", id], { env: { MEMSYNC_VAULT: vault } });
    assert.equal(path.dirname(viaEnv.promoted[0].note), vault);
    assert.equal((await memsync(["--store", store, "promote", "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d", "--vault", vault])).code, 3);
  });
});
