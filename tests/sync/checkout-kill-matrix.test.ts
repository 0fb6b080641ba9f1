import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, memsync as processRun, REPO, type Run } from "../helpers/env.ts";
import { healthy, hub, machine as storeOn, synced } from "../helpers/hub.ts";

// Every command a user may run on a clone whose sync was killed mid-checkout, before the next
// command finishes that checkout (checkout.ts recoverCheckout), on a memory or relation the killed
// pull added, changed or removed. After a sync on each clone, the command's effect holds, or loses
// to the other clone's change only where the merge without a kill makes it lose (said per row);
// nothing the other clone wrote is lost; both clones are identical and healthy.
//
// Through the binary: its first run of each command, every killed one; the rest in-process
// (tests/helpers/env.ts). With MEMSYNC_BIN set (another build to judge), every run is that binary.
const { memsync: run0 } = process.env.MEMSYNC_BIN ? { memsync: async (args: string[], opts: { env?: Record<string, string>; input?: string } = {}) => processRun(args, opts) } : binaryThenInProcess();

/** Where a's sync is killed; "none": no kill, a's command runs before its sync (the merge's own answer, concurrent). */
type Point = "none" | "checkout-intent" | "checkout-file:1" | "checkout-durable" | "checkout-index" | "checkout-ref";

/** What b changes and pushes before a's killed sync pulls it. */
type Change = "added" | "changed" | "removed" | "relation-added" | "changed-related" | "faded-used";

interface World {
  a: string;
  b: string;
  /** P: on both, edited or deleted by b; X, Z: on both; Z archived; R0: P -> X, on both. */
  P: string;
  X: string;
  Z: string;
  R0: string;
  /** What b's change made: the memory N (added) and its relation N -> X, X -> Z (relation-added), or P -> Z (changed-related). */
  N?: string;
  R?: string;
  /** G: a faded memory (unused for 90 days, on both; the rows with `aged`, and faded-used, where b uses it). */
  G?: string;
  /** A vault folder for promote (outside the clones). */
  vault: string;
  /** Files to import: a cortexgraph folder and an mcp-memory JSONL. */
  mcpFile: string;
}

interface Row {
  change: Change;
  name: string;
  /** The command on a between the kill and the next sync (its arguments, from the world). */
  args: (w: World) => string[];
  /** Whether a dangling relation may be left (the row keeps relations of a deleted memory): status says degraded. */
  dangling?: boolean;
  /** The world has the faded memory G (for gc). */
  aged?: boolean;
  /** b's memories a's command may merge into another (consolidate --apply): their content must be somewhere, not their id. */
  merges?: boolean;
  /** The final state, read on each clone; `saw`: a found b's change on disk before its command; `code`: its exit. */
  check: (w: World, dir: string, ctx: { saw: boolean; code: number }) => Promise<void>;
}

