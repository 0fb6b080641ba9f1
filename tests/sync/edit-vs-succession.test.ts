import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { memsync, memsyncJson } from "../helpers/env.ts";
import { healthy, hub, machine, synced } from "../helpers/hub.ts";

// An acknowledged content edit on one clone, while the other consolidates (--apply) or splits the
// same memory, through the binary: two clones of a bare remote, both sync orders. The edit is never
// lost: the edited memory stays beside the successors, which still name it (consolidated_from /
// split_from), with its relations. So is a label or status edit (tags, category, importance,
// archive): anything beyond usage. A use only (touch) still moves to the successors. Both clones
// end with the same files.

const A = { MEMSYNC_MACHINE: "a" };
const B = { MEMSYNC_MACHINE: "b" };
const EDIT = "edited on a: cursor pagination, page size 100 since the March change";
const NOTES = [
  "Use cursor pagination for list endpoints in the public API; page size defaults to 50",
  "For list endpoints in the public API use cursor pagination, with a default page size of 50",
];
const PART1 = "first part, split on b";
const PART2 = "second part, split on b";

const on = (dir: string, env: Record<string, string>, args: string[]) => memsyncJson(["--store", dir, ...args], { env });
const C = { MEMSYNC_MACHINE: "c" };
const envOf = (dir: string) => ({ a: A, b: B, c: C })[path.basename(dir)]!;
const syncOf = (dir: string) => on(dir, envOf(dir), ["sync"]);

function read(dir: string, id: string): any {
  const p = [path.join(dir, "memories", `${id}.json`), path.join(dir, "memories", id.slice(-2), `${id}.json`)].find((x) => fs.existsSync(x));
  return p ? JSON.parse(fs.readFileSync(p, "utf8")) : null;
}
const relations = (dir: string): any[] =>
  [...synced(dir)].filter(([rel]) => rel.startsWith("relations/")).map(([, b64]) => JSON.parse(Buffer.from(b64, "base64").toString()));

/** Two clones a and b of one store holding X, Y (near duplicates) and Z, with X -> Z related. */
function world() {
  const h = hub();
  const a = machine(h.root, "a", h.bare, A);
  const b = machine(h.root, "b", h.bare, B);
  const [x, y] = NOTES.map((t) => on(a, A, ["save", t]).memory.id as string);
  const z = on(a, A, ["save", "Deploys go out on Tuesdays after the change review"]).memory.id as string;
  const r = on(a, A, ["relate", x!, z, "--type", "supports"]).relation.id as string;
  syncOf(a);
  syncOf(b);
  return { h, a, b, x: x!, y: y!, z, r };
}

/** Both sync, `first` first, then the other again: both have everything. */
function syncAll(first: string, second: string): void {
  syncOf(first);
  syncOf(second);
  syncOf(first);
}

function identical(a: string, b: string): void {
  assert.deepEqual(synced(a), synced(b), "both clones hold the same files");
}

