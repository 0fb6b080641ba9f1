import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as codec from "../../src/store/codec.ts";
import { mergeTrees, type Versions } from "../../src/sync/merge-tree.ts";

// The path-by-path merge of two machines' changes, with memsync's deletion rules.

const X = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b01";
const Y = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b02";
const C = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b03";
const R = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b04";
const R2 = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b05";

function mem(id: string, over: Record<string, unknown> = {}): string {
  const v = codec.validate("memory", { id, content: `memory ${id.slice(-2)}`, created_at: 1000, last_used: 1000, updated_at: 1000, use_count: 3, ...over });
  if (!v.ok) throw new Error(v.problem);
  return v.text;
}

function rel(id: string, from: string, to: string, type = "related"): string {
  const v = codec.validate("relation", { id, from_memory_id: from, to_memory_id: to, relation_type: type, created_at: 1000 });
  if (!v.ok) throw new Error(v.problem);
  return v.text;
}

const mp = (id: string) => `memories/${id}.json`;
const rp = (id: string) => `relations/${id}.json`;

async function run(changed: Record<string, Versions>, unchanged: string[] = []) {
  const out = await mergeTrees(codec, { changed: new Map(Object.entries(changed)), unchangedMemoryExists: (id) => unchanged.includes(id) });
  const swapped = await mergeTrees(codec, {
    changed: new Map(Object.entries(changed).map(([p, v]) => [p, { base: v.base, ours: v.theirs, theirs: v.ours }])),
    unchangedMemoryExists: (id) => unchanged.includes(id),
  });
  for (const [p, r] of out) assert.equal(swapped.get(p)?.text, r.text, `${p}: the same result whichever side merges`);
  return out;
}

const json = (t: string | null | undefined) => (t ? JSON.parse(t) : null);