const onMachine = (dir: string, extra: Record<string, string> = {}) => ({ env: { MEMSYNC_MACHINE: path.basename(dir), ...extra } });
const run = (dir: string, args: string[], extra: Record<string, string> = {}): Promise<Run> => run0(["--store", dir, ...args], onMachine(dir, extra));
async function json(dir: string, ...args: string[]): Promise<any> {
  const r = await run(dir, [...args, "--json"]);
  assert.equal(r.code, 0, `memsync ${args.join(" ")} on ${path.basename(dir)}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
/** A memory as the clone has it with its relations' ids, or null when it is gone. */
async function memory(dir: string, id: string): Promise<{ content: string; tags: string[]; status: string; use_count: number; rels: string[] } | null> {
  const r = await run(dir, ["get", id, "--json"]);
  if (r.code === 3) return null;
  assert.equal(r.code, 0, r.stderr);
  const f = JSON.parse(r.stdout).found[0];
  const rels = [...f.incoming, ...f.outgoing].map((x: { id: string }) => x.id);
  return { ...f.memory, tags: f.memory.meta.tags, rels };
}
/** The relations the clone's files hold (a dangling one too, which `get` of its gone end cannot show). */
const relationIds = async (dir: string): Promise<Set<string>> =>
  new Set([...synced(dir).keys()].filter((rel) => rel.startsWith("relations/")).map((rel) => path.basename(rel, ".json")));
const present = async (dir: string, id: string, what: string) => assert.ok(await memory(dir, id), `${what} is there`);
const gone = async (dir: string, id: string, what: string) => assert.equal(await memory(dir, id), null, `${what} is gone`);
const relation = async (dir: string, id: string, want: boolean, what: string) => assert.equal((await relationIds(dir)).has(id), want, `${what} ${want ? "is there" : "is gone"}`);

const EDIT_B = "edited on b";
const EDIT_A = "edited on a";

const ROWS: Row[] = [
  // b saved N with a relation N -> X; a works on N, which the killed checkout wrote (or not yet,
  // at checkout-intent: then a's command finds no N, exits 3, and N simply arrives)
  { change: "added", name: "update content", args: (w) => ["update", w.N!, "--content", EDIT_A], check: async (w, d, c) => assert.equal((await memory(d, w.N!))?.content, c.code === 0 ? EDIT_A : "saved on b") },
  { change: "added", name: "update tags", args: (w) => ["update", w.N!, "--add-tag", "from-a"], check: async (w, d, c) => assert.equal((await memory(d, w.N!))?.tags.includes("from-a"), c.code === 0) },
  { change: "added", name: "touch", args: (w) => ["touch", w.N!], check: async (w, d, c) => assert.equal((await memory(d, w.N!))?.use_count, c.code === 0 ? 1 : 0) },
  { change: "added", name: "archive", args: (w) => ["archive", w.N!], check: async (w, d, c) => assert.equal((await memory(d, w.N!))?.status, c.code === 0 ? "archived" : "active") },
  {
    change: "added", name: "delete", args: (w) => ["delete", w.N!], check: async (w, d, c) => {
      if (c.code !== 0) return present(d, w.N!, "N (never seen by a)");
      await gone(d, w.N!, "N, deleted on a");
      await relation(d, w.R!, false, "N's relation, deleted with it");
    },
  },
  {
    // the user kept the relations: they stay, dangling (the merge keeps a dangling relation the
    // deleting side kept; it drops only one added concurrently with the delete)
    change: "added", name: "delete --keep-relations", dangling: true, args: (w) => ["delete", w.N!, "--keep-relations"], check: async (w, d, c) => {
      if (c.code !== 0) return present(d, w.N!, "N (never seen by a)");
      await gone(d, w.N!, "N, deleted on a");
      await relation(d, w.R!, true, "N's relation, kept on a");
    },
  },
  {
    change: "added", name: "relate", args: (w) => ["relate", w.N!, w.Z, "--type", "supports"], check: async (w, d, c) => {
      const n = await memory(d, w.N!);
      assert.ok(n, "N is there");
      assert.equal(n.rels.length, c.code === 0 ? 2 : 1, "N's relations: b's, and a's when a had N");
    },
  },
  { change: "added", name: "unrelate", args: (w) => ["unrelate", w.R!], check: async (w, d, c) => relation(d, w.R!, c.code !== 0, "N -> X") },
  { change: "added", name: "save", args: () => ["save", "saved on a in between"], check: async (w, d) => assert.equal((await json(d, "search", "between")).hits.length, 1) },

  // b edited P's content (and Z's); a's command found b's version (the checkout wrote it: a's
  // change comes after b's) or the old one (concurrent: merged field by field)
  { change: "changed", name: "update tags", args: (w) => ["update", w.P, "--add-tag", "from-a"], check: async (w, d) => assert.deepEqual(pick(await memory(d, w.P), "content", "tags"), { content: EDIT_B, tags: ["from-a"] }) },
  { change: "changed", name: "touch", args: (w) => ["touch", w.P], check: async (w, d) => assert.deepEqual(pick(await memory(d, w.P), "content", "use_count"), { content: EDIT_B, use_count: 1 }) },
  { change: "changed", name: "archive", args: (w) => ["archive", w.P], check: async (w, d) => assert.deepEqual(pick(await memory(d, w.P), "content", "status"), { content: EDIT_B, status: "archived" }) },
  { change: "changed", name: "unarchive", args: (w) => ["update", w.Z, "--status", "active"], check: async (w, d) => assert.deepEqual(pick(await memory(d, w.Z), "content", "status"), { content: EDIT_B, status: "active" }) },
  {
    // a content edit of b's version wins; of the old one, it is concurrent with b's: a conflict
    // (both kept, for `resolve`), as the merge has it
    change: "changed", name: "update content", args: (w) => ["update", w.P, "--content", EDIT_A], check: async (w, d, c) => {
      const p = await memory(d, w.P);
      if (c.saw) return assert.equal(p?.content, EDIT_A);
      const conflicts = JSON.stringify(await json(d, "conflicts"));
      assert.ok(p?.content === EDIT_A || conflicts.includes(EDIT_A), `a's edit is kept or in conflict: ${p?.content} ${conflicts}`);
    },
  },
  {
    // a delete of b's version stands; a delete of the old one loses to b's concurrent edit, and
    // the relation it removed comes back with the memory (merge-tree.ts)
    change: "changed", name: "delete", args: (w) => ["delete", w.P], check: async (w, d, c) => {
      if (c.saw) {
        await gone(d, w.P, "P, deleted after b's edit");
        return relation(d, w.R0, false, "P's relation, deleted with it");
      }
      assert.equal((await memory(d, w.P))?.content, EDIT_B, "P is back with b's edit");
      await relation(d, w.R0, true, "P's relation, back with it");
    },
  },
  {
    change: "changed", name: "delete --keep-relations", dangling: true, args: (w) => ["delete", w.P, "--keep-relations"], check: async (w, d, c) => {
      if (c.saw) await gone(d, w.P, "P, deleted after b's edit");
      else assert.equal((await memory(d, w.P))?.content, EDIT_B, "P is back with b's edit");
      await relation(d, w.R0, true, "P's relation, kept");
    },
  },
  {
    change: "changed", name: "relate", args: (w) => ["relate", w.P, w.Z, "--type", "supports"], check: async (w, d) => {
      const p = await memory(d, w.P);
      assert.deepEqual([p?.content, p?.rels.length], [EDIT_B, 2]);
    },
  },
  {
    change: "changed", name: "unrelate", args: (w) => ["unrelate", w.R0], check: async (w, d) => {
      assert.equal((await memory(d, w.P))?.content, EDIT_B);
      await relation(d, w.R0, false, "P -> X");
    },
  },

  // b deleted P (and R0 with it); a's command found P gone (exit 3: nothing acknowledged) or the
  // old P: a use or edit of it is concurrent with b's delete and wins, bringing R0 back with it
  ...([
    ["touch", (w: World) => ["touch", w.P]],
    ["update tags", (w: World) => ["update", w.P, "--add-tag", "from-a"]],
    ["update content", (w: World) => ["update", w.P, "--content", EDIT_A]],
    ["archive", (w: World) => ["archive", w.P]],
  ] as const).map(([name, args]): Row => ({
    change: "removed", name, args,
    check: async (w, d, c) => {
      if (c.code !== 0) return gone(d, w.P, "P, deleted on b");
      const p = await memory(d, w.P);
      assert.ok(p, "P, used or edited on a, wins over b's delete");
      if (name === "touch") assert.equal(p.use_count, 1);
      if (name === "update tags") assert.deepEqual(p.tags, ["from-a"]);
      if (name === "update content") assert.equal(p.content, EDIT_A);
      if (name === "archive") assert.equal(p.status, "archived");
      await relation(d, w.R0, true, "P's relation, back with it");
    },
  })),
  { change: "removed", name: "delete", args: (w) => ["delete", w.P], check: async (w, d) => gone(d, w.P, "P") },
  // b's delete removed R0; a's, keeping relations, left it as it was: b's removal stands
  { change: "removed", name: "delete --keep-relations", args: (w) => ["delete", w.P, "--keep-relations"], check: async (w, d) => { await gone(d, w.P, "P"); await relation(d, w.R0, false, "R0"); } },
  {
    // a relation to a memory deleted concurrently is dropped by the merge
    change: "removed", name: "relate", args: (w) => ["relate", w.Z, w.P], check: async (w, d) => {
      await gone(d, w.P, "P, deleted on b");
      assert.deepEqual((await memory(d, w.Z))?.rels, [], "no relation to the deleted P");
    },
  },
  {
    // every relation made to P (here by consolidate's links, P with X and Z) goes with it
    change: "removed", name: "consolidate --link", args: () => ["consolidate", "--link", "--threshold", "0.05", "--claim-maintainer"], check: async (w, d) => {
      await gone(d, w.P, "P, deleted on b");
      assert.deepEqual([...synced(d)].filter(([rel, b64]) => rel.startsWith("relations/") && Buffer.from(b64, "base64").toString().includes(w.P)), [], "no relation names P");
    },
  },
  { change: "removed", name: "unrelate", args: (w) => ["unrelate", w.R0], check: async (w, d) => { await gone(d, w.P, "P"); await relation(d, w.R0, false, "R0"); } },

  // b related X -> Z (R); a found R (the checkout wrote it) or not (exit 3, or a delete that could
  // not see it: concurrent, and the merge drops a relation to a memory deleted concurrently)
  { change: "relation-added", name: "unrelate", args: (w) => ["unrelate", w.R!], check: async (w, d, c) => relation(d, w.R!, c.code !== 0, "X -> Z") },
  { change: "relation-added", name: "delete", args: (w) => ["delete", w.X], check: async (w, d) => { await gone(d, w.X, "X"); await relation(d, w.R!, false, "X -> Z"); } },
  { change: "relation-added", name: "delete --keep-relations", dangling: true, args: (w) => ["delete", w.X, "--keep-relations"], check: async (w, d, c) => { await gone(d, w.X, "X"); await relation(d, w.R!, c.saw, "X -> Z"); } },
];

