import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkEffects, type CloneRecords, doubleCounted } from "./checks.ts";
import type { OpKind, OpRecord } from "./harness.ts";
import { codeOfStatus, disagrees, lostToKill } from "./serve-clone.ts";

// The chaos checks on made-up logs: a real loss must be reported, and what the rules allow (an
// edit a later edit replaced after seeing it, a delete undone by a concurrent use) must not be.
// Times are seconds here (the checks only compare them).

const M = "01a20b58-ccce-76a8-8173-2b84eaeff707";
const N = "01a20b58-cdec-7331-ac21-a1953e72b664";
const REL = "01a20b59-2cc5-7196-900b-57c855c22638";
const S = "01a20b5a-0000-7000-8000-000000000001"; // a successor (consolidation or split)
const LIN = "01a20b5a-0000-7000-8000-0000000000aa"; // its lineage relation
const names = ["local-0", "local-1"];
let seq = 0;

function op(clone: number, kind: OpKind, start: number, end: number, extra: Partial<OpRecord> = {}): OpRecord {
  return { seq: ++seq, clone, kind, args: [], start, end, code: 0, signal: null, killed: false, hung: false, burst: false, phase: "chaos", stdout: "", stderr: "", ...extra };
}
const saved = (id = M, content = "first") => op(0, "save", -2, -1, { memory: id, content, phase: "setup" });
const memory = (use_count: number, content = "first", more: Record<string, unknown> = {}) => ({ id: M, content, use_count, status: "active", ...more });
const both = (m: Record<string, unknown> | null, rels: Record<string, unknown> = {}): CloneRecords[] =>
  names.map(() => ({ memories: new Map(m ? [[String(m.id), m]] : []), relations: new Map(Object.entries(rels)) }));
const checks = (states: CloneRecords[], records: OpRecord[]) => checkEffects(names, states, records).map((f) => f.check);