for (const order of ["a first", "b first"] as const) {
  describe(`content edit vs consolidation/split, ${order}`, () => {
    test("a edits X, b consolidates X into a new memory: X stays with a's edit, named by the new memory", () => {
      const w = world();
      on(w.a, A, ["update", w.x, "--content", EDIT]);
      const applied = on(w.b, B, ["consolidate", "--apply", "--claim-maintainer"]).applied;
      assert.equal(applied.length, 1, "b merged X and Y");
      const into = applied[0].into as string;
      order === "a first" ? syncAll(w.a, w.b) : syncAll(w.b, w.a);
      for (const d of [w.a, w.b]) {
        assert.equal(read(d, w.x)?.content, EDIT, `${path.basename(d)}: a's acknowledged edit of X is kept`);
        assert.ok(read(d, into), "the consolidated memory is there");
        assert.equal(read(d, w.y), null, "Y, consolidated and unedited, stays removed");
        assert.ok(relations(d).some((r) => r.from_memory_id === into && r.to_memory_id === w.x && r.relation_type === "consolidated_from"), "the new memory still names X (lineage)");
      }
      identical(w.a, w.b);
      healthy([w.a, w.b, w.h.bare], { withStatus: true });
    });

    test("a touches X, b consolidates it: X stays removed, the use moves to the new memory", () => {
      const w = world();
      const before = read(w.a, w.x).use_count + read(w.a, w.y).use_count;
      on(w.a, A, ["touch", w.x]);
      const into = on(w.b, B, ["consolidate", "--apply", "--claim-maintainer"]).applied[0].into as string;
      order === "a first" ? syncAll(w.a, w.b) : syncAll(w.b, w.a);
      for (const d of [w.a, w.b]) {
        assert.equal(read(d, w.x), null, "X, only used on a, stays consolidated");
        assert.equal(read(d, into).use_count, before + 1, "a's use is on the new memory");
      }
      identical(w.a, w.b);
      healthy([w.a, w.b, w.h.bare], { withStatus: true });
    });

    test("a edits X, b splits X: X stays with a's edit and its relation, the parts name it", () => {
      const w = world();
      on(w.a, A, ["update", w.x, "--content", EDIT]);
      const parts = on(w.b, B, ["split", w.x, "--part", PART1, "--part", PART2, "--claim-maintainer"]).parts.map((p: { id: string }) => p.id) as string[];
      order === "a first" ? syncAll(w.a, w.b) : syncAll(w.b, w.a);
      for (const d of [w.a, w.b]) {
        assert.equal(read(d, w.x)?.content, EDIT, `${path.basename(d)}: a's acknowledged edit of X is kept`);
        for (const p of parts) {
          assert.ok(read(d, p), "each part is there");
          assert.ok(relations(d).some((r) => r.from_memory_id === p && r.to_memory_id === w.x && r.relation_type === "split_from"), "each part still names X");
        }
        assert.ok(relations(d).some((r) => r.id === w.r && r.from_memory_id === w.x && r.to_memory_id === w.z), "X -> Z, removed by the split, is back with X");
      }
      identical(w.a, w.b);
      healthy([w.a, w.b, w.h.bare], { withStatus: true });
    });

    test("a touches X, b splits it: X stays removed, every part gets the use", () => {
      const w = world();
      const before = read(w.a, w.x).use_count;
      on(w.a, A, ["touch", w.x]);
      const parts = on(w.b, B, ["split", w.x, "--part", PART1, "--part", PART2, "--claim-maintainer"]).parts.map((p: { id: string }) => p.id) as string[];
      order === "a first" ? syncAll(w.a, w.b) : syncAll(w.b, w.a);
      for (const d of [w.a, w.b]) {
        assert.equal(read(d, w.x), null, "X, only used on a, stays split");
        for (const p of parts) assert.equal(read(d, p).use_count, before + 1, "a's use is on each part");
        assert.ok(!relations(d).some((r) => r.id === w.r), "X -> Z went with X (copied to the parts)");
      }
      identical(w.a, w.b);
      healthy([w.a, w.b, w.h.bare], { withStatus: true });
    });
  });
}