// b edited P and related it to Z (R) in one pull; a deletes P. A kill at checkout-file:1 leaves P's
// new version written and R not: a saw b's P, so its delete comes after the pull, R included
const changedRelated = (keep: boolean): Row => ({
  change: "changed-related", name: keep ? "delete --keep-relations" : "delete", dangling: keep,
  args: (w) => ["delete", w.P, ...(keep ? ["--keep-relations"] : [])],
  check: async (w, d, c) => {
    if (c.saw) await gone(d, w.P, "P, deleted after b's edit");
    else assert.equal((await memory(d, w.P))?.content, EDIT_B, "P is back with b's edit");
    await relation(d, w.R!, keep || !c.saw, "P -> Z");
    await relation(d, w.R0, keep || !c.saw, "P -> X");
  },
});
ROWS.push(changedRelated(false), changedRelated(true));

// The maintenance commands a user may run in the window (the main build's: gc, consolidate
// --apply, split, promote, import, archive of many). Each row's check: its effect, and b's change
// where the command leaves it alone; the loop below checks the rest (identical clones, fsck, status).
const GC = ["gc", "--claim-maintainer"];
const CONSOLIDATE = ["consolidate", "--apply", "--threshold", "0.05", "--claim-maintainer"];
const PART1 = "first part, split on a";
const PART2 = "second part, split on a";
const split = (id: string) => ["split", id, "--part", PART1, "--part", PART2, "--claim-maintainer"];
const promote = (w: World, id: string) => ["promote", id, "--vault", w.vault, "--claim-maintainer"];
const CG_TEXT = "Use PostgreSQL for analytics";
const MCP_TEXT = "kill matrix observation one";
const MCP_JSONL = [
  { type: "entity", name: "Kestrel", entityType: "project", observations: [MCP_TEXT] },
  { type: "entity", name: "Osprey", entityType: "project", observations: ["kill matrix observation two"] },
  { type: "relation", from: "Kestrel", to: "Osprey", relationType: "uses" },
].map((l) => `${JSON.stringify(l)}\n`).join("");