describe("chaos checks", () => {
  test("use_count: a touch lost in the same second is reported, an exact count passes, an extra count is reported", () => {
    const log = [saved(), op(0, "touch", 1, 2, { memory: M }), op(1, "touch", 1, 2, { memory: M }), op(1, "touch", 3, 4, { memory: M, code: 6 })];
    assert.deepEqual(checks(both(memory(1)), log), ["use_count"]);
    assert.deepEqual(checks(both(memory(2)), log), []);
    assert.deepEqual(checks(both(memory(3)), log), ["use_count"]);
    const f = checkEffects(names, both(memory(1)), log)[0]!;
    assert.equal(f.lost, 1);
    assert.match(f.message, /expected 2 .*found local-0, local-1: 1; 1 touches not acknowledged \(exit 6\)/);
  });

  test("use_count: one clone behind is named", () => {
    const log = [saved(), op(0, "touch", 1, 2, { memory: M })];
    const states = both(memory(1));
    states[1]!.memories.set(M, memory(0));
    assert.match(checkEffects(names, states, log)[0]!.message, /found local-0: 1; local-1: 0/);
  });

  test("content: an edit replaced by a later edit that had seen it passes; one replaced unseen is lost unless kept as a conflict", () => {
    const seen = [saved(), op(0, "update", 10, 11, { memory: M, content: "E1" }), op(0, "sync", 12, 13), op(1, "sync", 14, 15), op(1, "update", 16, 17, { memory: M, content: "E2" })];
    assert.deepEqual(checks(both(memory(0, "E2")), seen), []);
    const unseen = [saved(), op(0, "update", 10, 11, { memory: M, content: "E1" }), op(1, "update", 10.5, 11.5, { memory: M, content: "E2" })];
    assert.deepEqual(checks(both(memory(0, "E2")), unseen), ["content"]);
    assert.deepEqual(checks(both(memory(0, "E2", { content_conflicts: [{ content: "E1", updated_at: 1, machine: "m0" }] })), unseen), []);
    // the same clone's later edit replaces it
    const same = [saved(), op(0, "update", 10, 11, { memory: M, content: "E1" }), op(0, "update", 12, 13, { memory: M, content: "E2" })];
    assert.deepEqual(checks(both(memory(0, "E2")), same), []);
  });

  test("content: an edit acknowledged while its clone synced, then gone with no later edit, is lost", () => {
    const log = [saved(), op(0, "sync", 9, 14), op(0, "update", 10, 11, { memory: M, content: "E1" }), op(0, "sync", 20, 21), op(1, "sync", 22, 23)];
    assert.deepEqual(checks(both(memory(0, "first")), log), ["content"]);
    assert.deepEqual(checks(both(memory(0, "E1")), log), []);
  });

  test("content: a sync that may have carried the edit counts as seen (killed syncs included)", () => {
    const log = [saved(), op(0, "update", 10, 11, { memory: M, content: "E1" }), op(0, "sync", 12, 12.1, { code: null, signal: "SIGKILL", killed: true }), op(1, "sync", 12.05, 13, { code: 6 }), op(1, "update", 14, 15, { memory: M, content: "E2" })];
    assert.deepEqual(checks(both(memory(0, "E2")), log), []);
  });

  test("deleted: back after a concurrent use elsewhere passes; back when the deleting clone had seen every use is reported", () => {
    const concurrent = [saved(N), op(1, "touch", 10, 11, { memory: N }), op(0, "delete", 10, 11, { memory: N })];
    const present = both({ id: N, content: "first", use_count: 1, status: "active" });
    assert.deepEqual(checks(present, concurrent), []);
    const seenFirst = [saved(N), op(1, "touch", 1, 2, { memory: N }), op(1, "sync", 3, 4), op(0, "sync", 5, 6), op(0, "delete", 7, 8, { memory: N })];
    assert.deepEqual(checks(present, seenFirst), ["deleted"]);
    assert.deepEqual(checks(both(null), seenFirst), []);
    // a killed delete may or may not have happened: neither presence nor absence is a finding
    const killed = [saved(N), op(0, "delete", 7, 8, { memory: N, code: null, signal: "SIGKILL", killed: true })];
    assert.deepEqual(checks(present, killed), []);
    assert.deepEqual(checks(both(null), killed), []);
  });

  test("a clone that cannot sync at the end is not judged; what it acknowledged after its last good sync is not expected elsewhere", () => {
    const log = [saved(), op(1, "sync", 1, 2), op(1, "touch", 3, 4, { memory: M }), op(0, "touch", 3, 4, { memory: M }), op(1, "sync", 5, 6, { code: 1 })];
    const states = both(memory(1));
    states[1]!.memories.clear();
    assert.deepEqual(checkEffects(names, states, log, new Set([1])), []);
    states[0]!.memories.set(M, memory(2));
    assert.deepEqual(checkEffects(names, states, log, new Set([1])), []);
    // a touch acknowledged on the healthy clone is still expected there
    states[0]!.memories.set(M, memory(0));
    const f = checkEffects(names, states, log, new Set([1]));
    assert.deepEqual(f.map((x) => x.check), ["use_count"]);
    assert.match(f[0]!.message, /expected 1\.\.2 .*local-1: not judged.*not judged: final syncs failed/);
  });

  test("saved, related, archived: missing effects are reported", () => {
    const log = [saved(), saved(N, "second"), op(0, "relate", 1, 2, { memory: M, to: N, relation: REL }), op(1, "archive", 3, 4, { memory: M })];
    const ok = names.map(() => ({
      memories: new Map<string, any>([
        [M, memory(0, "first", { status: "archived" })],
        [N, { id: N, content: "second", use_count: 0, status: "active" }],
      ]),
      relations: new Map<string, any>([[REL, {}]]),
    }));
    assert.deepEqual(checks(ok, log), []);
    ok[1]!.memories.delete(N);
    ok[0]!.relations.delete(REL);
    ok[0]!.memories.set(M, memory(0, "first"));
    assert.deepEqual(checks(ok, log).sort(), ["archived", "related", "saved"]);
  });

  // ---- the succession rules (checks 8, 9 and the extended 1, 4), with maintenance on local-0

  const lineage = (type = "consolidated_from", from = S, to = M) => ({ id: LIN, from_memory_id: from, to_memory_id: to, relation_type: type });
  const world = (memories: Record<string, unknown>[], rels: Record<string, unknown>[] = []): CloneRecords[] =>
    names.map(() => ({ memories: new Map(memories.map((m) => [String(m.id), m])), relations: new Map(rels.map((r) => [String(r.id), r])) }));
  const successor = (counts: Record<string, number> = {}, more: Record<string, unknown> = {}) => {
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    return { id: S, content: "merged", use_count: total, status: "active", ...(total ? { counters: { use_count: counts } } : {}), ...more };
  };
  const consolidate = (start: number, end: number, extra: Partial<OpRecord> = {}) => op(0, "consolidate", start, end, { args: ["consolidate", "--apply"], removed: [M], made: [S], ...extra });
  const gc = (start: number, end: number, extra: Partial<OpRecord> = {}) => op(0, "gc", start, end, { args: ["gc"], removed: [M], made: [], ...extra });

  test("saved: gone with a lineage relation and its successor there passes; without the successor or the relation it is lost", () => {
    const log = [saved(), consolidate(5, 6)];
    assert.deepEqual(checks(world([successor()], [lineage()]), log), []);
    assert.deepEqual(checks(world([successor()], [lineage("split_from")]), log), []);
    assert.deepEqual(checks(world([], [lineage()]), log), ["saved"]);
    assert.deepEqual(checks(world([successor()]), log), ["saved"]);
    const f = checkEffects(names, world([], [lineage()]), log)[0]!;
    assert.equal(f.lost, 1);
    assert.match(f.message, /successors named by lineage: .* \(none there\)/);
  });

  test("saved: pruned by gc only when made faded, never touched, and a gc listed it (or was not acknowledged)", () => {
    const faded = () => op(1, "save", 1, 2, { memory: M, content: "old", faded: true });
    assert.deepEqual(checks(world([]), [faded(), gc(5, 6)]), []);
    assert.deepEqual(checks(world([]), [faded(), gc(5, 6, { code: null, signal: "SIGKILL", killed: true, removed: undefined })]), []);
    // not faded, or gc did not list it, or gc --archive, or no gc at all: lost
    assert.deepEqual(checks(world([]), [op(1, "save", 1, 2, { memory: M, content: "new" }), gc(5, 6)]), ["saved"]);
    assert.deepEqual(checks(world([]), [faded(), gc(5, 6, { removed: [] })]), ["saved"]);
    assert.deepEqual(checks(world([]), [faded(), gc(5, 6, { args: ["gc", "--archive"], archive: true })]), ["saved"]);
    assert.deepEqual(checks(world([]), [faded()]), ["saved"]);
    // used once (acknowledged): gc may no longer take it (a concurrent use brings it back)
    assert.deepEqual(checks(world([]), [faded(), op(1, "touch", 3, 4, { memory: M }), gc(5, 6)]), ["saved"]);
    // consolidated with another faded memory, the successor pruned by gc, then the other source
    // touched on a clone that had not seen the consolidation (chaos e6): the gc could not have seen
    // that use, so M went by its rules; a use it could have seen makes the prune a loss
    const other = "01a2288c-4033-75ee-8a26-d72c6ed95408";
    const merged = [faded(), op(1, "save", 1, 2, { memory: other, content: "older", faded: true }), consolidate(3, 4, { removed: [M, other], made: [S], successors: { [M]: [S], [other]: [S] } }), gc(5, 6, { removed: [S] })];
    assert.deepEqual(checks(world([]), [...merged, op(1, "touch", 7, 8, { memory: other })]).filter((c) => c === "saved"), []);
    assert.deepEqual(checks(world([]), [...merged.slice(0, 3), op(0, "touch", 4.5, 4.6, { memory: other }), merged[3]!]).filter((c) => c === "saved"), ["saved", "saved"]);
    // syncs of both clones running across the gc's end and the touch (as in e6): the touch began
    // after the gc had ended, so no sync could have brought it to the gc
    const spanning = [op(1, "sync", 5.5, 9), op(0, "sync", 5.8, 9)];
    assert.deepEqual(checks(world([]), [...merged, ...spanning, op(1, "touch", 7, 8, { memory: other })]).filter((c) => c === "saved"), []);
  });

  test("succession: an edit the consolidation could not have seen must bring the memory back", () => {
    // b edits X while a consolidates it (no sync between): X must be there again
    const concurrent = [saved(), op(1, "update", 10, 11, { memory: M, content: "E1" }), consolidate(10.5, 11.5)];
    assert.deepEqual(checks(world([successor()], [lineage()]), concurrent), ["succession"]);
    assert.deepEqual(checks(world([memory(0, "E1"), successor()], [lineage()]), concurrent), []);
    // a tag or an archive likewise
    const tag = [saved(), op(1, "update", 10, 11, { memory: M, tag: "t7" }), consolidate(10.5, 11.5)];
    assert.deepEqual(checks(world([successor()], [lineage()]), tag), ["succession"]);
    assert.deepEqual(checks(world([successor()], [lineage("split_from")]), [saved(), op(1, "archive", 10, 11, { memory: M }), consolidate(10.5, 11.5, { kind: "split" })]), ["succession"]);
    // the edit reached a by syncs before the consolidation: it went into the successor
    const seen = [saved(), op(1, "update", 10, 11, { memory: M, content: "E1" }), op(1, "sync", 12, 13), op(0, "sync", 14, 15), consolidate(16, 17)];
    assert.deepEqual(checks(world([successor()], [lineage()]), seen), []);
    // gc likewise: an edit gc could not have seen brings the memory back
    const faded = op(1, "save", 1, 2, { memory: M, content: "old", faded: true });
    assert.deepEqual(checks(world([]), [faded, op(1, "update", 10, 11, { memory: M, content: "E1" }), gc(10.5, 11.5)]), ["succession"]);
    // a faded memory consolidated, back by an edit beside its successor, edited again, then pruned
    // by a gc that had seen that edit: gone by gc as the rules allow (found by the long chaos run);
    // by one that could not have seen it, lost
    const back = [faded, consolidate(3, 4), op(1, "update", 10, 11, { memory: M, content: "E1" }), op(1, "sync", 12, 13), op(0, "sync", 14, 15)];
    assert.deepEqual(checks(world([successor()], [lineage()]), [...back, gc(16, 17)]), []);
    assert.deepEqual(checks(world([successor()], [lineage()]), [...back.slice(0, 3), gc(10.5, 11.5)]), ["succession"]);
  });

  test("use_count: a touch carried into a successor that was deleted since may be gone with it; one made after the delete may not", () => {
    // clone 1 touches X; clone 0 consolidates X into S (S carries the use), deletes S; X comes back
    // by an edit from a side that never saw the touch (found by chaos seed 1871883214)
    const log = [saved(), op(1, "touch", 1, 2, { memory: M }), op(1, "sync", 2.5, 3), op(0, "sync", 3.5, 4), op(1, "update", 4.5, 5.5, { memory: M, content: "edited" }), consolidate(5, 6, { successors: { [M]: [S] } }), op(0, "delete", 7, 8, { memory: S })];
    assert.deepEqual(checks(world([memory(0, "edited")]), log), []);
    assert.deepEqual(checks(world([memory(1, "edited")]), log), []);
    // a touch after the delete must still be there
    const after = [...log, op(1, "touch", 9, 10, { memory: M })];
    assert.deepEqual(checks(world([memory(0, "edited")]), after), ["use_count"]);
    assert.deepEqual(checks(world([memory(1, "edited")]), after), []);
    // no delete of the successor: the touch must be counted
    assert.deepEqual(checks(world([memory(0, "edited")]), log.slice(0, -1)), ["use_count"]);
  });

  test("use_count: touches of a memory gone by succession are counted in its successor's X/ streams, once", () => {
    const log = [saved(), op(1, "touch", 1, 2, { memory: M }), op(1, "touch", 3, 4, { memory: M }), op(0, "touch", 3, 4, { memory: M }), consolidate(5, 6)];
    assert.deepEqual(checks(world([successor({ [`${M}/r1`]: 2, [`${M}/r0`]: 1 })], [lineage()]), log), []);
    // one lost in the move
    const f = checkEffects(names, world([successor({ [`${M}/r1`]: 1, [`${M}/r0`]: 1 })], [lineage()]), log);
    assert.deepEqual(f.map((x) => x.check), ["use_count"]);
    assert.equal(f[0]!.lost, 1);
    assert.match(f[0]!.message, /gone by succession/);
    // the successor's own uses are not the source's
    assert.deepEqual(checks(world([successor({ [`${M}/r1`]: 2, r0: 1 })], [lineage()]), log), ["use_count"]);
    // split: every part holds the same streams, counted once; restored beside the successor: once
    const parts = [successor({ [`${M}/r1`]: 2, [`${M}/r0`]: 1 }), { ...successor({ [`${M}/r1`]: 2, [`${M}/r0`]: 1 }), id: N }];
    assert.deepEqual(checks(world(parts, [lineage("split_from"), { ...lineage("split_from", N), id: REL }]), log), []);
    const restored = memory(3, "first", { counters: { use_count: { r1: 2, r0: 1 } } });
    assert.deepEqual(checks(world([restored, successor({ [`${M}/r1`]: 2, [`${M}/r0`]: 1 })], [lineage()]), log), []);
    // counted more often than touched after a succession: a note, not a loss; without a succession
    // an extra count is still a failure (first test)
    const notes: string[] = [];
    assert.deepEqual(checkEffects(names, world([successor({ [`${M}/r1`]: 3, [`${M}/r0`]: 1 })], [lineage()]), log, new Set(), notes).map((x) => x.check), []);
    assert.match(notes.join(), /1 memories, 1 uses over/);
    // a restored memory's uses also in its successor: a note (counted twice), not a loss
    assert.deepEqual(doubleCounted(world([restored, successor({ [`${M}/r1`]: 2 })])[0]!), { memories: 1, uses: 2, ids: [M] });
    assert.deepEqual(doubleCounted(world([successor({ [`${M}/r1`]: 2 })])[0]!), { memories: 0, uses: 0, ids: [] });
  });

  test("labels: an acknowledged tag is on the memory, unless a succession that had seen it took it", () => {
    const log = [saved(), op(1, "update", 1, 2, { memory: M, tag: "t9" })];
    assert.deepEqual(checks(world([memory(0, "first", { meta: { tags: ["t9"] } })]), log), []);
    assert.deepEqual(checks(world([memory(0, "first", { meta: { tags: [] } })]), log), ["labels"]);
  });

  test("related: missing only where a memory it names is gone (then check 8 judges that memory)", () => {
    const log = [saved(), saved(N, "second"), op(0, "relate", 1, 2, { memory: M, to: N, relation: REL }), consolidate(5, 6)];
    const n = { id: N, content: "second", use_count: 0, status: "active" };
    assert.deepEqual(checks(world([n, successor()], [lineage()]), log), []);
    assert.deepEqual(checks(world([n, memory(0)], []), log), ["related"]);
    assert.deepEqual(checks(world([n], []), log), ["saved"]);
  });

  test("saved: a successor deleted since (its lineage relations with it) still accounts for its sources, by the acknowledged output", () => {
    const log = [saved(), consolidate(5, 6, { successors: { [M]: [S] } }), op(1, "delete", 8, 9, { memory: S })];
    assert.deepEqual(checks(world([]), log), []);
    // its touches went with the successor
    assert.deepEqual(checks(world([]), [...log, op(1, "touch", 3, 4, { memory: M })]), []);
    // without the output's word (or with the successor there and no relation): lost
    assert.deepEqual(checks(world([]), [saved(), consolidate(5, 6), op(1, "delete", 8, 9, { memory: S })]), ["saved"]);
  });

  test("deleted: a gc --archive on another clone the deleting clone had not seen may bring it back; one it had seen may not", () => {
    const archived = { id: N, content: "first", use_count: 0, status: "archived" };
    const concurrent = [saved(N), op(0, "gc", 10, 11, { args: ["gc", "--archive"], archive: true, removed: [N] }), op(1, "delete", 10, 11, { memory: N })];
    assert.deepEqual(checks(world([archived]), concurrent), []);
    const seen = [saved(N), op(0, "gc", 1, 2, { args: ["gc", "--archive"], archive: true, removed: [N] }), op(0, "sync", 3, 4), op(1, "sync", 5, 6), op(1, "delete", 7, 8, { memory: N })];
    assert.deepEqual(checks(world([archived]), seen), ["deleted"]);
  });

  test("deleted: a successor back after a use of its source the deleting clone had not seen passes; one it had seen does not", () => {
    const back = world([successor({ [`${M}/r1`]: 1 })], [lineage()]);
    const concurrent = [saved(), consolidate(1, 2, { successors: { [M]: [S] } }), op(0, "sync", 3, 4), op(1, "touch", 5, 6, { memory: M }), op(2 - 1, "sync", 7, 8, { code: 6 }), op(0, "delete", 9, 10, { memory: S })];
    assert.deepEqual(checks(back, concurrent), []);
    const seen = [saved(), consolidate(1, 2, { successors: { [M]: [S] } }), op(1, "touch", 3, 4, { memory: M }), op(1, "sync", 5, 6), op(0, "sync", 7, 8), op(0, "delete", 9, 10, { memory: S })];
    assert.deepEqual(checks(back, seen), ["deleted"]);
  });

  test("related: moved to a successor and copied by its split, with the memory restored, passes; gone with no copy is lost", () => {
    const n = { id: N, content: "second", use_count: 0, status: "active" };
    const P = "01a20b5a-0000-7000-8000-000000000002";
    const log = [saved(), saved(N, "second"), op(0, "relate", 1, 2, { memory: M, to: N, relation: REL, args: ["relate", M, N, "--type", "supports"] }), consolidate(5, 6, { successors: { [N]: [S] }, removed: [N] }), op(0, "split", 7, 8, { successors: { [S]: [P] }, removed: [S], made: [P] })];
    const copy = { id: "01a20b5a-0000-7000-8000-0000000000bb", from_memory_id: M, to_memory_id: P, relation_type: "supports" };
    // N restored (an edit elsewhere) beside the split's part P, which holds the copy
    assert.deepEqual(checks(world([memory(0), n, { ...successor(), id: P }], [copy]), log), []);
    assert.deepEqual(checks(world([memory(0), n, { ...successor(), id: P }], []), log), ["related"]);
  });

  // the serve clone (serve-clone.ts): HTTP writes whose answer a server kill lost
  test("use_count: a touch whose answer a server kill lost may or may not count; an acknowledged one must", () => {
    const lost = { via: "http" as const, code: null, signal: "SIGKILL", unknown: true };
    const log = [saved(), op(0, "touch", 1, 2, { memory: M, via: "http", status: 200 }), op(0, "touch", 1.5, 2.5, { memory: M, ...lost })];
    assert.deepEqual(checks(both(memory(1)), log), []);
    assert.deepEqual(checks(both(memory(2)), log), []);
    assert.deepEqual(checks(both(memory(0)), log), ["use_count"]);
    assert.deepEqual(checks(both(memory(3)), log), ["use_count"]);
    assert.match(checkEffects(names, both(memory(0)), log)[0]!.message, /expected 1\.\.2/);
    // a refused touch (404 from a live server) never counts
    const refused = [saved(), op(0, "touch", 1, 2, { memory: M, via: "http", status: 404, code: 3 })];
    assert.deepEqual(checks(both(memory(1)), refused), ["use_count"]);
  });

  test("content: an update whose answer a server kill lost may have replaced an earlier edit; a refused one may not", () => {
    const lost = [saved(), op(0, "update", 10, 11, { memory: M, content: "E1" }), op(0, "update", 12, 13, { memory: M, content: "E2", via: "http", code: null, signal: "SIGKILL", unknown: true })];
    assert.deepEqual(checks(both(memory(0, "E2")), lost), []);
    const refused = [saved(), op(0, "update", 10, 11, { memory: M, content: "E1" }), op(0, "update", 12, 13, { memory: M, content: "E2", via: "http", status: 400, code: 4 })];
    assert.deepEqual(checks(both(memory(0, "E2")), refused), ["content"]);
  });

  test("content: two acknowledged updates in flight at once on one clone (a server's concurrent requests): either may be last", () => {
    const log = [saved(), op(0, "update", 10, 12, { memory: M, content: "E1", via: "http", status: 200 }), op(0, "update", 11, 13, { memory: M, content: "E2", via: "http", status: 200 })];
    assert.deepEqual(checks(both(memory(0, "E1")), log), []);
    assert.deepEqual(checks(both(memory(0, "E2")), log), []);
    // an edit that had ended before the other began cannot be the one replaced
    const apart = [saved(), op(0, "update", 10, 11, { memory: M, content: "E1" }), op(0, "update", 12, 13, { memory: M, content: "E2" })];
    assert.deepEqual(checks(both(memory(0, "E1")), apart), ["content"]);
  });

  test("serve: a 2xx is an acknowledgement; 5xx or no answer is excused only once the server's kill had begun", () => {
    assert.equal(codeOfStatus(200), 0);
    assert.equal(codeOfStatus(404), 3);
    assert.notEqual(codeOfStatus(500), 0);
    assert.notEqual(codeOfStatus(503), 0);
    assert.equal(lostToKill(10, undefined), false);
    assert.equal(lostToKill(10, 11), false);
    assert.equal(lostToKill(11, 11), true);
    assert.equal(lostToKill(12, 11), true);
  });

  test("serve: the server must agree with the files on a memory's existence while they did not change around the read", () => {
    // a CLI save the server does not find, a delete pulled by a CLI sync it still serves
    assert.equal(disagrees(true, false, true), true);
    assert.equal(disagrees(false, true, false), true);
    assert.equal(disagrees(true, true, true), false);
    assert.equal(disagrees(false, false, false), false);
    // the files changed during the read: either answer is right
    assert.equal(disagrees(true, false, false), false);
    assert.equal(disagrees(false, true, true), false);
    assert.equal(disagrees(true, true, false), false);
  });
});
