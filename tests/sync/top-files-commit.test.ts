import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync } from "../helpers/env.ts";
import { healthy, hub, machine, synced } from "../helpers/hub.ts";

// The store's top files (.meta.json, .gitattributes, .gitignore) changed with no journal entry
// naming them are committed by the next sync, as a record folder's hand edit is: chaos seed
// 1251454907 left a clone's .meta.json (its maintainer, recorded by a consolidation killed before
// its entry) uncommitted through every later sync, and the clones' .meta.json differed for good.

const on = (dir: string, extra: Record<string, string> = {}) => ({ env: { MEMSYNC_MACHINE: path.basename(dir), ...extra } });
function ok(dir: string, ...args: string[]): any {
  const r = memsync(["--store", dir, ...args, "--json"], on(dir));
  assert.equal(r.code, 0, `memsync ${args.join(" ")} on ${path.basename(dir)}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
const meta = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, ".meta.json"), "utf8"));

describe("the store's top files through sync", () => {
  test("a maintainer recorded by a consolidation killed before its journal entry is committed and reaches the other clone", { timeout: 120_000 }, () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare, { MEMSYNC_MACHINE: "a" });
    const b = machine(h.root, "b", h.bare, { MEMSYNC_MACHINE: "b" });
    const text = "The deploy pipeline ships with blue green deploys every Friday afternoon";
    ok(a, "save", text);
    ok(a, "save", text + ".");
    ok(a, "sync");
    ok(b, "sync");
    assert.equal(meta(a).settings.maintainer ?? null, null, "no maintainer yet");
    // killed at its first record write: .meta.json already names a, no entry says so
    const killed = memsync(["--store", a, "consolidate", "--apply", "--threshold", "0.05"], on(a, { MEMSYNC_FAULT: "record" }));
    assert.equal(killed.code, -1, `the consolidation was killed: ${killed.stderr}`);
    assert.equal(meta(a).settings.maintainer, "a");
    ok(a, "sync");
    ok(b, "sync");
    assert.equal(meta(b).settings.maintainer, "a", "the other clone knows the maintainer");
    assert.deepEqual(synced(a), synced(b));
    healthy([a, b, h.bare]);
  });

  test("a hand edit of .meta.json's settings is committed by a sync (not only by the commit command)", { timeout: 120_000 }, () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare, { MEMSYNC_MACHINE: "a" });
    const b = machine(h.root, "b", h.bare, { MEMSYNC_MACHINE: "b" });
    ok(a, "save", "The staging database is refreshed from production every Monday");
    ok(a, "sync");
    ok(b, "sync");
    const m = meta(a);
    m.settings.maintainer = "a";
    fs.writeFileSync(path.join(a, ".meta.json"), `${JSON.stringify(m, null, 2)}\n`);
    ok(a, "sync");
    assert.equal(git(a, "status", "--porcelain").stdout, "", "nothing left uncommitted");
    ok(b, "sync");
    assert.equal(meta(b).settings.maintainer, "a");
    healthy([a, b, h.bare]);
  });
});
