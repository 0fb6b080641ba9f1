import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { isMemsyncError } from "../../src/core/errors.ts";
import { commitStore } from "../../src/ops/commit.ts";
import { consolidate } from "../../src/ops/consolidate.ts";
import { type OpsEnv, withStore } from "../../src/ops/context.ts";
import { deleteMemories } from "../../src/ops/delete.ts";
import { updateMemoryOp } from "../../src/ops/edit.ts";
import { archiveMemories, touchMemories } from "../../src/ops/mark.ts";
import { gcOp } from "../../src/ops/gc.ts";
import { initStore } from "../../src/ops/init.ts";
import { promoteOp } from "../../src/ops/promote.ts";
import { relateMemories, unrelate } from "../../src/ops/relate.ts";
import { saveMemory } from "../../src/ops/save.ts";
import { splitOp } from "../../src/ops/split.ts";
import { setRemoteOp, syncOp } from "../../src/ops/sync.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { appendJournal } from "../../src/store/journal.ts";
import type { Store } from "../../src/store/store.ts";
import { committablePath } from "../../src/sync/commit.ts";
import { git, tempDir } from "../helpers/env.ts";
import { makeRng, type Rng } from "../helpers/rng.ts";

// History says what happened, as a property: seeded random sequences of operations (memsync's,
// called in-process, and hand edits of the files) on a real store with real git. After every
// operation the exact tree of the store is recorded by native git (a temporary index: `git add
// -A && git write-tree`), independently of the code under test. Then, committed at the end, after
// every operation, or at random moments (commit or sync to a bare remote), history must hold one
// commit per operation that changed something, in order, each with the recorded tree, and a
// message naming that kind of operation. Operations that change nothing make no commit.
//
// Hand edits enter history where memsync sees them: a write sees those in the folders it writes
// into and in the files it replaces; commit and status see all. So a hand edit here is followed by
// what sees it (a status, or a memsync change of the same file), as in use.

/** Paraphrases of one note: saved several times, they make clusters for consolidate. */
const TOPICS = [
  [
    "Use cursor pagination for list endpoints in the public API; page size defaults to 50",
    "For list endpoints in the public API use cursor pagination, with a default page size of 50",
    "Public API list endpoints: cursor pagination, page size default 50",
  ],
  ["The nightly export job times out after thirty seconds when the warehouse is cold", "Nightly export job timeout: thirty seconds when the warehouse is cold"],
  ["Redis keeps sessions for the web dashboard, with a TTL of one day", "Sessions for the web dashboard live in Redis with a one day TTL"],
];
const NOTES = [
  "Postgres connection pool size is 20 in production",
  "Tabs in Go files, spaces in YAML files",
  "Deploys go out on Tuesdays and Thursdays only",
  "The billing worker retries failed charges three times with backoff",
  "Kestrel is the codename of the new search service",
  "Feature flags live in LaunchDarkly, never in environment variables",
];

type Kind = "save" | "update" | "touch" | "archive" | "delete" | "relate" | "unrelate" | "consolidate" | "split" | "gc" | "promote" | "edit";

const WEIGHTS: [Kind | "hand-edit" | "hand-edit-then-touch" | "hand-delete" | "edit-in-place", number][] = [
  ["save", 22],
  ["update", 7],
  ["touch", 9],
  ["archive", 4],
  ["delete", 4],
  ["relate", 8],
  ["unrelate", 4],
  ["consolidate", 6],
  ["split", 4],
  ["gc", 5],
  ["promote", 4],
  ["hand-edit", 4],
  ["hand-edit-then-touch", 3],
  ["hand-delete", 2],
  ["edit-in-place", 3],
];

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[Math.floor(rng() * xs.length)]!;
}

function pickKind(rng: Rng): (typeof WEIGHTS)[number][0] {
  const total = WEIGHTS.reduce((a, [, w]) => a + w, 0);
  let r = rng() * total;
  for (const [k, w] of WEIGHTS) if ((r -= w) < 0) return k;
  return "save";
}