/** Every memory record the clone's files hold, whatever its status. */
const records = (dir: string): { id: string; content: string }[] =>
  [...synced(dir)].filter(([rel]) => rel.startsWith("memories/")).map(([, b64]) => JSON.parse(Buffer.from(b64, "base64").toString()));
const holds = (dir: string, text: string, what: string) => assert.ok(records(dir).some((m) => m.content.includes(text)), `${what}: a memory holds "${text}"`);

/** b's change, as it stands after the syncs when a's command left it alone. */
async function bChangeHolds(w: World, d: string, change: Change): Promise<void> {
  if (change === "added") {
    await present(d, w.N!, "N, saved on b");
    await relation(d, w.R!, true, "N -> X");
  } else if (change === "changed") assert.equal((await memory(d, w.P))?.content, EDIT_B, "b's edit of P");
  else if (change === "removed") {
    await gone(d, w.P, "P, deleted on b");
    await relation(d, w.R0, false, "R0, deleted with P");
  }
}

const MAINTENANCE: Row[] = [
  // gc: the faded G goes, on both; b's change holds
  ...(["added", "changed", "removed"] as const).map((change): Row => ({
    change, name: "gc", aged: true, args: () => GC,
    check: async (w, d) => {
      await gone(d, w.G!, "G, faded, pruned on a");
      await bChangeHolds(w, d, change);
    },
  })),
  // b used the faded G: a's gc found it faded (the old version: concurrent) or used (nothing to
  // prune); a prune is a delete, which loses to a concurrent use: G stays, with b's use
  { change: "faded-used", name: "gc", args: () => GC, check: async (w, d) => assert.equal((await memory(d, w.G!))?.use_count, 1, "G, used on b") },
  {
    change: "faded-used", name: "gc --archive", args: () => [...GC, "--archive"], check: async (w, d, c) => {
      const g = await memory(d, w.G!);
      assert.equal(g?.use_count, 1, "G, used on b");
      assert.equal(g?.status, c.saw ? "active" : "archived", "archived when a found it faded");
    },
  },
  // consolidate --apply merges P and X (and N when a has it) into one: nothing b wrote is lost,
  // in its own memory or in the merged one
  { change: "added", name: "consolidate --apply", merges: true, args: () => CONSOLIDATE, check: async (w, d) => holds(d, "saved on b", "N's text") },
  // b's edit of P: kept when a saw it (b's text shares no word with X's: found by a, P is no
  // longer in a cluster); else a consolidated the old P, and b's content edit, concurrent with
  // it, still wins: P comes back beside the merged memory (merge-tree.ts, DESIGN.md 4)
  {
    change: "changed", name: "consolidate --apply", merges: true, args: () => CONSOLIDATE, check: async (w, d) => {
      assert.equal((await memory(d, w.P))?.content, EDIT_B, "b's edit of P");
    },
  },
  { change: "removed", name: "consolidate --apply", merges: true, args: () => CONSOLIDATE, check: async (w, d) => gone(d, w.P, "P, deleted on b") },
  // split: the parts replace the memory a found; a split of the old P (concurrent with b's content
  // edit) loses P's removal to the edit, as in the merge: P comes back with b's edit beside the parts
  {
    change: "added", name: "split", args: (w) => split(w.N!), check: async (w, d, c) => {
      if (c.code !== 0) return present(d, w.N!, "N (never seen by a)");
      await gone(d, w.N!, "N, split");
      holds(d, PART1, "part 1");
    },
  },
  {
    change: "changed", name: "split", args: (w) => split(w.P), check: async (w, d, c) => {
      holds(d, PART2, "part 2");
      if (c.saw) await gone(d, w.P, "P, split after b's edit");
      else assert.equal((await memory(d, w.P))?.content, EDIT_B, "b's edit of P, concurrent with the split");
    },
  },
  {
    change: "removed", name: "split", args: (w) => split(w.P), check: async (w, d, c) => {
      await gone(d, w.P, "P");
      if (c.code === 0) holds(d, PART1, "part 1");
    },
  },
  // promote: P marked promoted, with b's edit; promoting the old P wins over b's delete (a use)
  { change: "changed", name: "promote", args: (w) => promote(w, w.P), check: async (w, d) => assert.deepEqual(pick(await memory(d, w.P), "content", "status"), { content: EDIT_B, status: "promoted" }) },
  {
    change: "removed", name: "promote", args: (w) => promote(w, w.P), check: async (w, d, c) => {
      if (c.code !== 0) return gone(d, w.P, "P");
      assert.equal((await memory(d, w.P))?.status, "promoted", "P, promoted on a, wins over b's delete");
    },
  },
  // import: a's imported memories and b's change, both
  ...(["added", "changed", "removed"] as const).map((change): Row => ({
    change, name: "import cortexgraph", args: () => ["import", "cortexgraph", path.join(REPO, "tests/fixtures/import/cortexgraph")],
    check: async (w, d) => {
      holds(d, CG_TEXT, "the import");
      await bChangeHolds(w, d, change);
    },
  })),
  ...(["added", "removed"] as const).map((change): Row => ({
    change, name: "import mcp-memory", args: (w) => ["import", "mcp-memory", w.mcpFile],
    check: async (w, d) => {
      holds(d, MCP_TEXT, "the import");
      await bChangeHolds(w, d, change);
    },
  })),
  // archive of many: all found, all archived; one not found (exit 3), none
  {
    change: "added", name: "archive many", args: (w) => ["archive", w.X, w.N!], check: async (w, d, c) => {
      assert.equal((await memory(d, w.X))?.status, c.code === 0 ? "archived" : "active");
      assert.equal((await memory(d, w.N!))?.status, c.code === 0 ? "archived" : "active");
    },
  },
  {
    change: "changed", name: "archive many", args: (w) => ["archive", w.P, w.X], check: async (w, d) => {
      assert.deepEqual(pick(await memory(d, w.P), "content", "status"), { content: EDIT_B, status: "archived" });
      assert.equal((await memory(d, w.X))?.status, "archived");
    },
  },
  {
    change: "removed", name: "archive many", args: (w) => ["archive", w.X, w.P], check: async (w, d, c) => {
      assert.equal((await memory(d, w.X))?.status, c.code === 0 ? "archived" : "active");
      if (c.code !== 0) return gone(d, w.P, "P");
      assert.equal((await memory(d, w.P))?.status, "archived", "P, archived on a, wins over b's delete");
      await relation(d, w.R0, true, "P's relation, back with it");
    },
  },
];
ROWS.push(...MAINTENANCE);