// A label or status change is an acknowledged edit too (anything beyond usage: merge-tree.ts
// changedBeyondUsage): the memory comes back as the editing side has it, in both sync orders.
const OTHER_EDITS = {
  "adds a tag to": { args: (id: string) => ["update", id, "--add-tag", "edited-on-a"], kept: (m: any) => m?.meta?.tags?.includes("edited-on-a") === true },
  "sets the category and importance of": {
    args: (id: string) => ["update", id, "--category", "api-style", "--importance", "critical"],
    kept: (m: any) => m?.category === "api-style" && m?.importance === "critical",
  },
  archives: { args: (id: string) => ["archive", id], kept: (m: any) => m?.status === "archived" },
};
for (const order of ["a first", "b first"] as const) {
  describe(`label/status edit vs consolidation/split, ${order}`, () => {
    for (const [what, edit] of Object.entries(OTHER_EDITS)) {
      test(`a ${what} X, b consolidates X: X stays as a has it, named by the new memory`, () => {
        const w = world();
        on(w.a, A, edit.args(w.x));
        const applied = on(w.b, B, ["consolidate", "--apply", "--claim-maintainer"]).applied;
        assert.equal(applied.length, 1, "b merged X and Y");
        const into = applied[0].into as string;
        order === "a first" ? syncAll(w.a, w.b) : syncAll(w.b, w.a);
        for (const d of [w.a, w.b]) {
          assert.ok(edit.kept(read(d, w.x)), `${path.basename(d)}: a's acknowledged edit of X is kept (${JSON.stringify(read(d, w.x))})`);
          assert.ok(read(d, into), "the consolidated memory is there");
          assert.equal(read(d, w.y), null, "Y, consolidated and unedited, stays removed");
          assert.ok(relations(d).some((r) => r.from_memory_id === into && r.to_memory_id === w.x && r.relation_type === "consolidated_from"), "the new memory still names X");
        }
        identical(w.a, w.b);
        healthy([w.a, w.b, w.h.bare], { withStatus: true });
      });

      test(`a ${what} X, b splits X: X stays as a has it, with its relation, the parts name it`, () => {
        const w = world();
        on(w.a, A, edit.args(w.x));
        const parts = on(w.b, B, ["split", w.x, "--part", PART1, "--part", PART2, "--claim-maintainer"]).parts.map((p: { id: string }) => p.id) as string[];
        order === "a first" ? syncAll(w.a, w.b) : syncAll(w.b, w.a);
        for (const d of [w.a, w.b]) {
          assert.ok(edit.kept(read(d, w.x)), `${path.basename(d)}: a's acknowledged edit of X is kept (${JSON.stringify(read(d, w.x))})`);
          for (const p of parts) assert.ok(relations(d).some((r) => r.from_memory_id === p && r.to_memory_id === w.x && r.relation_type === "split_from"), "each part still names X");
          assert.ok(relations(d).some((r) => r.id === w.r && r.from_memory_id === w.x && r.to_memory_id === w.z), "X -> Z, removed by the split, is back with X");
        }
        identical(w.a, w.b);
        healthy([w.a, w.b, w.h.bare], { withStatus: true });
      });
    }
  });
}

