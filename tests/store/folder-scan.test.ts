import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { TEMP_SUFFIX } from "../../src/store/atomic-write.ts";
import { openFoldersThroughLibc } from "../../src/store/folder-lstat.ts";
import { scanFolder } from "../../src/store/folder-scan.ts";
import { readFolder } from "../../src/store/folder-snapshot.ts";
import { addStamp, emptySums } from "../../src/store/stamp-sums.ts";
import { tempDir } from "../helpers/env.ts";

// status reads each record folder with one open and one getdents64 listing where it can
// (src/store/folder-scan.ts), statting record files by the names' bytes in the listing's buffer:
// what it finds must be what node:fs's readdir + lstat find, number for number, whatever the
// folder holds, also once the loop is compiled by the optimizing tiers and across listings
// longer than one buffer.

/** readFolder's numbers and names made by node:fs alone, as the refresh would (refresh.ts folderSums). */
function reference(dir: string) {
  const st = fs.statSync(dir);
  const sums = emptySums();
  const temps: string[] = [];
  const links: string[] = [];
  const shards: string[] = [];
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith(".") && name.endsWith(TEMP_SUFFIX)) {
      temps.push(name);
      continue;
    }
    const record = name.endsWith(".json") && !name.startsWith(".");
    const p = path.join(dir, name);
    let s: fs.Stats | undefined = fs.lstatSync(p);
    if (s.isSymbolicLink()) {
      links.push(name);
      s = record ? fs.statSync(p, { throwIfNoEntry: false }) : undefined;
    }
    if (record && s?.isFile()) addStamp(sums, Math.floor(s.mtimeMs), s.size, s.ino);
    else if (!record && s?.isDirectory() && /^[0-9a-f]{2}$/.test(name)) shards.push(name);
  }
  const nums = [2, Math.floor(st.mtimeMs), st.size, st.ino, 1, sums.n, sums.mtimeHigh, sums.mtimeLow, sums.size, sums.mixed, temps.length, links.length];
  return { nums, temps, links, shards };
}

function oddFolder(): string {
  const dir = tempDir();
  // record files with mtimes at the edges of a millisecond, and many, so the listing takes several reads of the buffer
  const nanos = ["000000000", "000999999", "001000000", "499999999", "999999999"];
  for (let i = 0; i < 1500; i++) {
    const name = `${String(i).padStart(8, "0")}-aaaa-4aaa-8aaa-aaaaaaaaaaaa.json`;
    fs.writeFileSync(path.join(dir, name), "x".repeat(i % 97));
    if (i < nanos.length) execFileSync("touch", ["-m", "-d", `@1795775000.${nanos[i]}`, path.join(dir, name)]);
  }
  // names of every length up to the longest a folder takes (the NUL's place in each entry)
  for (let len = 6; len <= 255; len += 7) fs.writeFileSync(path.join(dir, `${"n".repeat(len - 5)}.json`), String(len));
  fs.writeFileSync(path.join(dir, "é ü 名前.json"), "{}");
  fs.writeFileSync(path.join(dir, ".json"), "a dot name that is no record");
  fs.writeFileSync(path.join(dir, ".hidden.json"), "no record either");
  fs.writeFileSync(path.join(dir, `.abc.json.x1${TEMP_SUFFIX}`), "{");
  fs.writeFileSync(path.join(dir, "README"), "no record");
  fs.mkdirSync(path.join(dir, "ab"));
  fs.mkdirSync(path.join(dir, "zz"));
  fs.mkdirSync(path.join(dir, "a-folder.json"));
  fs.symlinkSync(path.join(dir, "README"), path.join(dir, "link.json"));
  fs.symlinkSync(path.join(dir, "nowhere"), path.join(dir, "dangling.json"));
  fs.symlinkSync(path.join(dir, "ab"), path.join(dir, "cd"));
  fs.symlinkSync(path.join(dir, "nowhere"), path.join(dir, "dangling"));
  execFileSync("mkfifo", [path.join(dir, "fifo.json")]);
  execFileSync("mkfifo", [path.join(dir, "fifo")]);
  return dir;
}

describe("a record folder read by one open and one listing", () => {
  test("numbers and names equal node:fs's readdir + lstat, over many rounds and a listing longer than the buffer", (t) => {
    const dir = oddFolder();
    if (!scanFolder(dir)) {
      t.skip("no getdents64 binding here (not Linux under Bun)");
      return;
    }
    const want = reference(dir);
    assert.equal(want.nums[5], 1500 + 36 + 1 + 1, "the record files counted by the reference (the link to a file among them)");
    for (let round = 0; round < 60; round++) {
      const got = readFolder(dir);
      assert.deepEqual(got.nums, want.nums, `round ${round}`);
      assert.deepEqual(got.temps, want.temps);
      assert.deepEqual([...got.links].sort(), [...want.links].sort());
      assert.deepEqual(got.shards, want.shards);
    }
  });

  test("not a folder, or not there: no scan (node:fs answers), and readFolder as before", () => {
    const dir = tempDir();
    const file = path.join(dir, "f");
    fs.writeFileSync(file, "x");
    assert.equal(scanFolder(file), null);
    assert.equal(scanFolder(path.join(dir, "gone")), null);
    assert.equal(readFolder(path.join(dir, "gone")).nums[0], 0);
    assert.equal(readFolder(file).nums[0], 1);
    assert.equal(readFolder(file).nums[4], 0, "a file is not read as a folder");
  });

  test("opened by node:fs, then through libc as a stat thread opens: a fifo, a non-ASCII path, a path too long, a NUL in the path, no descriptor left open", (t) => {
    const dir = tempDir();
    if (!scanFolder(dir)) {
      t.skip("no getdents64 binding here");
      return;
    }
    const fifo = path.join(dir, "ab");
    execFileSync("mkfifo", [fifo]);
    const named = path.join(dir, "dossier-é-ü-日本");
    fs.mkdirSync(named);
    fs.writeFileSync(path.join(named, "0193a1b2-0000-7000-8000-000000000001.json"), "{}");
    const open = () => fs.readdirSync("/proc/self/fd").length;
    const check = () => {
      // a fifo where a folder is expected: refused at once (O_DIRECTORY), never an open that waits for a writer
      assert.equal(scanFolder(fifo), null);
      assert.deepEqual(readFolder(fifo).nums.slice(0, 1), [3], "a fifo is something else than a folder, as node:fs's stat says");
      // the path's bytes as UTF-8
      assert.deepEqual(readFolder(named).nums, reference(named).nums);
      assert.equal(scanFolder(named)?.sums.n, 1);
      // longer than the kernel takes, and a NUL: nothing read, as node:fs would not either
      assert.equal(scanFolder(`${dir}/${"x".repeat(5000)}`), null);
      assert.equal(scanFolder(`${named}\0/ignored`), null);
      // every descriptor closed: 200 scans leave no more open than the runtime's own come and go
      const before = open();
      for (let i = 0; i < 200; i++) scanFolder(named);
      assert.ok(open() - before < 20, `${open() - before} more descriptors open after 200 scans`);
    };
    check();
    // from here on this process opens folders as a stat thread does (the rest of this file too)
    openFoldersThroughLibc();
    check();
  });

  test("a folder reached through a link is read as the folder it points at", (t) => {
    const dir = oddFolder();
    const link = path.join(tempDir(), "via");
    fs.symlinkSync(dir, link);
    if (!scanFolder(link)) {
      t.skip("no getdents64 binding here");
      return;
    }
    assert.deepEqual(readFolder(link).nums, reference(link).nums);
  });
});
