import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { spawnSync } from "node:child_process";
import { BIN, binaryThenInProcess, git, hasCommand, newStore, snapshot } from "../helpers/env.ts";
import { PROSE_MEMORIES } from "../fixtures/prose-memories.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson, saveMany } = binaryThenInProcess();

// Gists made at save and at update, and backfilled in one commit, through the compiled binary.

const LONG = PROSE_MEMORIES[0]!; // about 140 words of prose
const short = (id: string) => id.slice(-8);

async function saveJson(store: string, fields: Record<string, unknown>): Promise<any> {
  return (await memsyncJson(["--store", store, "save", "--input", "-"], { input: JSON.stringify(fields) })).memory;
}

describe("gists at save and update", () => {
  test("a long memory saved without a gist gets one that keeps its entities; a short one gets none", async () => {
    const store = newStore();
    const m = (await memsyncJson(["--store", store, "save", LONG, "-e", "EXPLAIN"])).memory;
    assert.equal(typeof m.gist, "string");
    assert.ok(m.gist.length <= LONG.length * 0.85, m.gist);
    for (const kept of ["EXPLAIN", "src/api/orders/list.ts", "1.2", "400", "30", "v3", "never"]) assert.ok(m.gist.includes(kept), `${kept}: ${m.gist}`);
    assert.equal((await memsyncJson(["--store", store, "save", "Use cursor pagination for the orders API."])).memory.gist, null);
    assert.equal((await memsyncJson(["--store", store, "save", LONG, "--gist", "cursor pagination for orders"])).memory.gist, "cursor pagination for orders");
    assert.equal((await saveJson(store, { content: LONG, gist: null })).gist, null, "an explicit null is respected");
  });

  test("new content without a new gist gets a new gist; a given gist wins", async () => {
    const store = newStore();
    const id = (await memsyncJson(["--store", store, "save", "short text", "--gist", "old gist"])).memory.id;
    const changed = (await memsyncJson(["--store", store, "update", id, "--content", LONG])).memories[0];
    assert.notEqual(changed.gist, "old gist");
    assert.equal(typeof changed.gist, "string");
    assert.ok(changed.gist.includes("src/lib/pagination.ts"));
    const given = (await memsyncJson(["--store", store, "update", id, "--content", `${LONG} Again.`, "--gist", "mine"])).memories[0];
    assert.equal(given.gist, "mine");
    const shortAgain = (await memsyncJson(["--store", store, "update", id, "--content", "a short text now"])).memories[0];
    assert.equal(shortAgain.gist, null);
    // a change that leaves the content alone leaves the gist alone
    await memsyncJson(["--store", store, "update", id, "--gist", "kept"]);
    assert.equal((await memsyncJson(["--store", store, "update", id, "--add-tag", "x"])).memories[0].gist, "kept");
  });
});

describe("backfill-gists", () => {
  test("dry run changes nothing; the backfill is one commit; a second run has nothing to do", async () => {
    const store = newStore();
    const saved = await saveMany(store, [
      ...PROSE_MEMORIES.slice(0, 12).map((content) => ({ content, gist: null })),
      { content: "too short for a gist", gist: null },
      { content: PROSE_MEMORIES[20], gist: "a gist given by hand" },
    ]);
    const ids = saved.slice(0, 12);
    const [tiny, given] = saved.slice(12) as [string, string];
    assert.equal((await memsync(["--store", store, "commit"])).code, 0);

    const before = snapshot(store, (p) => p.startsWith(".memsync") || p.startsWith(".git"));
    const dry = await memsync(["--store", store, "backfill-gists", "--dry-run"]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(dry.stderr, "", "no progress bar when stderr is not a terminal");
    assert.deepEqual(snapshot(store, (p) => p.startsWith(".memsync") || p.startsWith(".git")), before, "a dry run changes no file");
    const dryJson = await memsyncJson(["--store", store, "backfill-gists", "--dry-run"]);
    assert.ok(dryJson.changed.length >= 4, `only ${dryJson.changed.length} of 12 prose memories would get a gist`);
    for (const c of dryJson.changed) {
      assert.ok(ids.includes(c.id));
      assert.ok(c.gist_chars < c.content_chars * 0.86 && c.gist_chars === c.gist.length);
      assert.match(dry.stdout, new RegExp(`${short(c.id)}\\s+${c.content_chars} ->\\s+${c.gist_chars} chars`));
    }
    assert.equal(dryJson.skipped.has_gist, 1);
    assert.equal(dryJson.skipped.too_short, 1);
    assert.equal(dryJson.examined, 14);

    const headBefore = git(store, "rev-parse", "HEAD").stdout.trim();
    const out = await memsync(["--store", store, "backfill-gists", "--json"]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stderr, "");
    const done = JSON.parse(out.stdout);
    assert.deepEqual(done.changed.map((c: any) => c.id), dryJson.changed.map((c: any) => c.id), "the dry run said what the run did");
    for (const c of done.changed) assert.equal((await memsyncJson(["--store", store, "get", c.id])).found[0].memory.gist, c.gist);
    assert.equal((await memsyncJson(["--store", store, "get", tiny])).found[0].memory.gist, null);
    assert.equal((await memsyncJson(["--store", store, "get", given])).found[0].memory.gist, "a gist given by hand");

    const committed = await memsyncJson(["--store", store, "commit"]);
    assert.equal(committed.commits.length, 1, "one backfill, one commit");
    assert.match(committed.commits[0].message, new RegExp(`^backfill-gists: ${done.changed.length} memories \\(moderate\\)$`));
    const files = git(store, "diff", "--name-only", headBefore, "HEAD").stdout.trim().split("\n");
    assert.equal(files.length, done.changed.length);

    assert.equal((await memsyncJson(["--store", store, "backfill-gists"])).changed.length, 0, "nothing left to do");
    const forced = await memsyncJson(["--store", store, "backfill-gists", "--force", "--level", "aggressive"]);
    assert.ok(forced.changed.length > 0);
    for (const c of forced.changed) assert.ok(c.gist_chars <= (done.changed.find((d: any) => d.id === c.id)?.gist_chars ?? c.content_chars));
    assert.equal((await memsyncJson(["--store", store, "get", given])).found[0].memory.gist === "a gist given by hand", false, "--force remakes gists given by hand too");
  });

  test("a progress bar on a terminal's stderr, and none with --json", { skip: !hasCommand("script") && "needs script(1) for a terminal" }, async () => {
    const store = newStore();
    await saveMany(store, PROSE_MEMORIES.slice(0, 5).map((content) => ({ content, gist: null })));
    // script(1) gives the command a terminal; stdout goes to /dev/null, stderr to the terminal
    const onTerminal = (extra: string) =>
      spawnSync("script", ["-qec", `${BIN} --store ${store} backfill-gists --dry-run ${extra} 2>&1 >/dev/null`, "/dev/null"], { encoding: "utf8" }).stdout;
    assert.match(onTerminal(""), /making gists █+ 5\/5/);
    assert.doesNotMatch(onTerminal("--json"), /making gists/);
  });

  test("a bad level is refused and changes nothing", async () => {
    const store = newStore();
    await saveJson(store, { content: PROSE_MEMORIES[1], gist: null });
    const r = await memsync(["--store", store, "backfill-gists", "--level", "extreme"]);
    assert.equal(r.code, 4);
    assert.match(r.stderr, /--level must be one of light, moderate, aggressive/);
    assert.equal((await memsyncJson(["--store", store, "backfill-gists", "--dry-run"])).changed.length, 1);
  });
});
