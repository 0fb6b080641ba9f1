import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { DIR, FILE, folderLstat, LINK, NONE, OTHER } from "../../src/store/folder-lstat.ts";
import { tempDir } from "../helpers/env.ts";

// status's stat threads read each folder through statx (src/store/folder-lstat.ts) where they
// can: every answer must be node:fs's lstat, stamp for stamp (the compare by sums adds the very
// numbers the index's rows hold), including after the JIT has compiled the loop.

const kindOf = (s: fs.Stats) => (s.isFile() ? FILE : s.isDirectory() ? DIR : s.isSymbolicLink() ? LINK : OTHER);

describe("a folder's lstat through statx", () => {
  test("the kind, mtime (as Bun floors mtimeMs), size and inode of files, folders, links and a fifo equal node:fs's, over thousands of calls", (t) => {
    const dir = tempDir();
    // mtimes whose nanoseconds sit at the edges of a millisecond, in three eras
    const nanos = ["000000000", "000000001", "000999999", "001000000", "123456789", "499999999", "500000000", "999000001", "999500000", "999999999"];
    const names: string[] = [];
    for (const sec of [1_600_000_000, 1_795_775_000, 2_000_000_001]) {
      for (const ns of nanos) {
        const name = `${sec}.${ns}.json`;
        fs.writeFileSync(path.join(dir, name), "x".repeat(names.length));
        execFileSync("touch", ["-m", "-d", `@${sec}.${ns}`, path.join(dir, name)]);
        names.push(name);
      }
    }
    fs.mkdirSync(path.join(dir, "ab"));
    fs.symlinkSync(path.join(dir, names[0]!), path.join(dir, "link.json"));
    fs.symlinkSync(path.join(dir, "nowhere"), path.join(dir, "dangling"));
    execFileSync("mkfifo", [path.join(dir, "fifo")]);
    fs.writeFileSync(path.join(dir, "é ü 名前.json"), "{}");
    const f = folderLstat(dir);
    if (!f) {
      t.skip("no statx binding here (not Linux under Bun)");
      return;
    }
    try {
      const all = fs.readdirSync(dir);
      assert.equal(all.length, names.length + 5);
      // enough rounds for the loop to be compiled by the optimizing tiers, whose reads of the
      // result buffer must still come after each call
      for (let round = 0; round < 60; round++) {
        for (const name of all) {
          const s = fs.lstatSync(path.join(dir, name));
          const kind = f.lstat(name);
          assert.equal(kind, kindOf(s), name);
          assert.deepEqual([...f.stamp], [Math.floor(s.mtimeMs), s.size, s.ino], `${name}, round ${round}`);
        }
      }
      assert.equal(f.lstat("not-there.json"), NONE);
    } finally {
      f.close();
    }
  });

  test("a folder that is not there: the open throws as node:fs does", () => {
    const dir = path.join(tempDir(), "gone");
    let found: unknown;
    try {
      folderLstat(dir);
    } catch (e) {
      found = e;
    }
    // no binding (not Linux under Bun): null, and node:fs answers
    if (found === undefined) return;
    assert.equal((found as { code?: string }).code, "ENOENT");
  });
});
