import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { tempNameFor } from "../../src/store/atomic-write.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { tempDir } from "../helpers/env.ts";

// A bulk write's new files made on worker threads (src/store/parallel-create.ts), on a real disk:
// every file whole with its stat, no temp file left, a failure thrown by settle as the fs call threw it, and a
// link at a temp name never followed.

const names = (dir: string) => fs.readdirSync(dir).sort();

describe("parallel file creation", () => {
  test("300 files in 4 folders (past the inline start, so on the threads): each whole, no temp left", () => {
    const root = tempDir("memsync-pc-");
    const dirs = ["a", "b", "c", "d"].map((d) => path.join(root, d));
    for (const d of dirs) fs.mkdirSync(d);
    const creator = nodeFs.parallelCreator!();
    const want = new Map<string, string>();
    for (let i = 0; i < 300; i++) {
      const dir = dirs[i % 4]!;
      const name = `f${i}.json`;
      const text = `{"n":${i},"pad":"${"x".repeat(i)}"}\n`;
      creator.create(dir, tempNameFor(name), name, text);
      want.set(path.join(dir, name), text);
    }
    // what ready gives without waiting, then what settle gives: every file's stat once, in order
    const early = creator.ready();
    const made = [...early, ...creator.settle()];
    creator.close();
    assert.ok(early.length >= 64, "the files made on the calling thread are ready at once");
    for (const [file, text] of want) assert.equal(fs.readFileSync(file, "utf8"), text, file);
    // each file's stat, in order, as the store's port gives it (the index row is made of it)
    assert.equal(made.length, 300);
    const three = (s: { mtime: number; size: number; ino: number } | null | undefined) => s && { mtime: s.mtime, size: s.size, ino: s.ino };
    [...want.keys()].forEach((file, i) => assert.deepEqual(three(made[i]), three(nodeFs.stat(file)), file));
    for (const d of dirs) assert.deepEqual(names(d).filter((n) => n.startsWith(".")), [], `temp files left in ${d}`);
    assert.equal(dirs.reduce((n, d) => n + names(d).length, 0), 300);
  });

  test("a file that cannot be made: settle throws its error (code and path), the rest are made, no temp left", () => {
    const root = tempDir("memsync-pc-");
    const ok = path.join(root, "ok");
    fs.mkdirSync(ok);
    const creator = nodeFs.parallelCreator!();
    for (let i = 0; i < 200; i++) creator.create(ok, tempNameFor(`f${i}.json`), `f${i}.json`, "{}\n");
    creator.create(path.join(root, "missing"), tempNameFor("g.json"), "g.json", "{}\n");
    for (let i = 200; i < 250; i++) creator.create(ok, tempNameFor(`f${i}.json`), `f${i}.json`, "{}\n");
    assert.throws(
      () => creator.settle(),
      (e: Error & { code?: string; path?: string }) => e.code === "ENOENT" && (e.path ?? "").includes("missing"),
    );
    creator.close();
    assert.equal(names(ok).length, 250);
    assert.deepEqual(names(ok).filter((n) => n.startsWith(".")), []);
  });

  test("a link planted at a temp name is not followed: the file fails (EEXIST), the link's target is unchanged", () => {
    const root = tempDir("memsync-pc-");
    const dir = path.join(root, "d");
    fs.mkdirSync(dir);
    const outside = path.join(root, "outside.txt");
    fs.writeFileSync(outside, "untouched\n");
    const creator = nodeFs.parallelCreator!();
    for (let i = 0; i < 100; i++) creator.create(dir, tempNameFor(`f${i}.json`), `f${i}.json`, "{}\n");
    const temp = tempNameFor("planted.json");
    fs.symlinkSync(outside, path.join(dir, temp));
    creator.create(dir, temp, "planted.json", "{\"evil\":true}\n");
    assert.throws(() => creator.settle(), (e: Error & { code?: string }) => e.code === "EEXIST");
    creator.close();
    assert.equal(fs.readFileSync(outside, "utf8"), "untouched\n");
    assert.equal(fs.existsSync(path.join(dir, "planted.json")), false);
  });
});
