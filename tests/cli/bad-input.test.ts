import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fromTemplate, initStore, memsync, memsyncInProcess, memsyncJson, newStore, type Run, snapshot, tempDir } from "../helpers/env.ts";

// Bad input: a clear one-line error, a distinct non-zero exit, and the store byte-for-byte as it
// was. The derived index's WAL side files come and go with every open, so they are not compared.

const EXIT = { usage: 2, not_found: 3, invalid: 4, conflict: 5, unavailable: 6, corrupt: 7 };
const skipVolatile = (rel: string) => rel.endsWith("-wal") || rel.endsWith("-shm");

let ids: { a: string; b: string } | undefined;
/** Two memories and a relation, committed: made once per run of this file, each test gets a copy. */
function fixture() {
  const store = fromTemplate("bad-input fixture", (dir) => {
    initStore(dir);
    const a = memsyncJson(["--store", dir, "save", "first memory", "--tag", "t"]).memory.id;
    const b = memsyncJson(["--store", dir, "save", "second memory"]).memory.id;
    memsyncJson(["--store", dir, "relate", a, b]);
    memsyncJson(["--store", dir, "commit"]);
    ids = { a, b };
  });
  // let the copy settle (its index built, its replica id taken) so only the command under test could change it
  memsyncJson(["--store", store, "commit"]);
  return { store, ...ids! };
}

/**
 * A test's check that a command is refused: its first case runs the compiled binary, the rest of
 * its sweep the same command line in this process (memsyncInProcess), so each kind of refusal is
 * seen from a real process while a sweep costs no process per case.
 */
function refuser() {
  let cases = 0;
  return async (store: string, args: string[], code: number, message: RegExp, input?: string) => {
    const before = snapshot(store, skipVolatile);
    const r = cases++ === 0 ? memsync(["--store", store, ...args], { input }) : await memsyncInProcess(["--store", store, ...args], { input });
    checkRefusal(store, before, args, r, code, message);
  };
}

function checkRefusal(store: string, before: Map<string, string>, args: string[], r: Run, code: number, message: RegExp) {
  assert.equal(r.code, code, `memsync ${args.join(" ").slice(0, 80)} -> ${r.code}: ${r.stderr}`);
  const lines = r.stderr.split("\n").filter((l) => l.length > 0);
  assert.equal(lines.length, 1, `one line on stderr, got: ${r.stderr}`);
  assert.match(lines[0]!, /^memsync: /);
  assert.match(lines[0]!, message);
  assert.deepEqual(snapshot(store, skipVolatile), before, "the store is unchanged");
}