// The same through a pull killed mid-checkout (before any file: checkout-intent) and finished by
// the next command (checkout.ts recoverCheckout): the edit arrives by the killed pull and the
// consolidation/split is made on the old version, or the other way round.
const SUCCESSIONS = {
  consolidate: (w: ReturnType<typeof world>) => ["consolidate", "--apply", "--claim-maintainer"],
  split: (w: ReturnType<typeof world>) => ["split", w.x, "--part", PART1, "--part", PART2, "--claim-maintainer"],
};
for (const [name, args] of Object.entries(SUCCESSIONS)) {
  describe(`edit or use vs ${name}, through a killed pull`, () => {
    test(`b edits X; a's pull of it is killed, a runs ${name} on the old X: b's edit is kept`, () => {
      const w = world();
      on(w.b, B, ["update", w.x, "--content", EDIT]);
      syncOf(w.b);
      const killed = memsync(["--store", w.a, "sync"], { env: { ...A, MEMSYNC_FAULT: "checkout-intent" } });
      assert.equal(killed.code, -1, `killed at checkout-intent: ${killed.stderr}`);
      on(w.a, A, args(w));
      syncAll(w.a, w.b);
      for (const d of [w.a, w.b]) assert.equal(read(d, w.x)?.content, EDIT, `${path.basename(d)}: b's acknowledged edit of X is kept`);
      identical(w.a, w.b);
      healthy([w.a, w.b, w.h.bare], { withStatus: true });
    });

    for (const [what, edit] of Object.entries(OTHER_EDITS)) {
      test(`b ${what} X; a's pull of it is killed, a runs ${name} on the old X: b's edit is kept`, () => {
        const w = world();
        on(w.b, B, edit.args(w.x));
        syncOf(w.b);
        const killed = memsync(["--store", w.a, "sync"], { env: { ...A, MEMSYNC_FAULT: "checkout-intent" } });
        assert.equal(killed.code, -1, `killed at checkout-intent: ${killed.stderr}`);
        on(w.a, A, args(w));
        syncAll(w.a, w.b);
        for (const d of [w.a, w.b]) assert.ok(edit.kept(read(d, w.x)), `${path.basename(d)}: b's acknowledged edit of X is kept (${JSON.stringify(read(d, w.x))})`);
        identical(w.a, w.b);
        healthy([w.a, w.b, w.h.bare], { withStatus: true });
      });
    }

    test(`b touches X; a's pull of it is killed, a runs ${name} on the old X: X stays removed`, () => {
      const w = world();
      on(w.b, B, ["touch", w.x]);
      syncOf(w.b);
      const killed = memsync(["--store", w.a, "sync"], { env: { ...A, MEMSYNC_FAULT: "checkout-intent" } });
      assert.equal(killed.code, -1, `killed at checkout-intent: ${killed.stderr}`);
      on(w.a, A, args(w));
      syncAll(w.a, w.b);
      for (const d of [w.a, w.b]) assert.equal(read(d, w.x), null, `${path.basename(d)}: X, only used on b, stays removed`);
      // b's acknowledged use moved to the successors (as the merge moves it: its stream, qualified by X's id)
      for (const d of [w.a, w.b]) {
        const successors = relations(d).filter((r) => r.to_memory_id === w.x && (r.relation_type === "consolidated_from" || r.relation_type === "split_from")).map((r) => read(d, r.from_memory_id));
        assert.ok(successors.length > 0, `${path.basename(d)}: X has successors`);
        for (const s of successors) {
          const carried = Object.entries(s?.counters?.use_count ?? {}).filter(([k]) => k.startsWith(`${w.x}/`)).reduce((n, [, v]) => n + Number(v), 0);
          assert.equal(carried, 1, `${path.basename(d)}: successor ${s?.id} counts b's use of X (${JSON.stringify(s?.counters ?? null)}, use_count ${s?.use_count})`);
        }
      }
      identical(w.a, w.b);
      healthy([w.a, w.b, w.h.bare], { withStatus: true });
    });

    test(`b runs ${name} on X; a's pull of it is killed, a edits the old X: a's edit is kept`, () => {
      const w = world();
      on(w.b, B, args(w));
      syncOf(w.b);
      const killed = memsync(["--store", w.a, "sync"], { env: { ...A, MEMSYNC_FAULT: "checkout-intent" } });
      assert.equal(killed.code, -1, `killed at checkout-intent: ${killed.stderr}`);
      on(w.a, A, ["update", w.x, "--content", EDIT]);
      syncAll(w.a, w.b);
      for (const d of [w.a, w.b]) assert.equal(read(d, w.x)?.content, EDIT, `${path.basename(d)}: a's acknowledged edit of X is kept`);
      identical(w.a, w.b);
      healthy([w.a, w.b, w.h.bare], { withStatus: true });
    });
  });
}

