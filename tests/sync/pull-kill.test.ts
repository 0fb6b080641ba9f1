import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { isTempName } from "../../src/store/atomic-write.ts";
import { binaryThenInProcess, git, readMemoryFile } from "../helpers/env.ts";
import { healthy as healthyStores, hub, killAfter, machine, synced } from "../helpers/hub.ts";
import { makeRng } from "../helpers/rng.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson, saveMany } = binaryThenInProcess();

// A pull writes its files as git's checkout does (no fsync per file, one durable point before
// git's index and the branch move: src/sync/checkout.ts). Killed at any instant, the next command
// finishes it and no acknowledged write is lost; after a crash of the machine (another boot), a
// file of the checkout cut short is written again from history.

const B = { env: { MEMSYNC_MACHINE: "b" } };
const onA = async (dir: string, ...args: string[]) => await memsyncJson(["--store", dir, ...args]);
const onB = async (dir: string, ...args: string[]) => await memsyncJson(["--store", dir, ...args], B);
const withoutTemps = (files: Map<string, string>) => new Map([...files].filter(([rel]) => !isTempName(path.basename(rel))));
const uses = (dir: string, id: string) => readMemoryFile(dir, id).use_count as number;

const healthy = (...dirs: string[]) => healthyStores(dirs, { withStatus: true });

