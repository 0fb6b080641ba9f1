import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { BIN, git, memsync, memsyncJson, newStore, tempDir } from "../helpers/env.ts";

// An import writes its records in bulk (one flush at the end, src/store/bulk-write.ts) and its
// commit packs them (src/sync/pack-write.ts). Killed with SIGKILL at random moments, either must
// leave a store the next command repairs: no half-written record file, no bulk marker left
// behind, a .git that passes fsck --strict, and an import that, run again, completes.

const N = 300;
const RELS = 90;
const id = (kind: number, i: number) => `0190b00${kind}-0000-7000-8000-${String(i).padStart(12, "0")}`;

function source(): string {
  const dir = tempDir("memsync-import-kill-src-");
  const memories = Array.from({ length: N }, (_, i) =>
    JSON.stringify({ id: id(1, i), content: `memory ${i}: retries use exponential backoff with jitter`, meta: { tags: ["kill"] }, created_at: 1700000000 + i, last_used: 1700000000 + i, use_count: i % 5, strength: 1.0, status: "active" }),
  );
  const relations = Array.from({ length: RELS }, (_, i) => JSON.stringify({ id: id(2, i), from_memory_id: id(1, i), to_memory_id: id(1, i + 1), relation_type: "related", strength: 0.5, created_at: 1700000000 + i, metadata: {} }));
  fs.writeFileSync(path.join(dir, "memories.jsonl"), `${memories.join("\n")}\n`);
  fs.writeFileSync(path.join(dir, "relations.jsonl"), `${relations.join("\n")}\n`);
  return dir;
}

/** Run memsync and SIGKILL it after delayMs (it may finish first). */
function killedAfter(args: string[], delayMs: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { stdio: "ignore", env: { ...process.env, HOME: tempDir("memsync-home-"), MEMSYNC_MACHINE: "test-machine" } });
    const timer = setTimeout(() => child.kill("SIGKILL"), delayMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** Every record file (relative), and those that are not whole JSON. */
function recordFiles(store: string): { all: string[]; torn: string[] } {
  const all: string[] = [];
  for (const top of ["memories", "relations"]) {
    const walk = (rel: string) => {
      for (const e of fs.readdirSync(path.join(store, rel), { withFileTypes: true })) {
        if (e.isDirectory()) walk(`${rel}/${e.name}`);
        else if (e.name.endsWith(".json") && !e.name.startsWith(".")) all.push(`${rel}/${e.name}`);
      }
    };
    walk(top);
  }
  const torn = all.filter((rel) => {
    try {
      JSON.parse(fs.readFileSync(path.join(store, rel), "utf8"));
      return false;
    } catch {
      return true;
    }
  });
  return { all: all.sort(), torn };
}

const ids = (files: string[]) => files.map((f) => path.basename(f, ".json")).sort();

describe("import killed at random moments", () => {
  test("import and its commit, each SIGKILLed at random points: the next command repairs the store, and a second import completes", { timeout: 600_000 }, async () => {
    const src = source();
    // an uninterrupted run: how long each step takes here, and what the store holds after
    const whole = newStore();
    let t0 = Date.now();
    assert.equal(memsyncJson(["--store", whole, "import", "cortexgraph", src]).memories.imported, N);
    const importSpan = Date.now() - t0;
    t0 = Date.now();
    memsyncJson(["--store", whole, "commit"]);
    const commitSpan = Date.now() - t0;
    const expected = ids(recordFiles(whole).all);
    assert.equal(expected.length, N + RELS);

    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const store = newStore();
      const killCommit = i % 2 === 1;
      if (killCommit) {
        assert.equal(memsync(["--store", store, "import", "cortexgraph", src]).code, 0);
        outcomes.push(`commit killed -> ${await killedAfter(["--store", store, "commit"], Math.round(Math.random() * commitSpan * 1.1))}`);
      } else {
        outcomes.push(`import killed -> ${await killedAfter(["--store", store, "import", "cortexgraph", src], Math.round(Math.random() * importSpan * 1.1))}`);
      }
      const label = `${outcomes.at(-1)} (spans: import ${importSpan} ms, commit ${commitSpan} ms)`;
      // never a half-written record, whatever the moment
      assert.deepEqual(recordFiles(store).torn, [], label);
      // the next command repairs: status works and leaves no marker of a dead bulk write
      const status = memsync(["--store", store, "status", "--json"]);
      assert.equal(status.code, 0, `${label}: ${status.stderr}`);
      assert.equal(fs.existsSync(path.join(store, ".memsync/bulk-write.json")), false, label);
      // what the killed run left is committed; git finds the repository whole and the tree clean
      assert.equal(memsync(["--store", store, "commit"]).code, 0, label);
      const fsck = git(store, "fsck", "--strict");
      assert.equal(fsck.status, 0, `${label}: ${fsck.stderr}`);
      assert.equal(git(store, "status", "--porcelain").stdout, "", label);
      // the import run again completes it: every record, once
      const again = memsyncJson(["--store", store, "import", "cortexgraph", src]);
      assert.equal(again.memories.imported + again.memories.existing, N, label);
      assert.equal(again.relations.imported + again.relations.existing, RELS, label);
      assert.equal(memsync(["--store", store, "commit"]).code, 0, label);
      assert.deepEqual(ids(recordFiles(store).all), expected, label);
      assert.equal(git(store, "fsck", "--strict").status, 0, label);
      assert.equal(git(store, "status", "--porcelain").stdout, "", label);
    }
    console.log(`import-kill: ${outcomes.join("; ")} (exit null: killed)`);
  });

  test("a bulk write's marker left by a machine crash: torn files written since it are removed, whole ones kept; after a process kill nothing is removed", { timeout: 60_000 }, () => {
    const crashed = (boot: string) => {
      const store = newStore();
      const whole: string = memsyncJson(["--store", store, "save", "a whole record"]).memory.id;
      const torn = "0190c000-0000-7000-8000-000000000001";
      fs.writeFileSync(path.join(store, "memories", `${torn}.json`), '{\n  "id": "0190c000-00');
      fs.writeFileSync(path.join(store, ".memsync/bulk-write.json"), `${JSON.stringify({ boot, started: Date.now() - 60_000 })}\n`);
      assert.equal(memsync(["--store", store, "status"]).code, 0);
      assert.equal(fs.existsSync(path.join(store, ".memsync/bulk-write.json")), false, "the marker is gone");
      return { store, whole, torn };
    };
    const other = crashed("another-boot");
    assert.equal(fs.existsSync(path.join(other.store, "memories", `${other.torn}.json`)), false, "a torn file from before a crash is removed");
    assert.ok(recordFiles(other.store).all.some((f) => f.includes(other.whole)), "a whole file is kept");
    const bootId = fs.existsSync("/proc/sys/kernel/random/boot_id") ? fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() : null;
    if (bootId) {
      // the same boot: the writer was killed, the machine did not crash, so the page cache had
      // every byte it wrote; a file that does not parse was not made by it and is left for status
      const same = crashed(bootId);
      assert.equal(fs.existsSync(path.join(same.store, "memories", `${same.torn}.json`)), true);
    }
  });
});