describe("mergeTrees", () => {
  test("both sides touched one memory: the counts add up", async () => {
    const out = await run({ [mp(X)]: { base: mem(X), ours: mem(X, { use_count: 5, last_used: 1500 }), theirs: mem(X, { use_count: 4, last_used: 1200 }) } });
    assert.equal(json(out.get(mp(X))!.text).use_count, 6);
    assert.equal(out.get(mp(X))!.how, "merged");
  });

  test("deleted by consolidation while the other side touched it: stays deleted, the usage moves to the successor", async () => {
    const out = await run({
      [mp(X)]: { base: mem(X), ours: null, theirs: mem(X, { use_count: 5, last_used: 2000 }) },
      [mp(C)]: { base: null, ours: mem(C, { use_count: 3, last_used: 1000 }), theirs: null },
      [rp(R)]: { base: null, ours: rel(R, C, X, "consolidated_from"), theirs: null },
    });
    assert.equal(out.get(mp(X))!.text, null);
    assert.equal(out.get(mp(X))!.how, "kept-deleted");
    const c = json(out.get(mp(C))!.text);
    assert.equal(c.use_count, 5, "3 on the successor + the 2 uses the other side added");
    assert.equal(c.last_used, 2000);
    assert.ok(out.get(rp(R))!.text);
  });

  test("deleted by consolidation while the other side edited its content: it comes back beside the successor, relations with it", async () => {
    const out = await run(
      {
        [mp(X)]: { base: mem(X), ours: null, theirs: mem(X, { content: "edited", updated_at: 2000, use_count: 4 }) },
        [mp(C)]: { base: null, ours: mem(C, { use_count: 3 }), theirs: null },
        [rp(R)]: { base: null, ours: rel(R, C, X, "consolidated_from"), theirs: null },
        [rp(R2)]: { base: rel(R2, X, Y), ours: null, theirs: rel(R2, X, Y) },
      },
      [Y],
    );
    assert.equal(out.get(mp(X))!.how, "restored");
    assert.equal(json(out.get(mp(X))!.text).content, "edited");
    assert.equal(json(out.get(mp(C))!.text).use_count, 3, "the successor takes no usage of a memory that stays");
    assert.ok(out.get(rp(R))!.text, "the successor still names it");
    assert.equal(out.get(rp(R2))!.text, rel(R2, X, Y), "its relation removed with it is back");
  });

  test("split while the other side edited only labels: a change beyond usage, it comes back as that side has it", async () => {
    const edited = mem(X, { meta: { tags: ["t"] }, updated_at: 2000 });
    const out = await run({
      [mp(X)]: { base: mem(X), ours: edited, theirs: null },
      [mp(C)]: { base: null, ours: null, theirs: mem(C) },
      [rp(R)]: { base: null, ours: null, theirs: rel(R, C, X, "split_from") },
    });
    assert.equal(out.get(mp(X))!.text, edited);
    assert.equal(out.get(mp(X))!.how, "restored");
    assert.ok(out.get(rp(R))!.text, "the successor still names it");
  });

  test("split while the other side changed only usage fields (counts, times, strength, review): the split stands", async () => {
    const out = await run({
      [mp(X)]: { base: mem(X), ours: mem(X, { use_count: 2, last_used: 2500, strength: 1.1, review_priority: 0.5, last_review_at: 2400 }), theirs: null },
      [mp(C)]: { base: null, ours: null, theirs: mem(C) },
      [rp(R)]: { base: null, ours: null, theirs: rel(R, C, X, "split_from") },
    });
    assert.equal(out.get(mp(X))!.text, null);
    assert.equal(out.get(mp(X))!.how, "kept-deleted");
  });

  test("split while the other side touched it: every part gets the usage", async () => {
    const out = await run({
      [mp(X)]: { base: mem(X), ours: mem(X, { use_count: 4, last_used: 2500 }), theirs: null },
      [mp(C)]: { base: null, ours: null, theirs: mem(C, { use_count: 3, last_used: 2000 }) },
      [mp(Y)]: { base: null, ours: null, theirs: mem(Y, { use_count: 3, last_used: 2000 }) },
      [rp(R)]: { base: null, ours: null, theirs: rel(R, C, X, "split_from") },
      [rp(R2)]: { base: null, ours: null, theirs: rel(R2, Y, X, "split_from") },
    });
    assert.equal(out.get(mp(X))!.text, null);
    for (const id of [C, Y]) {
      assert.equal(json(out.get(mp(id))!.text).use_count, 4);
      assert.equal(json(out.get(mp(id))!.text).last_used, 2500);
    }
  });

  test("deleted by gc while the other side touched it: it comes back, with the relations gc took with it", async () => {
    const out = await run(
      {
        [mp(X)]: { base: mem(X), ours: null, theirs: mem(X, { use_count: 4, last_used: 3000 }) },
        [rp(R)]: { base: rel(R, X, Y), ours: null, theirs: rel(R, X, Y) },
      },
      [Y],
    );
    assert.equal(out.get(mp(X))!.how, "restored");
    assert.equal(json(out.get(mp(X))!.text).use_count, 4);
    assert.equal(out.get(rp(R))!.how, "restored");
    assert.equal(out.get(rp(R))!.text, rel(R, X, Y));
  });

  test("a delete the other side did not touch is clean; delete/delete is clean", async () => {
    const out = await run({
      [mp(X)]: { base: mem(X), ours: null, theirs: mem(X) },
      [mp(Y)]: { base: mem(Y), ours: null, theirs: null },
    });
    assert.equal(out.get(mp(X))!.text, null);
    assert.equal(out.get(mp(Y))!.text, null);
    assert.ok([...out.values()].every((r) => r.clean));
  });

  test("a relation added to a memory the other side deleted goes with it", async () => {
    const out = await run({
      [mp(Y)]: { base: mem(Y), ours: null, theirs: mem(Y) },
      [rp(R2)]: { base: null, ours: null, theirs: rel(R2, X, Y) },
    }, [X]);
    assert.equal(out.get(rp(R2))!.text, null);
  });

  test("a relation one side kept dangling (delete --keep-relations), edited on the other: stays, with the edit", async () => {
    const edited = rel(R, X, Y, "supports");
    const out = await run({
      [mp(X)]: { base: mem(X), ours: null, theirs: mem(X) },
      [rp(R)]: { base: rel(R, X, Y), ours: rel(R, X, Y), theirs: edited },
    }, [Y]);
    assert.equal(out.get(rp(R))!.text, edited);
  });

  test("a relation dangling since the base, edited on one side: stays", async () => {
    const edited = rel(R, X, Y, "supports");
    const out = await run({ [rp(R)]: { base: rel(R, X, Y), ours: edited, theirs: rel(R, X, Y) } }, [Y]);
    assert.equal(out.get(rp(R))!.text, edited);
  });

  test("a relation deleted with its memory (no --keep-relations), edited on the other side: goes", async () => {
    const out = await run({
      [mp(X)]: { base: mem(X), ours: null, theirs: mem(X) },
      [rp(R)]: { base: rel(R, X, Y), ours: null, theirs: rel(R, X, Y, "supports") },
    }, [Y]);
    assert.equal(out.get(rp(R))!.text, null);
  });

  test("add/add of one id merges with an empty base; content edited on both keeps both texts", async () => {
    const out = await run({
      [mp(X)]: { base: null, ours: mem(X, { use_count: 1 }), theirs: mem(X, { use_count: 2 }) },
      [mp(Y)]: { base: mem(Y), ours: mem(Y, { content: "ours", updated_at: 2000 }), theirs: mem(Y, { content: "theirs", updated_at: 2500 }) },
    });
    assert.equal(json(out.get(mp(X))!.text).use_count, 3);
    const y = json(out.get(mp(Y))!.text);
    assert.equal(y.content, "theirs");
    assert.deepEqual(y.content_conflicts.map((c: { content: string }) => c.content), ["ours"]);
    assert.ok(!out.get(mp(Y))!.text!.includes("<<<<<<<"));
  });
  test("a relation added while the other side merged its memory away and then split or merged the successor again: it moves to the memory it lives on in, not dropped", async () => {
    const A = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b11";
    const S = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b12";
    const P1 = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b14";
    const P2 = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b13";
    const T = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b15";
    const lineage = (id: string, from: string, to: string, type: string) => ({ base: null, ours: null, theirs: rel(id, from, to, type) });
    // theirs: X merged into S, then S split into P1 and P2; ours: a relation A -> X
    const split = await run({
      [mp(X)]: { base: mem(X), ours: mem(X), theirs: null },
      [mp(P1)]: { base: null, ours: null, theirs: mem(P1) },
      [mp(P2)]: { base: null, ours: null, theirs: mem(P2) },
      [rp(R)]: { base: null, ours: rel(R, A, X, "supports"), theirs: null },
      [rp("0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b21")]: lineage("0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b21", S, X, "consolidated_from"),
      [rp("0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b22")]: lineage("0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b22", P1, S, "split_from"),
      [rp("0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b23")]: lineage("0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b23", P2, S, "split_from"),
    }, [A]);
    const moved = json(split.get(rp(R))!.text);
    assert.ok(moved, "the relation was dropped");
    assert.deepEqual([moved.from_memory_id, moved.to_memory_id, moved.relation_type], [A, P2, "supports"], "to the first part by id");
    // theirs: X merged into S, S merged into T
    const chain = await run({
      [mp(X)]: { base: mem(X), ours: mem(X), theirs: null },
      [mp(T)]: { base: null, ours: null, theirs: mem(T) },
      [rp(R)]: { base: null, ours: rel(R, X, A, "causes"), theirs: null },
      [rp("0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b21")]: lineage("0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b21", S, X, "consolidated_from"),
      [rp("0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b24")]: lineage("0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b24", T, S, "consolidated_from"),
    }, [A]);
    const onT = json(chain.get(rp(R))!.text);
    assert.ok(onT, "the relation was dropped");
    assert.deepEqual([onT.from_memory_id, onT.to_memory_id], [T, A]);
  });
});