// A use carried into a successor that the other clone meanwhile consolidated again (found by the
// chaos run with maintenance, seed 5102): b's touch of X reaches X's successor S1 by b's merge
// ("X/+<stream>"); a, not having pulled that, consolidates S1 into S2, then pulls: the merge
// carries S1's usage into S2. X's use must stay X's (its key kept, never "S1/+X/+<stream>":
// keys never nest, core/counters.ts) and be counted once.
test("a use carried into a successor consolidated again meanwhile keeps its key and counts once", () => {
  const w = world();
  on(w.b, B, ["touch", w.x]);
  const first = on(w.a, A, ["consolidate", "--apply", "--claim-maintainer"]);
  const s1 = first.applied.find((c: any) => c.sources.includes(w.x)).into as string;
  syncOf(w.a);
  syncOf(w.b); // b's merge carries its use of X into S1
  on(w.a, A, ["save", `${NOTES[0]} again`]);
  const second = on(w.a, A, ["consolidate", "--apply"]);
  const s2 = second.applied.find((c: any) => c.sources.includes(s1))?.into as string;
  assert.ok(s2, `S1 consolidated again: ${JSON.stringify(second.applied)}`);
  syncAll(w.a, w.b);
  for (const d of [w.a, w.b]) {
    const s = read(d, s2);
    const keys = Object.keys(s?.counters?.use_count ?? {});
    assert.deepEqual(keys.filter((k) => k.split("/").length > 2), [], `${path.basename(d)}: no nested stream key (${JSON.stringify(s?.counters)})`);
    assert.equal(keys.filter((k) => k.startsWith(`${w.x}/`)).length, 1, `${path.basename(d)}: b's use of X is X's (${JSON.stringify(s?.counters)})`);
    assert.equal(s?.use_count, 1, `${path.basename(d)}: counted once`);
  }
  identical(w.a, w.b);
  healthy([w.a, w.b, w.h.bare], { withStatus: true });
});

// A memory brought back beside its successor keeps counting its streams from where the successor
// holds them (found by the chaos run with maintenance, seed 2022872750: a use that had moved to
// the successor was counted anew by the returned memory, so the stream held one value in each
// place with different uses behind it, and any later merge taking the larger lost the difference).
// a uses X twice and consolidates it into S (S carries "X/<a's stream>" = 2); b, not having seen
// those uses, edits X; the edit wins and X comes back: its a-stream must be 2, not b's 0, and a's
// next use makes it 3.
for (const order of ["a first", "b first"] as const) {
  test(`X back beside its successor keeps the uses the successor carries of it (${order})`, () => {
    const w = world();
    on(w.a, A, ["touch", w.x]);
    on(w.a, A, ["touch", w.x]);
    const applied = on(w.a, A, ["consolidate", "--apply", "--claim-maintainer"]).applied;
    const s = applied.find((c: any) => c.sources.includes(w.x))?.into as string;
    assert.ok(s, `a consolidated X: ${JSON.stringify(applied)}`);
    on(w.b, B, ["update", w.x, "--content", EDIT]);
    order === "a first" ? syncAll(w.a, w.b) : syncAll(w.b, w.a);
    const streamOfA = (m: any) => Object.entries(m?.counters?.use_count ?? {}).find(([k]) => k.startsWith("a.")) as [string, number] | undefined;
    const carried = Object.entries(read(w.a, s)?.counters?.use_count ?? {}).filter(([k]) => k.startsWith(`${w.x}/a.`));
    assert.equal(carried.length, 1, `S carries a's stream of X: ${JSON.stringify(read(w.a, s)?.counters)}`);
    assert.equal(carried[0]![1], 2, "both of a's uses");
    for (const d of [w.a, w.b]) {
      const x = read(d, w.x);
      assert.equal(x?.content, EDIT, `${path.basename(d)}: b's edit kept`);
      assert.deepEqual(streamOfA(x), [carried[0]![0].slice(w.x.length + 1), 2], `${path.basename(d)}: X's a-stream as S carries it (${JSON.stringify(x?.counters)})`);
    }
    on(w.a, A, ["touch", w.x]);
    syncAll(w.a, w.b);
    for (const d of [w.a, w.b]) assert.equal(streamOfA(read(d, w.x))?.[1], 3, `${path.basename(d)}: a's third use counts on from 2`);
    identical(w.a, w.b);
    healthy([w.a, w.b, w.h.bare], { withStatus: true });
  });
}