/** The tree of the store's files as native git sees them, through its own temporary index. */
function nativeTreeOf(store: string, index: string): string {
  const r = spawnSync("sh", ["-c", "git add -A && git write-tree"], { cwd: store, encoding: "utf8", env: { ...process.env, GIT_INDEX_FILE: index } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

const sha1 = (parts: (string | Uint8Array)[]) => {
  const h = createHash("sha1");
  for (const p of parts) h.update(p);
  return h.digest();
};

/**
 * The same tree id computed here, by this file's own few lines of git's object format (native git
 * is a process per call, hundreds of milliseconds each on a loaded machine). Checked against
 * native git at the end of every run. Files the store's .gitignore names are left out, as git does
 * (its patterns here are plain: `name/` for a folder, `*.ext`, or a name).
 */
function treeOf(store: string): string {
  const patterns = fs
    .readFileSync(path.join(store, ".gitignore"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const ignored = (name: string, isDir: boolean) =>
    name === ".git" ||
    patterns.some((p) => (p.endsWith("/") ? isDir && name === p.slice(0, -1).replace(/^\//, "") : p.startsWith("*") ? name.endsWith(p.slice(1)) : name === p.replace(/^\//, "")));
  const tree = (dir: string): Buffer | null => {
    const entries: { name: string; mode: string; oid: Buffer }[] = [];
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (ignored(e.name, e.isDirectory())) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        const oid = tree(p);
        if (oid) entries.push({ name: e.name, mode: "40000", oid });
      } else if (e.isFile()) {
        const bytes = fs.readFileSync(p);
        entries.push({ name: e.name, mode: "100644", oid: sha1([`blob ${bytes.length}\0`, bytes]) });
      }
    }
    if (!entries.length) return null;
    // git orders a tree by name, a folder's name as if it ended with "/"
    const sortKey = (x: { name: string; mode: string }) => Buffer.from(x.mode === "40000" ? `${x.name}/` : x.name);
    entries.sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
    const body = Buffer.concat(entries.map((x) => Buffer.concat([Buffer.from(`${x.mode} ${x.name}\0`), x.oid])));
    return sha1([`tree ${body.length}\0`, body]);
  };
  return (tree(store) ?? sha1(["tree 0\0"])).toString("hex");
}

interface Rec {
  id: string;
  file: string;
  status?: string;
  /** What tells it apart without its id (random) or times: for memories their text, for relations their ends and type. */
  key: string;
}

/** Records on disk, read directly (not through memsync). */
function records(store: string, kind: "memories" | "relations", order: Map<string, number>): Rec[] {
  const out: Rec[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".json") && !e.name.startsWith(".")) {
        const r = JSON.parse(fs.readFileSync(p, "utf8"));
        const key = kind === "memories" ? r.content : `${order.get(r.from_memory_id)} ${order.get(r.to_memory_id)} ${r.relation_type}`;
        out.push({ id: r.id, file: p, status: r.status, key });
      }
    }
  };
  walk(path.join(store, kind));
  // in the order first seen, those first seen together by what they hold: two runs of one seed
  // pick the same records although their ids differ
  const fresh = out.filter((r) => !order.has(r.id)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : 1));
  for (const r of fresh) order.set(r.id, order.size);
  return out.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

/** An editor's save: a new file renamed over the old one. */
function editorSave(file: string, text: string): void {
  fs.writeFileSync(`${file}.editing`, text);
  fs.renameSync(`${file}.editing`, file);
}

function handEdited(file: string, n: number): string {
  const m = JSON.parse(fs.readFileSync(file, "utf8"));
  m.content = `${m.content} (edited by hand ${n})`;
  return `${JSON.stringify(m, null, 2)}\n`;
}

interface Event {
  kind: Kind;
  tree: string;
}

type Mode = "end" | "each" | "random";

interface Run {
  store: string;
  events: Event[];
  /** HEAD before the first operation. */
  base: string;
  mode: Mode;
}

async function runSequence(seed: number, steps: number, mode: Mode): Promise<Run> {
  const rng = makeRng(seed);
  const dir = tempDir("memsync-history-");
  const store = path.join(dir, "store");
  const vault = path.join(dir, "vault");
  const index = path.join(dir, "tree-index");
  const env: OpsEnv = { storeRoot: store, hostName: "test-host", user: "tester", machineOverride: "test-machine" };
  await initStore(env);
  if (mode === "random") {
    assert.equal(git(dir, "init", "-q", "--bare", "hub.git").status, 0);
    await withStore(env, (s) => setRemoteOp(s, path.join(dir, "hub.git"), dir));
  }
  const base = git(store, "rev-parse", "HEAD").stdout.trim();
  let last = treeOf(store);
  assert.equal(last, nativeTreeOf(store, index), "this file's tree ids are git's");
  const events: Event[] = [];
  const record = (kind: Kind) => {
    const tree = treeOf(store);
    if (tree !== last) events.push({ kind, tree });
    last = tree;
  };
  const ops = (fn: (s: Store) => Promise<unknown>) => withStore(env, fn);
  /** A memsync operation; a refusal (a relation that exists, a cluster that changed) changes nothing. */
  const attempt = async (kind: Kind, fn: (s: Store) => Promise<unknown>) => {
    try {
      await ops(fn);
    } catch (e) {
      if (!isMemsyncError(e)) throw e;
    }
    record(kind);
  };
  let n = 0;
  const order = new Map<string, number>();
  for (let i = 0; i < steps; i++) {
    const memories = records(store, "memories", order);
    const active = memories.filter((m) => m.status === "active");
    const relations = records(store, "relations", order);
    let kind = pickKind(rng);
    if (memories.length < 3 && kind !== "save") kind = "save";
    n++;
    switch (kind) {
      case "save": {
        const fromTopic = rng() < 0.5;
        const content = fromTopic ? pick(rng, pick(rng, TOPICS)) : `${pick(rng, NOTES)} (note ${n})`;
        // some are old and never used since: gc takes those
        const old = rng() < 0.25 ? { created_at: Math.floor(Date.now() / 1000) - 200 * 86400, last_used: Math.floor(Date.now() / 1000) - 200 * 86400 } : {};
        await attempt("save", (s) => saveMemory(s, env, { content, ...old }));
        break;
      }
      case "update": {
        const m = pick(rng, memories);
        await attempt("update", (s) => updateMemoryOp(s, m.id, { content: rng() < 0.3 ? pick(rng, pick(rng, TOPICS)) : `${pick(rng, NOTES)} (updated ${n})` }));
        break;
      }
      case "touch": {
        const ids = [pick(rng, memories).id, ...(rng() < 0.3 ? [pick(rng, memories).id] : [])];
        await attempt("touch", (s) => touchMemories(s, env, ids, rng() < 0.2));
        break;
      }
      case "archive":
        await attempt("archive", (s) => archiveMemories(s, [pick(rng, memories).id]));
        break;
      case "delete":
        await attempt("delete", (s) => deleteMemories(s, [pick(rng, memories).id]));
        break;
      case "relate": {
        const a = pick(rng, memories);
        const b = pick(rng, memories.filter((m) => m.id !== a.id));
        await attempt("relate", (s) => relateMemories(s, { from: a.id, to: b.id, type: pick(rng, ["related", "supports", "causes"] as const) }));
        break;
      }
      case "unrelate":
        if (relations.length) await attempt("unrelate", (s) => unrelate(s, [pick(rng, relations).id]));
        break;
      case "consolidate":
        await attempt("consolidate", (s) => consolidate(s, env, { mode: "apply", claim: true }));
        break;
      case "split": {
        if (!active.length) break;
        const m = pick(rng, active);
        const parts = [{ content: `${pick(rng, NOTES)} (part one of ${n})` }, { content: `${pick(rng, NOTES)} (part two of ${n})` }];
        await attempt("split", (s) => splitOp(s, env, { id: m.id, parts, archive: rng() < 0.3, claim: true }));
        break;
      }
      case "gc":
        await attempt("gc", (s) => gcOp(s, env, { archive: rng() < 0.3, dryRun: false, limit: null, claim: true }));
        break;
      case "promote": {
        if (!active.length) break;
        const ids = [...new Set([pick(rng, active).id, pick(rng, active).id])];
        await attempt("promote", (s) => promoteOp(s, env, { ids, auto: false, dryRun: false, vault, claim: true }));
        break;
      }
      case "hand-edit": {
        // an editor's save, then a status (a full look): the edit is seen there
        const m = pick(rng, memories);
        editorSave(m.file, handEdited(m.file, n));
        record("edit");
        await ops((s) => s.refresh(true));
        break;
      }
      case "hand-edit-then-touch": {
        // the touch finds the edit (it rewrites that file): the edit, then the touch, each a commit
        const m = pick(rng, memories);
        const text = handEdited(m.file, n);
        if (rng() < 0.5) editorSave(m.file, text);
        else fs.writeFileSync(m.file, text); // in place: same file, the folder's mtime unchanged
        record("edit");
        await attempt("touch", (s) => touchMemories(s, env, [m.id], false));
        break;
      }
      case "hand-delete": {
        const r = relations.length && rng() < 0.7 ? pick(rng, relations) : pick(rng, memories);
        fs.rmSync(r.file);
        record("edit");
        await ops((s) => s.refresh(true));
        break;
      }
      case "edit-in-place": {
        const m = pick(rng, memories);
        fs.writeFileSync(m.file, handEdited(m.file, n));
        record("edit");
        await ops((s) => s.refresh(true)); // what status does: in-place edits are found by a full look
        break;
      }
    }
    if (mode === "each") await ops((s) => commitStore(s, env));
    else if (mode === "random" && rng() < 0.15) await ops((s) => (rng() < 0.5 ? commitStore(s, env) : syncOp(s, env)));
  }
  if (mode === "random") await ops((s) => syncOp(s, env));
  else await ops((s) => commitStore(s, env));
  assert.equal(last, nativeTreeOf(store, index), "this file's tree ids are git's");
  return { store, events, base, mode };
}

/** The history since `base`, oldest first: tree and subject of each commit. */
function historyOf(store: string, base: string): { tree: string; subject: string; parents: number }[] {
  const out = git(store, "log", "--reverse", "--format=%T %p%x09%s", `${base}..HEAD`).stdout.trim();
  if (!out) return [];
  return out.split("\n").map((line) => {
    const [head, subject] = line.split("\t") as [string, string];
    const [tree, ...parents] = head.split(" ");
    return { tree: tree!, subject, parents: parents.length };
  });
}

function checkRun(run: Run, label: string): void {
  const history = historyOf(run.store, run.base);
  const got = history.map((c) => `${c.tree} ${c.subject.slice(0, c.subject.indexOf(":"))}`);
  const want = run.events.map((e) => `${e.tree} ${e.kind}`);
  assert.deepEqual(got, want, `${label}: one commit per operation, in order, each with the store as that operation left it`);
  for (const c of history) assert.equal(c.parents, 1, `${label}: a straight line of commits`);
  assert.equal(git(run.store, "fsck", "--strict", "--no-progress").status, 0, `${label}: git fsck`);
  assert.equal(git(run.store, "status", "--porcelain").stdout, "", `${label}: native git sees the store clean`);
  assert.equal(fs.existsSync(path.join(run.store, ".memsync/journal.jsonl")), false, `${label}: nothing left to commit`);
}

describe("history, commit by commit, is the store as each operation left it", () => {
  for (const [seed, mode, steps] of [
    [11, "end", 40],
    [31, "random", 36],
  ] as const) {
    test(`seed ${seed}, committed ${mode === "end" ? "at the end" : "or synced at random moments"}`, async () => {
      const run = await runSequence(seed, steps, mode);
      assert.ok(run.events.length >= steps / 2, `the sequence changed the store often (${run.events.length} changes)`);
      checkRun(run, `seed ${seed} (${mode})`);
    });
  }

  test("gc, consolidate, split and promote are each one commit holding all of their changes, after touches not yet committed", async () => {
    const dir = tempDir("memsync-history-");
    const store = path.join(dir, "store");
    const index = path.join(dir, "tree-index");
    const env: OpsEnv = { storeRoot: store, hostName: "test-host", user: "tester", machineOverride: "test-machine" };
    await initStore(env);
    const base = git(store, "rev-parse", "HEAD").stdout.trim();
    const events: Event[] = [];
    const step = async <T>(kind: Kind, fn: (s: Store) => Promise<T>): Promise<T> => {
      const out = await withStore(env, fn);
      events.push({ kind, tree: treeOf(store) });
      return out;
    };
    const old = Math.floor(Date.now() / 1000) - 300 * 86400;
    const saveOne = (content: string, extra = {}) => step("save", (s) => saveMemory(s, env, { content, ...extra })).then((o) => o.memory.id);
    const [t0, t1] = [await saveOne(TOPICS[0]![0]!), await saveOne(TOPICS[0]![1]!)];
    const [u0, u1] = [await saveOne(TOPICS[1]![0]!), await saveOne(TOPICS[1]![1]!)];
    // old and unused: gc's; o1 the oldest, so the first to go
    const [o0, o1, o2] = [await saveOne(NOTES[0]!, { created_at: old, last_used: old }), await saveOne(NOTES[1]!, { created_at: old - 86400, last_used: old - 86400 }), await saveOne(NOTES[2]!, { created_at: old, last_used: old })];
    const keep = await saveOne(NOTES[3]!);
    const whole = await saveOne(`${NOTES[4]} ${NOTES[5]}`);
    for (const [from, to] of [[o0, keep], [keep, o1], [t0, u0], [whole, keep]] as const) await step("relate", (s) => relateMemories(s, { from, to, type: "related" }));
    await withStore(env, (s) => commitStore(s, env));
    const committed = events.length;
    // touched, not committed, then changed by each maintenance operation
    await step("touch", (s) => touchMemories(s, env, [t0, u1, o0, whole, keep], false));
    const merged = await step("consolidate", (s) => consolidate(s, env, { mode: "apply", claim: true }));
    assert.equal(merged.applied.length, 2, "two clusters merged at once");
    await step("touch", (s) => touchMemories(s, env, [whole], false));
    await step("split", (s) => splitOp(s, env, { id: whole, parts: [{ content: NOTES[4]! }, { content: NOTES[5]! }], claim: true }));
    const gc = await step("gc", (s) => gcOp(s, env, { archive: false, dryRun: false, limit: 1, claim: true }));
    assert.deepEqual([gc.removed, gc.relations_removed.length], [[o1], 1], "gc prunes a memory and its relation at once");
    const archived = await step("gc", (s) => gcOp(s, env, { archive: true, dryRun: false, limit: null, claim: true }));
    assert.deepEqual(archived.removed, [o2]);
    const promoted = await step("promote", (s) => promoteOp(s, env, { ids: [keep, merged.applied[0]!.into!], auto: false, dryRun: false, vault: path.join(dir, "vault"), claim: true }));
    assert.equal(promoted.promoted.length, 2);
    await withStore(env, (s) => commitStore(s, env));
    checkRun({ store, events, base, mode: "end" }, "maintenance");
    assert.equal(events.at(-1)!.tree, nativeTreeOf(store, index));
    const history = historyOf(store, base).slice(committed);
    assert.deepEqual(
      history.map((c) => c.subject.split(":")[0]),
      ["touch", "consolidate", "touch", "split", "gc", "gc", "promote"],
    );
    // each maintenance commit holds every file its operation changed
    const changedIn = (n: number) => git(store, "diff-tree", "--no-commit-id", "--name-status", "--no-renames", "-r", `HEAD~${n}`, `HEAD~${n}^`).stdout.trim().split("\n").length;
    assert.ok(changedIn(5) >= 1 + 4 + 1 + 4, "consolidate: meta, 4 sources, 2 merged, provenance, moved relations");
    assert.ok(changedIn(0) >= 2, "promote: both memories");
  });

  test("commit takes only the store's own paths, whatever a journal entry names", async () => {
    const dir = tempDir("memsync-history-");
    const store = path.join(dir, "store");
    const env: OpsEnv = { storeRoot: store, hostName: "test-host", user: "tester", machineOverride: "test-machine" };
    await initStore(env);
    const base = git(store, "rev-parse", "HEAD").stdout.trim();
    for (const rel of [".memsync/local.json", "notes/x.json", "memoriesx/y.json"]) {
      fs.mkdirSync(path.dirname(path.join(store, rel)), { recursive: true });
      fs.writeFileSync(path.join(store, rel), "{}\n");
    }
    const paths = [".memsync/local.json", "notes/x.json", "memoriesx/y.json", "memories/../notes/x.json", "/etc/passwd", "memories/"];
    appendJournal(nodeFs, store, { op: "save", message: "save: not ours", paths, files: Object.fromEntries(paths.map((p) => [p, "{}\n"])), at: 0 });
    for (const p of paths) assert.equal(committablePath(p), false, p);
    for (const p of [".meta.json", ".gitignore", "memories/0190a6b2-7c3d-7e4f-8a9b-000000000001.json", "relations/ab/0190a6b2-7c3d-7e4f-8a9b-0000000000ab.json"]) assert.equal(committablePath(p), true, p);
    const out = await withStore(env, (s) => commitStore(s, env));
    assert.deepEqual(out.commits, []);
    assert.equal(git(store, "rev-parse", "HEAD").stdout.trim(), base);
  });

  test("an edit made in place to a file a write then replaces is its own commit, before the write's", async () => {
    const dir = tempDir("memsync-history-");
    const store = path.join(dir, "store");
    const env: OpsEnv = { storeRoot: store, hostName: "test-host", user: "tester", machineOverride: "test-machine" };
    await initStore(env);
    const base = git(store, "rev-parse", "HEAD").stdout.trim();
    const { memory, path: rel } = await withStore(env, (s) => saveMemory(s, env, { content: "written by memsync" }));
    const saved = treeOf(store);
    // past the racy window, looked at again: the index now trusts the folder as it is, so only
    // the write's look at the file it replaces can find an edit that left the folder unchanged
    await new Promise((r) => setTimeout(r, 250));
    await withStore(env, (s) => s.refresh());
    const file = path.join(store, rel);
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("written by memsync", "written by hand"));
    const edited = treeOf(store);
    await withStore(env, (s) => touchMemories(s, env, [memory.id], false));
    const touched = treeOf(store);
    await withStore(env, (s) => commitStore(s, env));
    const history = historyOf(store, base);
    assert.deepEqual(
      history.map((c) => `${c.tree} ${c.subject}`),
      [`${saved} save: ${memory.id.slice(-8)} written by memsync`, `${edited} edit: 1 file changed outside memsync`, `${touched} touch: 1 memory`],
    );
  });

  test("one sequence committed once at the end, and again after every operation: the same commits", async () => {
    // ids and times differ between two runs, so their trees cannot be compared byte for byte;
    // each run's history is its own recorded trees, and the two did the same, in the same order
    const once = await runSequence(41, 30, "end");
    const each = await runSequence(41, 30, "each");
    checkRun(once, "once");
    checkRun(each, "each");
    const kinds = (r: Run) => historyOf(r.store, r.base).map((c) => c.subject.replace(/[0-9a-f]{8}/g, "<id>").replace(/\(.*\)/, ""));
    assert.deepEqual(kinds(once), kinds(each));
  });
});