describe("a pull killed at random moments", () => {
  test("SIGKILLed pulls of 20 changed memories: the next command finishes each; every touch made around them counts once", { timeout: 480_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    const b = machine(h.root, "b", h.bare, B.env);
    const ids = await saveMany(a, Array.from({ length: 20 }, (_, i) => `memory number ${i} about pulls that are killed`));
    await onA(a, "sync");
    await onB(b, "sync");
    const base = uses(a, ids[0]!);
    const expected = new Map(ids.map((id) => [id, base]));
    const rng = makeRng(16);
    let killed = 0;
    // kills spread over the whole of a pull: its length measured on a first one, not killed
    let span = 0;
    for (let round = 0; round < 5; round++) {
      await onB(b, "touch", ...ids);
      await onB(b, "sync");
      for (const id of ids) expected.set(id, expected.get(id)! + 1);
      // a touch on a before the pull (committed by it) and one after the kill (found by the next)
      const before = ids[Math.floor(rng() * ids.length)]!;
      await onA(a, "touch", before);
      expected.set(before, expected.get(before)! + 1);
      const t0 = performance.now();
      const code = await killAfter(["--store", a, "pull"], round === 0 ? 600_000 : Math.floor(rng() * span * 0.9));
      // the shortest pull seen so far bounds the delays (the machine's load changes as it runs)
      if (code !== null) span = round === 0 ? performance.now() - t0 : Math.min(span, performance.now() - t0);
      if (code === null) killed++;
      else assert.equal(code, 0, "a pull that was not killed succeeds");
      const after = ids[Math.floor(rng() * ids.length)]!;
      await onA(a, "touch", after);
      expected.set(after, expected.get(after)! + 1);
    }
    await onA(a, "sync");
    await onB(b, "sync");
    await onA(a, "sync");
    for (const d of [a, b]) for (const id of ids) assert.equal(uses(d, id), expected.get(id), `${d}: ${id} counts every touch once`);
    // a pull killed between a temp file and its rename leaves the temp (git ignores it, status
    // lists it, a writer removes it once old): everything else is the same on both machines
    assert.deepEqual(withoutTemps(synced(a)), withoutTemps(synced(b)));
    healthy(a, b, h.bare);
    assert.ok(killed >= 1, `at least one pull was killed (${killed} of 4)`);
    // about 35 processes: 28 s at load 25 (7 rounds of 40 then), over 300 s at load 44 on 2 cores
  });

  test("killed after its files, before its durable point: the next sync finishes it; after a machine crash, a file it cut short is written again", { timeout: 300_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    const b = machine(h.root, "b", h.bare, B.env);
    const ids = await saveMany(a, ["one", "two", "three"].map((t) => `memory ${t}`));
    await onA(a, "sync");
    await onB(b, "sync");
    await onB(b, "touch", ...ids);
    await onB(b, "sync");
    const want = ids.map((id) => uses(b, id));
    // killed with every file written, none of it made durable, git's index and branch not moved
    const r = await memsync(["--store", a, "pull"], { env: { MEMSYNC_FAULT: "checkout-durable" } });
    assert.equal(r.code, -1, r.stderr);
    const intentFile = path.join(a, ".memsync/checkout.json");
    const intent = JSON.parse(fs.readFileSync(intentFile, "utf8"));
    assert.equal(typeof intent.boot, "string", "the intent names the boot it began in");
    // as a crash of the machine would leave it: one file empty, one cut short, the intent from another boot
    fs.writeFileSync(path.join(a, `memories/${ids[0]}.json`), "");
    const second = path.join(a, `memories/${ids[1]}.json`);
    fs.writeFileSync(second, fs.readFileSync(second, "utf8").slice(0, 30));
    fs.writeFileSync(intentFile, `${JSON.stringify({ ...intent, boot: "another-boot" })}\n`);
    await onA(a, "sync");
    ids.forEach((id, i) => assert.equal(uses(a, id), want[i], `memory ${i} as pulled`));
    await onB(b, "sync");
    assert.deepEqual(synced(a), synced(b));
    healthy(a, b, h.bare);
  });

  test("a memory the killed pull brought, deleted before the next sync: the delete stands (the finish does not write it back)", { timeout: 300_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    const b = machine(h.root, "b", h.bare, B.env);
    await onA(a, "sync");
    await onB(b, "sync");
    const [gone, kept] = await saveMany(b, ["memory b wrote that a deletes", "memory b wrote that a keeps"], B);
    await onB(b, "sync");
    // killed with every file written (the new memories are in a's folders), git's branch not moved
    const r = await memsync(["--store", a, "pull"], { env: { MEMSYNC_FAULT: "checkout-durable" } });
    assert.equal(r.code, -1, r.stderr);
    assert.ok(fs.existsSync(path.join(a, ".memsync/checkout.json")), "the killed pull left its intent");
    // a write after the kill sees the pulled memory and deletes it (acknowledged)
    assert.deepEqual((await onA(a, "delete", gone!)).deleted, [gone]);
    await onA(a, "sync");
    await onB(b, "sync");
    for (const dir of [a, b]) {
      assert.equal(fs.existsSync(path.join(dir, `memories/${gone}.json`)), false, `the deleted memory stays deleted in ${dir}`);
      assert.equal(fs.existsSync(path.join(dir, `memories/${kept}.json`)), true, `the other pulled memory is there in ${dir}`);
    }
    assert.deepEqual(synced(a), synced(b));
    healthy(a, b, h.bare);
  });

  test("a relation the killed pull had not yet written, to a memory deleted before the next sync: it goes too (no dangling relation)", { timeout: 300_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    const b = machine(h.root, "b", h.bare, B.env);
    await onA(a, "sync");
    await onB(b, "sync");
    const [from, to] = await saveMany(b, ["memory b relates from", "memory b relates to, that a deletes"], B);
    const rel = (await onB(b, "relate", from!, to!, "--type", "supports")).relation.id as string;
    await onB(b, "sync");
    // killed after the checkout's first file: the two memories come first, the relation is not written yet
    const r = await memsync(["--store", a, "pull"], { env: { MEMSYNC_FAULT: "checkout-file:2" } });
    assert.equal(r.code, -1, r.stderr);
    assert.ok(fs.existsSync(path.join(a, `memories/${to}.json`)), "the memory to delete was written before the kill");
    assert.equal(fs.existsSync(path.join(a, `relations/${rel}.json`)), false, "the relation was not");
    assert.deepEqual((await onA(a, "delete", to!)).deleted, [to]);
    await onA(a, "sync");
    await onB(b, "sync");
    for (const dir of [a, b]) {
      assert.equal(fs.existsSync(path.join(dir, `memories/${to}.json`)), false, `the deleted memory stays deleted in ${dir}`);
      assert.equal(fs.existsSync(path.join(dir, `relations/${rel}.json`)), false, `its relation went with it in ${dir}`);
      assert.equal(fs.existsSync(path.join(dir, `memories/${from}.json`)), true, `the other memory is there in ${dir}`);
    }
    assert.deepEqual(synced(a), synced(b));
    healthy(a, b, h.bare);
  });
});
