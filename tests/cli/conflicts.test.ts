import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git, newStore, readMemoryFile } from "../helpers/env.ts";
import { hub, machine } from "../helpers/hub.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// Content two machines edited at once: get shows both texts, status counts, conflicts lists,
// resolve settles one in one commit, and the other machine sees the settlement after a sync.
// Real machines (two stores, each its own MEMSYNC_MACHINE) through a bare remote.

const on = (name: string) => ({ env: { MEMSYNC_MACHINE: name } });
const run = async (dir: string, name: string, ...args: string[]) => await memsync(["--store", dir, ...args], on(name));
const runJson = async (dir: string, name: string, ...args: string[]) => await memsyncJson(["--store", dir, ...args], on(name));

/** The record file's bytes (to show a refused command changed nothing). */
function fileOf(dir: string, id: string): string {
  const p = [path.join(dir, "memories", `${id}.json`), path.join(dir, "memories", id.slice(-2), `${id}.json`)].find((x) => fs.existsSync(x))!;
  return fs.readFileSync(p, "utf8");
}

function oneLineError(r: { code: number; stderr: string }, code: number, pattern: RegExp): void {
  assert.equal(r.code, code, r.stderr);
  const lines = r.stderr.split("\n").filter(Boolean);
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, pattern);
}

describe("content conflicts", () => {
  // ~45 processes and 7 syncs: 50 s at load 55, so room for a loaded machine
  test("two machines edit one memory: get, status and conflicts show it; resolve settles it in one commit; the other machine sees that", { timeout: 300_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare, on("laptop").env);
    const b = machine(h.root, "b", h.bare, on("vps").env);
    const id = (await runJson(a, "laptop", "save", "Use offset pagination for the orders API")).memory.id as string;
    const other = (await runJson(a, "laptop", "save", "A memory nobody edits")).memory.id as string;
    await runJson(a, "laptop", "sync");
    await runJson(b, "vps", "sync");
    await runJson(a, "laptop", "update", id, "--content", "Use cursor pagination for the orders API");
    await runJson(b, "vps", "update", id, "--content", "Use keyset pagination for the orders API");
    await runJson(a, "laptop", "sync");
    await runJson(b, "vps", "sync");
    await runJson(a, "laptop", "sync");
    const texts = ["Use cursor pagination for the orders API", "Use keyset pagination for the orders API"];
    const m = readMemoryFile(a, id);
    assert.deepEqual(readMemoryFile(b, id), m, "both machines hold the same record");
    assert.ok(texts.includes(m.content));
    const lost = texts.find((t) => t !== m.content)!;
    assert.deepEqual(m.content_conflicts.map((c: { content: string }) => c.content), [lost]);
    const lostOn = lost.includes("cursor") ? "laptop" : "vps";

    // get: both texts, in text and JSON
    const shown = await run(a, "laptop", "get", id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /CONFLICT: 2 texts/);
    assert.ok(shown.stdout.includes(`current text`) && shown.stdout.includes(m.content));
    assert.ok(shown.stdout.includes(`other text 1 (from ${lostOn}`), shown.stdout);
    assert.ok(shown.stdout.includes(lost));
    assert.doesNotMatch((await run(a, "laptop", "get", other)).stdout, /CONFLICT/);
    assert.deepEqual((await runJson(a, "laptop", "get", id)).found[0].memory.content_conflicts.map((c: { content: string }) => c.content), [lost]);

    // status: counted
    assert.equal((await runJson(a, "laptop", "status")).content_conflicts, 1);
    assert.match((await run(a, "laptop", "status")).stdout, /^content conflicts: 1 memory/m);

    // conflicts: listed with both texts and where the other came from
    const list = await runJson(a, "laptop", "conflicts");
    assert.equal(list.total, 1);
    assert.deepEqual(list.conflicts.map((c: { id: string }) => c.id), [id]);
    assert.equal(list.conflicts[0].short_id, id.slice(-8));
    assert.equal(list.conflicts[0].content, m.content);
    assert.deepEqual(list.conflicts[0].others.map((o: { n: number; content: string; machine: string }) => [o.n, o.content, o.machine]), [[1, lost, lostOn]]);
    const text = await run(a, "laptop", "conflicts");
    assert.equal(text.code, 0);
    for (const s of [id, `(${id.slice(-8)})`, m.content, lost, `from ${lostOn}`]) assert.ok(text.stdout.includes(s), `conflicts shows ${s}:\n${text.stdout}`);

    // bad input: one line, its own exit code, nothing changed
    const before = fileOf(a, id);
    oneLineError(await run(a, "laptop", "resolve", id, "--keep", "ours", "--content", "x"), 2, /either --keep .* or --content/);
    oneLineError(await run(a, "laptop", "resolve", id), 2, /--keep ours\|theirs\|both, or --content/);
    oneLineError(await run(a, "laptop", "resolve", id, "--keep", "mine"), 2, /--keep must be ours, theirs or both/);
    oneLineError(await run(a, "laptop", "resolve", id, "--keep", "theirs", "--pick", "2"), 4, /--pick must be a number from 1 to 1/);
    oneLineError(await run(a, "laptop", "resolve", "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d", "--keep", "ours"), 3, /not found/);
    oneLineError(await run(a, "laptop", "resolve", other, "--keep", "ours"), 4, /has no content conflict/);
    assert.equal(fileOf(a, id), before);
    assert.equal((await runJson(a, "laptop", "commit")).commits.length, 0, "nothing was journaled");

    // resolve by short id, taking the other text: one operation, one commit
    const out = await runJson(a, "laptop", "resolve", id.slice(-8), "--keep", "theirs");
    assert.equal(out.resolution, "theirs");
    assert.equal(out.memory.content, lost);
    const resolved = readMemoryFile(a, id);
    assert.equal(resolved.content, lost);
    assert.equal(resolved.content_conflicts, undefined);
    assert.ok(resolved.updated_at >= m.updated_at);
    const commits = (await runJson(a, "laptop", "commit")).commits;
    assert.equal(commits.length, 1);
    assert.match(commits[0].message, new RegExp(`^resolve: ${id.slice(-8)} took theirs: ${lost}`));
    assert.equal(git(a, "show", "--name-only", "--format=", "HEAD").stdout.trim(), `memories/${id}.json`);
    assert.equal((await runJson(a, "laptop", "conflicts")).total, 0);
    const none = await run(a, "laptop", "conflicts");
    assert.equal(none.code, 0);
    assert.equal(none.stdout, "no conflicts\n");

    // meanwhile the other machine used the memory: the settlement still wins, the use counts
    await runJson(b, "vps", "touch", id);
    await runJson(a, "laptop", "sync");
    await runJson(b, "vps", "sync");
    await runJson(a, "laptop", "sync");
    for (const dir of [a, b]) {
      const r = readMemoryFile(dir, id);
      assert.equal(r.content, lost, dir);
      assert.equal(r.content_conflicts, undefined, dir);
      assert.equal(r.use_count, 1, dir);
    }
    assert.equal((await runJson(b, "vps", "status")).content_conflicts, 0);
    assert.equal((await run(b, "vps", "conflicts")).stdout, "no conflicts\n");
  });

  test("several other texts: theirs needs --pick; both joins them with a blank line; --content sets new text and reads it again", { timeout: 180_000 }, async () => {
    const store = newStore();
    const input = path.join(path.dirname(store), "in.json");
    const saveWith = async (content: string, others: string[], extra: Record<string, unknown> = {}) => {
      fs.writeFileSync(input, JSON.stringify({ content, ...extra, content_conflicts: others.map((c, i) => ({ content: c, updated_at: 1_700_000_000 + i, machine: `m${i + 1}` })) }));
      return (await memsyncJson(["--store", store, "save", "--input", input])).memory.id as string;
    };
    const x = await saveWith("current text", ["second text", "third text"]);
    const y = await saveWith("current text", ["second text", "third text"]);
    const z = await saveWith("current text", ["other text"]);
    const d = await saveWith("We decided to use MySQL for analytics because the team knows it", ["We decided to use Redis for analytics"], {
      type: "decision",
      decision: { what: "MySQL for analytics", why: "the team knows it" },
      entities: ["MySQL", "Redis"],
    });
    await memsyncJson(["--store", store, "commit"]);
    assert.equal((await memsyncJson(["--store", store, "status"])).content_conflicts, 4);

    const before = fileOf(store, x);
    oneLineError(await memsync(["--store", store, "resolve", x, "--keep", "theirs"]), 4, /has 2 other texts: say which with --pick 1\.\.2/);
    oneLineError(await memsync(["--store", store, "resolve", x, "--keep", "both", "--pick", "1"]), 2, /--pick .* with --keep theirs/);
    assert.equal(fileOf(store, x), before);
    const listed = (await memsyncJson(["--store", store, "conflicts"])).conflicts.find((c: { id: string }) => c.id === x);
    assert.deepEqual(listed.others.map((o: { n: number; content: string; machine: string }) => [o.n, o.content, o.machine]), [[1, "second text", "m1"], [2, "third text", "m2"]]);
    assert.equal((await memsyncJson(["--store", store, "resolve", x, "--keep", "theirs", "--pick", "2"])).memory.content, "third text");

    const both = await memsyncJson(["--store", store, "resolve", y, "--keep", "both"]);
    assert.equal(both.memory.content, "current text\n\nsecond text\n\nthird text");
    assert.equal(readMemoryFile(store, y).content_conflicts, undefined);

    const kept = await memsyncJson(["--store", store, "resolve", z, "--keep", "ours"]);
    assert.equal(kept.memory.content, "current text");
    assert.equal(readMemoryFile(store, z).content_conflicts, undefined);

    // --content: the decision and entities are read from the new text (as update does)
    const set = await memsyncJson(["--store", store, "resolve", d, "--content", "We decided to use PostgreSQL for analytics because we need JSONB"]);
    assert.equal(set.resolution, "content");
    const rec = readMemoryFile(store, d);
    assert.match(rec.decision.what, /postgresql/i);
    assert.match(rec.decision.why, /jsonb/i);
    const names = rec.entities.map((e: string) => e.toLowerCase());
    assert.ok(names.includes("postgresql"), JSON.stringify(rec.entities));
    assert.ok(!names.includes("mysql") && !names.includes("redis"), JSON.stringify(rec.entities));
    assert.equal(rec.content_conflicts, undefined);
    const messages = (await memsyncJson(["--store", store, "commit"])).commits.map((c: { message: string }) => c.message);
    assert.deepEqual(messages.filter((s: string) => s.startsWith("resolve:")).map((s: string) => s.split(" ").slice(2, 4).join(" ")), ["took theirs:", "joined both:", "kept ours:", "new content:"]);
  });
});