function pick<T extends object, K extends keyof T>(o: T | null, ...keys: K[]): Pick<T, K> | null {
  return o && (Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>);
}

async function world(change: Change, aged = false): Promise<World> {
  const h = hub();
  const a = storeOn(h.root, "a", h.bare, { MEMSYNC_MACHINE: "a" });
  const b = storeOn(h.root, "b", h.bare, { MEMSYNC_MACHINE: "b" });
  const P = (await json(b, "save", "memory P")).memory.id as string;
  const X = (await json(b, "save", "memory X")).memory.id as string;
  const Z = (await json(b, "save", "memory Z")).memory.id as string;
  await json(b, "archive", Z);
  const R0 = (await json(b, "relate", P, X)).relation.id as string;
  let G: string | undefined;
  if (aged || change === "faded-used") {
    const t = Math.floor(Date.now() / 1000) - 90 * 86_400;
    const r = await run0(["--store", b, "save", "--input", "-", "--json"], { ...onMachine(b), input: JSON.stringify({ content: "faded memory G", created_at: t - 86_400, last_used: t }) });
    assert.equal(r.code, 0, r.stderr);
    G = JSON.parse(r.stdout).memory.id;
  }
  await json(b, "sync");
  await json(a, "sync");
  const mcpFile = path.join(h.root, "memory.jsonl");
  fs.writeFileSync(mcpFile, MCP_JSONL);
  const w: World = { a, b, P, X, Z, R0, G, vault: path.join(h.root, "vault"), mcpFile };
  if (change === "added") {
    w.N = (await json(b, "save", "saved on b")).memory.id;
    w.R = (await json(b, "relate", w.N!, X, "--type", "supports")).relation.id;
  } else if (change === "changed") {
    await json(b, "update", P, "--content", EDIT_B);
    await json(b, "update", Z, "--content", EDIT_B);
  } else if (change === "changed-related") {
    await json(b, "update", P, "--content", EDIT_B);
    w.R = (await json(b, "relate", P, Z, "--type", "supports")).relation.id;
  } else if (change === "removed") {
    await json(b, "delete", P);
  } else if (change === "faded-used") {
    await json(b, "touch", G!);
  } else {
    w.R = (await json(b, "relate", X, Z, "--type", "supports")).relation.id;
  }
  await json(b, "sync");
  return w;
}

