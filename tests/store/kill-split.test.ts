import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { memsync, memsyncJson, newStore, tempDir } from "../helpers/env.ts";

// `split` killed between any two of the record files it writes or removes (MEMSYNC_FAULT=record:N,
// src/sync/fault.ts): what the next command finds (and commits as an edit) has every relation's
// ends there and the original's text whole, in the original or in all of its parts. The chaos
// suite (seed 296015801) found a split killed after it had removed the original and copied its
// relations to parts it had not written yet: 21 relations pointing at a part that never came, and
// the original's second half gone with it.

const ORIGINAL = "The billing service keeps invoices in Postgres. The search service indexes products in Elasticsearch nightly.";
const PARTS = ["The billing service keeps invoices in Postgres.", "The search service indexes products in Elasticsearch nightly."];

function memoryTexts(store: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else if (e.name.endsWith(".json")) out.push(JSON.parse(fs.readFileSync(path.join(dir, e.name), "utf8")).content);
    }
  };
  walk(path.join(store, "memories"));
  return out;
}

test("split killed after any record file it changes: no dangling relation, the original's text whole", { timeout: 120_000 }, () => {
  const fixture = newStore();
  const id: string = memsyncJson(["--store", fixture, "save", ORIGINAL]).memory.id;
  for (const [i, other] of ["Invoices are emailed monthly", "Products carry a SKU", "Nightly jobs run at 02:00"].entries()) {
    const o: string = memsyncJson(["--store", fixture, "save", other]).memory.id;
    memsyncJson(["--store", fixture, "relate", ...(i % 2 ? [o, id] : [id, o])]);
  }
  const work = tempDir("memsync-kill-split-");
  const copy = (name: string) => {
    const dir = path.join(work, name);
    fs.cpSync(fixture, dir, { recursive: true });
    return dir;
  };
  const split = (store: string, fault?: string) => memsync(["--store", store, "split", id, "--part", PARTS[0]!, "--part", PARTS[1]!, "--json"], fault ? { env: { MEMSYNC_FAULT: fault } } : {});

  // the whole split: how many record files it changes (each a point a kill can follow)
  const whole = split(copy("whole"));
  assert.equal(whole.code, 0, whole.stderr);
  const done = JSON.parse(whole.stdout);
  const changes = done.parts.length + done.relations_created.length + done.relations_copied.length + done.relations_removed.length + 1;
  assert.ok(changes >= 14, `${changes} record changes`);

  for (let n = 1; n < changes; n++) {
    const store = copy(`kill-${n}`);
    const killed = split(store, `record:${n}`);
    assert.equal(killed.code, -1, `record:${n}: the split was not killed (exit ${killed.code}: ${killed.stderr})`);
    // the next command sees what the killed one left (and takes it as an edit)
    const status = memsyncJson(["--store", store, "status"]);
    assert.deepEqual(status.relations.dangling, [], `record:${n}: relations point at a missing memory`);
    assert.equal(status.health, "healthy", `record:${n}: ${JSON.stringify(status.reasons)}`);
    const texts = memoryTexts(store);
    assert.ok(texts.includes(ORIGINAL) || PARTS.every((p) => texts.includes(p)), `record:${n}: the original's text is not whole: ${JSON.stringify(texts)}`);
  }
});

test("consolidate --apply killed after any record file it changes: no dangling relation, every source's text kept", { timeout: 120_000 }, () => {
  const fixture = newStore();
  const texts = ["Use cursor pagination for list endpoints in the public API; page size defaults to 50", "For list endpoints in the public API use cursor pagination, with a default page size of 50"];
  const ids: string[] = texts.map((t) => memsyncJson(["--store", fixture, "save", t]).memory.id);
  for (const [i, other] of ["Rate limits are 100 requests a minute", "The public API is versioned in the path"].entries()) {
    const o: string = memsyncJson(["--store", fixture, "save", other]).memory.id;
    memsyncJson(["--store", fixture, "relate", ...(i % 2 ? [o, ids[i]!] : [ids[i]!, o])]);
  }
  const work = tempDir("memsync-kill-consolidate-");
  const copy = (name: string) => {
    const dir = path.join(work, name);
    fs.cpSync(fixture, dir, { recursive: true });
    return dir;
  };
  const apply = (store: string, fault?: string) => memsync(["--store", store, "consolidate", "--apply", "--json"], fault ? { env: { MEMSYNC_FAULT: fault } } : {});
  const whole = apply(copy("whole"));
  assert.equal(whole.code, 0, whole.stderr);
  assert.equal(JSON.parse(whole.stdout).clusters.length, 1, "the two near-duplicates make one cluster");
  let n = 1;
  for (; n < 40; n++) {
    const store = copy(`kill-${n}`);
    const run = apply(store, `record:${n}`);
    if (run.code === 0) break; // past its last record change
    assert.equal(run.code, -1, `record:${n}: exit ${run.code}: ${run.stderr}`);
    const status = memsyncJson(["--store", store, "status"]);
    assert.deepEqual(status.relations.dangling, [], `record:${n}: relations point at a missing memory`);
    const all = memoryTexts(store).join("\n");
    for (const t of texts) assert.ok(all.includes(t), `record:${n}: a source's text is gone`);
  }
  assert.ok(n >= 5, `only ${n - 1} kill points`);
});
