import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { filesUnder, git, memsync, memsyncJson, newStore, tempDir } from "../helpers/env.ts";

// An import commits itself from the texts it has in memory, and its journal entry holds none of
// the files it created (`fill`, src/store/journal-fill.ts). Killed before that commit is done,
// the texts are only on disk: the next holder of the write lock must copy them into the entry
// before it writes anything, or a later change to an imported memory would reach history as part
// of the import (and the import's own text would be lost from history).

// enough objects that the commit writes a pack (PACK_THRESHOLD), so pack-written is reached
const N = 300;
const id = (kind: number, i: number) => `0190b00${kind}-0000-7000-8000-${String(i).padStart(12, "0")}`;
const FILL_MARKER = ".memsync/journal-fill.json";

function source(): string {
  const dir = tempDir("memsync-import-fill-src-");
  const memories = Array.from({ length: N }, (_, i) => JSON.stringify({ id: id(1, i), content: `memory ${i}: imported text`, meta: { tags: ["fill"] }, created_at: 1700000000 + i, last_used: 1700000000 + i, use_count: 1, strength: 1.0, status: "active" }));
  const relations = [JSON.stringify({ id: id(2, 0), from_memory_id: id(1, 0), to_memory_id: id(1, 1), relation_type: "related", strength: 0.5, created_at: 1700000000, metadata: {} })];
  fs.writeFileSync(path.join(dir, "memories.jsonl"), `${memories.join("\n")}\n`);
  fs.writeFileSync(path.join(dir, "relations.jsonl"), `${relations.join("\n")}\n`);
  return dir;
}

const rel = (store: string, abs: string) => path.relative(store, abs).split(path.sep).join("/");

describe("an import killed before its own commit", () => {
  for (const point of ["import-written", "pack-written", "commit-index"]) {
    test(`killed at ${point}: a touch of an imported memory, then commit: the import's commit holds the imported text, the touch's commit the touched one`, { timeout: 60_000 }, () => {
      const store = newStore();
      const src = source();
      const killed = memsync(["--store", store, "import", "cortexgraph", src], { env: { MEMSYNC_FAULT: point } });
      assert.equal(killed.code, -1, `killed by SIGKILL at ${point}: ${killed.stderr}`);
      assert.ok(fs.existsSync(path.join(store, FILL_MARKER)), "the fill marker is left by the dead import");
      const journal = fs.readFileSync(path.join(store, ".memsync/journal.jsonl"), "utf8");
      assert.ok(journal.length < 20_000, `the journal holds no imported texts (${journal.length} bytes)`);

      const file = filesUnder(path.join(store, "memories"), ".json").find((f) => f.endsWith(`${id(1, 0)}.json`))!;
      const imported = fs.readFileSync(file, "utf8");
      assert.equal(memsync(["--store", store, "touch", id(1, 0)]).code, 0);
      const touched = fs.readFileSync(file, "utf8");
      assert.notEqual(touched, imported);

      const c = memsyncJson(["--store", store, "commit"]);
      const messages = c.commits.map((x: { message: string }) => x.message);
      const at = messages.findIndex((m: string) => m.startsWith("import: cortexgraph"));
      assert.ok(at >= 0, `an import commit: ${messages.join(" | ")}`);
      assert.ok(messages.slice(at + 1).some((m: string) => m.startsWith("touch")), `a touch commit after it: ${messages.join(" | ")}`);
      const importCommit = c.commits[at].oid;
      const p = rel(store, file);
      assert.equal(git(store, "show", `${importCommit}:${p}`).stdout, imported, "the import's commit holds the imported text");
      assert.equal(git(store, "show", `HEAD:${p}`).stdout, touched, "the touch's commit holds the touched text");
      const inImport = git(store, "ls-tree", "-r", "--name-only", importCommit).stdout.split("\n").filter((l) => l.startsWith("memories/") || l.startsWith("relations/"));
      assert.equal(inImport.length, N + 1, "every imported file is in the import's commit");
      assert.equal(git(store, "fsck", "--strict").status, 0);
      assert.equal(git(store, "status", "--porcelain").stdout, "");
      assert.equal(fs.existsSync(path.join(store, FILL_MARKER)), false, "the marker is gone once its entry is filled");
    });
  }

  test("a marker with no fill entry (the import died before its entry was appended): the next writer removes it and changes no other entry", { timeout: 60_000 }, () => {
    const store = newStore();
    const saved = memsyncJson(["--store", store, "save", "pending before the marker"]).memory.id;
    const journal = path.join(store, ".memsync/journal.jsonl");
    const before = fs.readFileSync(journal, "utf8");
    fs.writeFileSync(path.join(store, FILL_MARKER), `${JSON.stringify({ started: Date.now() })}\n`);
    assert.equal(memsync(["--store", store, "touch", saved]).code, 0);
    assert.equal(fs.existsSync(path.join(store, FILL_MARKER)), false);
    assert.ok(fs.readFileSync(journal, "utf8").startsWith(before), "the entries before are as they were");
    const c = memsyncJson(["--store", store, "commit"]);
    assert.deepEqual(c.commits.map((x: { message: string }) => x.message.split(":")[0]), ["save", "touch"]);
  });

  test("uninterrupted: one import commit with every file, reported by --json; run again: nothing written, no empty commit", { timeout: 60_000 }, () => {
    const store = newStore();
    const src = source();
    const before = git(store, "rev-parse", "HEAD").stdout.trim();
    const out = memsyncJson(["--store", store, "import", "cortexgraph", src]);
    assert.match(out.commit, /^[0-9a-f]{40}$/);
    assert.equal(git(store, "rev-parse", "HEAD").stdout.trim(), out.commit);
    assert.equal(git(store, "rev-parse", `${out.commit}^`).stdout.trim(), before, "one commit on top of what was there");
    assert.equal(git(store, "log", "-1", "--format=%s").stdout.trim(), "import: cortexgraph 300 memories, 1 relations");
    assert.equal(git(store, "show", "--name-only", "--format=", out.commit).stdout.split("\n").filter((l) => l.startsWith("memories/") || l.startsWith("relations/")).length, N + 1);
    assert.equal(fs.existsSync(path.join(store, FILL_MARKER)), false);
    assert.equal(fs.existsSync(path.join(store, ".memsync/journal.jsonl")), false, "nothing pending");
    assert.equal(git(store, "fsck", "--strict").status, 0);
    assert.equal(git(store, "status", "--porcelain").stdout, "");
    const again = memsyncJson(["--store", store, "import", "cortexgraph", src]);
    assert.equal(again.commit, null);
    assert.equal(again.memories.existing, N);
    assert.equal(git(store, "rev-parse", "HEAD").stdout.trim(), out.commit, "no empty commit");
    const dry = memsyncJson(["--store", newStore(), "import", "cortexgraph", src, "--dry-run"]);
    assert.equal(dry.commit, null);
    assert.equal(dry.memories.imported, N);
  });
});