/** Whether a's files hold b's change (the killed checkout wrote it): the paths b's last commit changed, as in b. */
async function sawChange(w: World, change: Change): Promise<boolean> {
  if (change === "changed" || change === "changed-related") return (await memory(w.a, w.P))?.content === EDIT_B;
  if (change === "removed") return (await memory(w.a, w.P)) === null;
  if (change === "faded-used") return (await memory(w.a, w.G!))?.use_count === 1;
  return (await relationIds(w.a)).has(w.R!);
}

/** Each row at these points. */
function cells(points: readonly Point[]): [Point, Row][] {
  return points.flatMap((p) => ROWS.map((r) => [p, r] as [Point, Row]));
}

// The cells run here: each row without a kill (the merge's own answer, which the rows state), at a
// kill before any file (intent) and after all (durable), and the later and partial points for the
// deletes, whose paths through the finish differ there. KILLMATRIX_ALL=1: every row at every point.
const SELECTED: [Point, Row][] = [
  ...cells(["none", "checkout-intent", "checkout-durable"]),
  ...ROWS.filter((r) => r.name.startsWith("delete")).map((r) => ["checkout-ref", r] as [Point, Row]),
  ...ROWS.filter((r) => (r.change === "added" || r.change === "changed-related") && r.name.startsWith("delete")).map((r) => ["checkout-file:1", r] as [Point, Row]),
];