describe("bad input changes nothing", () => {
  test("malformed or wrong-shaped JSON input", async () => {
    const expectRefused = refuser();
    const { store, a } = fixture();
    await expectRefused(store, ["save", "--input", "-"], EXIT.invalid, /malformed JSON/, '{"content": "x",');
    await expectRefused(store, ["save", "--input", "-"], EXIT.invalid, /expected a JSON object/, "[1,2]");
    await expectRefused(store, ["save", "--input", "-"], EXIT.invalid, /content/, '{"content": 42}');
    await expectRefused(store, ["update", a, "--input", "-"], EXIT.invalid, /malformed JSON/, "{nope}");
    await expectRefused(store, ["update", a, "--input", "-"], EXIT.invalid, /use_count/, '{"use_count": -3}');
    await expectRefused(store, ["save", "--input", path.join(tempDir(), "missing.json")], EXIT.invalid, /no such file/);
  });

  test("invalid ids never become paths", async () => {
    const expectRefused = refuser();
    const { store, a } = fixture();
    for (const bad of ["../x", "../../etc/passwd", "", "x".repeat(10_000), `${a}/../../x`, `${a}.json`]) {
      await expectRefused(store, ["get", bad], EXIT.invalid, /invalid id/);
      await expectRefused(store, ["touch", bad], EXIT.invalid, /invalid id/);
      await expectRefused(store, ["delete", bad], EXIT.invalid, /invalid id/);
      await expectRefused(store, ["update", bad, "--content", "x"], EXIT.invalid, /invalid id/);
      await expectRefused(store, ["relate", a, bad], EXIT.invalid, /invalid to id/);
    }
    await expectRefused(store, ["save", "--input", "-"], EXIT.invalid, /invalid id/, JSON.stringify({ id: "../../escape", content: "x" }));
    assert.equal(fs.existsSync(path.join(path.dirname(store), "escape.json")), false);
  });

  test("invalid tags, limits and values", async () => {
    const expectRefused = refuser();
    const { store, a } = fixture();
    await expectRefused(store, ["save", "text", "--tag", "!!!"], EXIT.invalid, /invalid tag/);
    await expectRefused(store, ["save", "text", "--tag", "x".repeat(101)], EXIT.invalid, /longer than 100/);
    const manyTags = Array.from({ length: 51 }, (_, i) => ["--tag", `t${i}`]).flat();
    await expectRefused(store, ["save", "text", ...manyTags], EXIT.invalid, /too many tags/);
    const manyEntities = Array.from({ length: 101 }, (_, i) => ["--entity", `E${i}`]).flat();
    await expectRefused(store, ["save", "text", ...manyEntities], EXIT.invalid, /too many entities/);
    await expectRefused(store, ["save", "-"], EXIT.invalid, /at most 50000 characters/, "x".repeat(50_001));
    await expectRefused(store, ["save", "--input", "-"], EXIT.invalid, /must not be empty/, '{"content": "   "}');
    await expectRefused(store, ["save", "text", "--type", "opinion"], EXIT.invalid, /--type must be one of/);
    await expectRefused(store, ["save", "text", "--confidence", "1.5"], EXIT.invalid, /--confidence/);
    await expectRefused(store, ["update", a, "--status", "deleted"], EXIT.invalid, /--status/);
    await expectRefused(store, ["list", "--since", "yesterday-ish"], EXIT.invalid, /invalid time/);
    await expectRefused(store, ["list", "--limit=-1"], EXIT.usage, /--limit must be ≥ 0/);
    await expectRefused(store, ["list", "--limit", "-1"], EXIT.usage, /--limit must be ≥ 0/);
    await expectRefused(store, ["list", "--limit", "many"], EXIT.invalid, /--limit/);
    // exactly at the limits is fine
    assert.equal(memsync(["--store", store, "save", "-"], { input: "y".repeat(50_000) }).code, 0);
  });

  test("relations to missing memories, duplicates, unknown ids", async () => {
    const expectRefused = refuser();
    const { store, a, b } = fixture();
    const missing = "0190f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";
    await expectRefused(store, ["relate", a, missing], EXIT.not_found, /not found/);
    await expectRefused(store, ["relate", missing, a], EXIT.not_found, /not found/);
    await expectRefused(store, ["relate", a, b], EXIT.conflict, /already exists/);
    await expectRefused(store, ["touch", a, missing], EXIT.not_found, /not found/);
    await expectRefused(store, ["delete", missing], EXIT.not_found, /not found/);
    await expectRefused(store, ["update", missing, "--content", "x"], EXIT.not_found, /not found/);
    await expectRefused(store, ["unrelate", missing], EXIT.not_found, /not found/);
  });

  test("usage errors", async () => {
    const expectRefused = refuser();
    const { store, a } = fixture();
    await expectRefused(store, ["frobnicate"], EXIT.usage, /unknown command/);
    await expectRefused(store, ["save", "x", "--no-such-flag"], EXIT.usage, /Unknown option/);
    await expectRefused(store, ["save"], EXIT.usage, /give the memory text/);
    await expectRefused(store, ["get"], EXIT.usage, /at least one id/);
    await expectRefused(store, ["relate", a], EXIT.usage, /missing required args/);
    await expectRefused(store, ["update", a], EXIT.usage, /nothing to update/);
  });

  test("words named like Object.prototype's members: text is text, such an option is unknown", async () => {
    const expectRefused = refuser();
    const { store } = fixture();
    // the parser keeps options in a plain object: these read an inherited member or set the prototype
    for (const flag of ["--constructor", "--__proto__", "--has-own-property", "--no-constructor"]) {
      await expectRefused(store, ["recall", "x", flag, "y"], EXIT.usage, new RegExp(`Unknown option \`${flag}\``));
    }
    await expectRefused(store, ["recall", "--constructor", "x"], EXIT.usage, /Unknown option `--constructor`/);
    // as positional text they are ordinary words (the short-flag table once answered "constructor")
    // (tags are kept lower-case, without leading or trailing underscores)
    for (const [word, tag] of [["constructor", "constructor"], ["hasOwnProperty", "hasownproperty"], ["__proto__", "proto"]] as const) {
      const saved = memsyncJson(["--store", store, "save", `the ${word} word`, "--tag", word]);
      assert.equal(saved.memory.content, `the ${word} word`);
      assert.deepEqual(saved.memory.meta.tags, [tag]);
      const r = memsync(["--store", store, "recall", word]);
      assert.equal(r.code, 0, r.stderr);
    }
    const after = memsync(["--store", store, "recall", "--", "--constructor"]);
    assert.equal(after.code, 0, after.stderr);
  });

  test("a corrupt file in the store is reported, left untouched, and does not stop the rest", async () => {
    const expectRefused = refuser();
    const { store, a, b } = fixture();
    const bad = path.join(store, "memories", `${a}.json`);
    fs.writeFileSync(bad, '{"id": "truncated', "utf8");
    const invalid = "0190f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7e";
    fs.writeFileSync(path.join(store, "memories", `${invalid}.json`), JSON.stringify({ id: invalid, content: "" }));
    await expectRefused(store, ["update", a, "--content", "fix"], EXIT.corrupt, /malformed JSON/);
    await expectRefused(store, ["touch", a], EXIT.corrupt, /cannot be used/);
    await expectRefused(store, ["delete", a], EXIT.corrupt, /cannot be used/);
    const got = memsync(["--store", store, "get", a, b, "--json"]);
    assert.equal(got.code, EXIT.corrupt);
    assert.equal(JSON.parse(got.stdout).found[0].memory.id, b, "the readable one is still returned");
    assert.equal(memsyncJson(["--store", store, "search", "second"]).total, 1);
    const status = memsyncJson(["--store", store, "status"]);
    assert.equal(status.health, "degraded");
    assert.deepEqual(status.problems.map((p: any) => p.path).sort(), [`memories/${a}.json`, `memories/${invalid}.json`].sort());
    assert.equal(fs.readFileSync(bad, "utf8"), '{"id": "truncated', "never rewritten or deleted");
    assert.equal(memsync(["--store", store, "save", "still works"]).code, 0);
  });

  test("status of a place with no store is unavailable", () => {
    const dir = tempDir();
    const r = memsync(["--store", path.join(dir, "nothing"), "status", "--json"]);
    assert.equal(r.code, EXIT.unavailable);
    const out = JSON.parse(r.stdout);
    assert.equal(out.health, "unavailable");
    assert.match(out.reasons[0], /no memsync store/);
    assert.equal(memsync(["--store", path.join(dir, "nothing"), "get", "0190f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d"]).code, EXIT.unavailable);
    assert.equal(fs.existsSync(path.join(dir, "nothing")), false, "reading never creates a store");
    const store = newStore();
    fs.writeFileSync(path.join(store, ".meta.json"), "{ broken");
    const s = memsync(["--store", store, "status", "--json"]);
    assert.equal(s.code, EXIT.unavailable);
    assert.match(JSON.parse(s.stdout).reasons[0], /\.meta\.json/);
  });

  test("input nested too deep or too large is refused before anything is written", async () => {
    const expectRefused = refuser();
    const { store, a, b } = fixture();
    const dir = tempDir();
    const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
    // 10,000 levels once became a 200 MB record; 100,000 overflowed the stack (exit 1)
    for (const levels of [10_000, 100_000]) {
      const file = path.join(dir, `deep-${levels}.json`);
      fs.writeFileSync(file, `{"content": "deep", "meta": {"x": ${nested(levels)}}}`);
      await expectRefused(store, ["save", "--input", file], EXIT.invalid, /nested deeper than 32 levels/);
      await expectRefused(store, ["update", a, "--input", file], EXIT.invalid, /nested deeper than 32 levels/);
      await expectRefused(store, ["save", "--input", "-"], EXIT.invalid, /nested deeper than 32 levels/, `{"content": "deep", "meta": ${nested(levels)}}`);
    }
    // 32 levels in all is accepted (the record's own object is the first)
    assert.equal(memsync(["--store", store, "save", "--input", "-"], { input: `{"content": "deep enough", "meta": {"x": ${nested(30)}}}` }).code, 0);
    const huge = JSON.stringify({ content: "large", meta: { blob: "y".repeat(1_100_000) } });
    await expectRefused(store, ["save", "--input", "-"], EXIT.invalid, /at most 1048576 bytes/, huge);
    await expectRefused(store, ["update", a, "--input", "-"], EXIT.invalid, /at most 1048576 bytes/, JSON.stringify({ meta: { blob: "y".repeat(1_100_000) } }));
    // a value that parses (32 levels) but makes the record deeper: refused where records are written
    await expectRefused(store, ["relate", a, b, "--type", "supports", "--meta", `x=${nested(32)}`], EXIT.invalid, /relation .* deeper than 32 levels/);
  });

  test("a .meta.json the schema refuses: every command refuses it alike", async () => {
    const { store, a } = fixture();
    const metaPath = path.join(store, ".meta.json");
    const good = JSON.parse(fs.readFileSync(metaPath, "utf8"));
    const broken = [
      { ...good, settings: 5 },
      { ...good, created_at: "yesterday" },
      { ...good, settings: { ...good.settings, decay: { ...good.settings.decay, beta: -1 } } },
    ];
    for (const [i, meta] of broken.entries()) {
      fs.writeFileSync(metaPath, JSON.stringify(meta));
      // the first through the binary, the others through the same CLI in-process
      const runs = [];
      for (const args of [["status"], ["list"], ["get", a], ["search", "memory"], ["touch", a], ["save", "another"], ["update", a, "--content", "x"], ["delete", a]]) {
        runs.push({ args, run: i === 0 ? memsync(["--store", store, ...args]) : await memsyncInProcess(["--store", store, ...args]) });
      }
      const first = runs[0]!.run;
      assert.equal(first.code, EXIT.unavailable, first.stderr);
      assert.match(first.stderr, /store metadata .*\.meta\.json is unusable: /);
      for (const { args, run } of runs) {
        assert.equal(run.code, first.code, `${args[0]}: ${run.stderr}`);
        assert.equal(run.stderr, first.stderr, args[0]!);
      }
    }
    fs.writeFileSync(metaPath, JSON.stringify(good));
    assert.equal(memsync(["--store", store, "touch", a]).code, 0);
  });
});