// The same when the return and the carry meet in a later merge (found by the long chaos run): a
// consolidates X into S; c uses X and pulls that (its use moves to S as "X/<c's stream>") but does
// not push yet; b edits X and syncs (X comes back beside S, which does not carry c's use yet). c's
// next sync merges on the consolidation: X arrives from b, S changed on c only, and the relation
// S -> X is unchanged on both sides, so only the store knows it. X's c-stream must still be raised
// to what S carries of it, or c's next use of X counts the same value again and one use is lost.
test("X back beside its successor in a later merge keeps the uses the successor carries of it", () => {
  const w = world();
  const c = machine(w.h.root, "c", w.h.bare, C);
  syncOf(c);
  const applied = on(w.a, A, ["consolidate", "--apply", "--claim-maintainer"]).applied;
  const s = applied.find((x: any) => x.sources.includes(w.x))?.into as string;
  assert.ok(s, `a consolidated X: ${JSON.stringify(applied)}`);
  syncOf(w.a);
  on(c, C, ["touch", w.x]);
  on(c, C, ["pull"]);
  const carried = Object.entries<number>(read(c, s)?.counters?.use_count ?? {}).filter(([k]) => k.startsWith(`${w.x}/c.`));
  assert.equal(carried.length, 1, `S carries c's use of X: ${JSON.stringify(read(c, s)?.counters)}`);
  on(w.b, B, ["update", w.x, "--content", EDIT]);
  syncOf(w.b);
  syncOf(c);
  const streamOfC = (m: any) => Object.entries(m?.counters?.use_count ?? {}).find(([k]) => k.startsWith("c.")) as [string, number] | undefined;
  assert.equal(read(c, w.x)?.content, EDIT, "b's edit kept");
  assert.deepEqual(streamOfC(read(c, w.x)), [carried[0]![0].slice(w.x.length + 1), carried[0]![1]], `X's c-stream as S carries it (${JSON.stringify(read(c, w.x)?.counters)})`);
  on(c, C, ["touch", w.x]);
  syncAll(c, w.b);
  syncOf(w.a);
  for (const d of [w.a, w.b, c]) assert.equal(streamOfC(read(d, w.x))?.[1], carried[0]![1] + 1, `${path.basename(d)}: c's second use counts on`);
  identical(w.a, c);
  identical(w.b, c);
  healthy([w.a, w.b, c, w.h.bare], { withStatus: true });
});

// The same through a killed pull (checkout.ts usageFromSuccessors): b's edit arrives by a pull
// killed before any file; a uses the old X (its a-stream 2 on disk, 1 in the pulled version) and
// consolidates or splits it; the finished pull brings X back with b's edit beside the successors,
// its a-stream at 2 as they carry it.
for (const [name, args] of Object.entries(SUCCESSIONS)) {
  test(`X back by a killed pull beside its ${name} successors keeps the uses they carry of it`, () => {
    const w = world();
    on(w.a, A, ["touch", w.x]);
    syncOf(w.a);
    syncOf(w.b);
    on(w.b, B, ["update", w.x, "--content", EDIT]);
    syncOf(w.b);
    const killed = memsync(["--store", w.a, "sync"], { env: { ...A, MEMSYNC_FAULT: "checkout-intent" } });
    assert.equal(killed.code, -1, `killed at checkout-intent: ${killed.stderr}`);
    on(w.a, A, ["touch", w.x]);
    on(w.a, A, args(w));
    syncAll(w.a, w.b);
    const streamOfA = (m: any) => Object.entries(m?.counters?.use_count ?? {}).find(([k]) => k.startsWith("a.") && !k.includes("/"))?.[1];
    for (const d of [w.a, w.b]) {
      const x = read(d, w.x);
      assert.equal(x?.content, EDIT, `${path.basename(d)}: b's edit kept`);
      assert.equal(streamOfA(x), 2, `${path.basename(d)}: X's a-stream holds both uses (${JSON.stringify(x?.counters)})`);
    }
    identical(w.a, w.b);
    healthy([w.a, w.b, w.h.bare], { withStatus: true });
  });
}