// The next sync killed again: in the finish (checkout-index, -ref: it runs again whole), in the
// commit after it (commit-index, -ref), or, b having synced more meanwhile (M), in that sync's own
// checkout of M (checkout-intent, checkout-file:1: a second intent record over the first's end).
interface Again {
  point: string;
  /** b saves M and syncs before a's second (killed) sync. */
  more?: boolean;
  /**
   * The point may not be reached (KILLMATRIX_ALL's sweep): a command that commits itself (import)
   * finished the checkout already, or one that changed nothing leaves no commit to kill; then the
   * sync simply succeeds, and the cell is the checks after it.
   */
  mayPass?: boolean;
}
const TWICE: [Point, Row, Again][] = [
  ["checkout-intent", row("removed", "touch"), { point: "checkout-index" }],
  ["checkout-intent", row("removed", "relate"), { point: "checkout-index" }],
  ["checkout-intent", row("changed", "delete"), { point: "checkout-index" }],
  ["checkout-file:1", row("added", "delete --keep-relations"), { point: "checkout-index" }],
  ["checkout-intent", row("removed", "touch"), { point: "commit-ref" }],
  ["checkout-intent", row("changed", "split"), { point: "checkout-ref" }],
  ["checkout-file:1", row("added", "delete"), { point: "commit-index" }],
  ["checkout-intent", row("faded-used", "gc"), { point: "checkout-file:1", more: true }],
  ["checkout-durable", row("removed", "archive many"), { point: "checkout-intent", more: true }],
  ["checkout-intent", row("changed", "consolidate --apply"), { point: "checkout-file:1", more: true }],
];
const TWICE_ALL: [Point, Row, Again][] = ["checkout-index", "checkout-ref", "commit-index", "commit-ref"].flatMap((point) =>
  ["checkout-intent", "checkout-file:1"].flatMap((p) => MAINTENANCE.map((r) => [p as Point, r, { point, mayPass: true }] as [Point, Row, Again])),
);

function row(change: Change, name: string): Row {
  return ROWS.find((r) => r.change === change && r.name === name)!;
}

describe("every command between a killed checkout and its finish", () => {
  const chosen = process.env.KILLMATRIX_ALL ? cells(["none", "checkout-intent", "checkout-file:1", "checkout-durable", "checkout-index", "checkout-ref"]) : SELECTED;
  const twice = process.env.KILLMATRIX_ALL ? [...TWICE, ...TWICE_ALL] : TWICE;
  const all = [...chosen.map(([p, r]) => [p, r, null] as const), ...twice.map(([p, r, again]) => [p, r, again] as const)];
  for (const [point, row, again] of all) {
    test(`${row.change} / ${row.name} / killed at ${point}${again ? `, the next sync killed at ${again.point}${again.more ? " (b synced more)" : ""}` : ""}`, { timeout: 120_000 }, async () => {
      const w = await world(row.change, row.aged);
      if (point !== "none") {
        const killed = await run(w.a, ["sync"], { MEMSYNC_FAULT: point });
        assert.equal(killed.code, -1, `the sync was killed at ${point}: ${killed.stderr}`);
      }
      const saw = point !== "none" && (await sawChange(w, row.change));
      const r = await run(w.a, row.args(w));
      assert.ok(r.code === 0 || r.code === 3, `${row.args(w).join(" ")}: ${r.code} ${r.stderr}`);
      let M: string | undefined;
      if (again?.more) {
        M = (await json(w.b, "save", "memory M, saved on b meanwhile")).memory.id;
        await json(w.b, "sync");
      }
      if (again) {
        const k = await run(w.a, ["sync"], { MEMSYNC_FAULT: again.point });
        if (!(again.mayPass && k.code === 0)) assert.equal(k.code, -1, `the next sync was killed at ${again.point}: ${k.stderr}`);
      }
      await json(w.a, "sync");
      await json(w.b, "sync");
      await json(w.a, "sync");
      for (const d of [w.a, w.b]) await row.check(w, d, { saw, code: r.code });
      // nothing else b wrote is lost: X and Z are there unless a's command deleted them (or merged X)
      if (row.merges) holds(w.a, "memory X", "X's text");
      else if (!row.args(w).includes(w.X)) await present(w.a, w.X, "X");
      await present(w.a, w.Z, "Z");
      if (M) for (const d of [w.a, w.b]) await present(d, M, "M, saved on b meanwhile");
      assert.deepEqual(synced(w.a), synced(w.b), "both clones hold the same files");
      healthy([w.a, w.b, path.join(path.dirname(w.a), "hub.git")]);
      // healthy, or (where the row keeps them) degraded by dangling relations only
      const want = row.dangling ? /health: (healthy|degraded \(\d+ relations? points? at a missing or unreadable memory\))\n/ : /health: healthy\n/;
      for (const d of [w.a, w.b]) assert.match((await run(d, ["status"])).stdout, want);
    });
  }
});