// A plain delete of the old X after a use of it, both after the kill: the delete is what removed
// the file (the last journaled write), and it loses to b's pulled edit as in the merge.
test("b edits X; a's pull of it is killed, a uses then deletes the old X: b's edit is kept", () => {
  const w = world();
  on(w.b, B, ["update", w.x, "--content", EDIT]);
  syncOf(w.b);
  const killed = memsync(["--store", w.a, "sync"], { env: { ...A, MEMSYNC_FAULT: "checkout-intent" } });
  assert.equal(killed.code, -1, `killed at checkout-intent: ${killed.stderr}`);
  on(w.a, A, ["touch", w.x]);
  on(w.a, A, ["delete", w.x]);
  syncAll(w.a, w.b);
  for (const d of [w.a, w.b]) assert.equal(read(d, w.x)?.content, EDIT, `${path.basename(d)}: b's acknowledged edit of X is kept`);
  identical(w.a, w.b);
  healthy([w.a, w.b, w.h.bare], { withStatus: true });
});

// A relation made on one clone while the other consolidates a memory it names moves to the
// consolidated memory under its id, as consolidate moves the relations it finds (found by the
// long chaos run: dropped by the merge, and lost for good once the memory came back by an edit).
for (const order of ["a first", "b first"] as const) {
  test(`a relates Z to X while b consolidates X: the relation moves to the new memory (${order})`, () => {
    const w = world();
    const r = on(w.a, A, ["relate", w.z, w.x, "--type", "causes"]).relation.id as string;
    const applied = on(w.b, B, ["consolidate", "--apply", "--claim-maintainer"]).applied;
    const into = applied.find((c: any) => c.sources.includes(w.x))?.into as string;
    assert.ok(into, `b consolidated X: ${JSON.stringify(applied)}`);
    order === "a first" ? syncAll(w.a, w.b) : syncAll(w.b, w.a);
    for (const d of [w.a, w.b]) {
      const rel = relations(d).find((x) => x.id === r);
      assert.ok(rel, `${path.basename(d)}: a's acknowledged relation is kept`);
      assert.deepEqual([rel.from_memory_id, rel.to_memory_id, rel.relation_type], [w.z, into, "causes"], `${path.basename(d)}: moved to the consolidated memory`);
    }
    identical(w.a, w.b);
    healthy([w.a, w.b, w.h.bare], { withStatus: true });
  });
}

// The same through a killed pull (checkout.ts movedToHeir): b's relation to X arrives by a pull
// killed before any file; a consolidates the old X; the finished pull moves the relation to the
// consolidated memory, as the merge does.
test("b relates Z to X; a's pull of it is killed, a consolidates the old X: the relation moves to the new memory", () => {
  const w = world();
  const r = on(w.b, B, ["relate", w.z, w.x, "--type", "causes"]).relation.id as string;
  syncOf(w.b);
  const killed = memsync(["--store", w.a, "sync"], { env: { ...A, MEMSYNC_FAULT: "checkout-intent" } });
  assert.equal(killed.code, -1, `killed at checkout-intent: ${killed.stderr}`);
  const applied = on(w.a, A, ["consolidate", "--apply", "--claim-maintainer"]).applied;
  const into = applied.find((c: any) => c.sources.includes(w.x))?.into as string;
  assert.ok(into, `a consolidated X: ${JSON.stringify(applied)}`);
  syncAll(w.a, w.b);
  for (const d of [w.a, w.b]) {
    const rel = relations(d).find((x) => x.id === r);
    assert.ok(rel, `${path.basename(d)}: b's acknowledged relation is kept`);
    assert.deepEqual([rel.from_memory_id, rel.to_memory_id], [w.z, into], `${path.basename(d)}: moved to the consolidated memory`);
  }
  identical(w.a, w.b);
  healthy([w.a, w.b, w.h.bare], { withStatus: true });
});
