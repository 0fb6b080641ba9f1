import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { applyDelta, forgetPackIndexes, readPackedObject } from "../../src/sync/pack-index.ts";
import { git, tempDir } from "../helpers/env.ts";

// Objects read straight from pack files (src/sync/pack-index.ts readPackedObject): every object of
// packs native git wrote, with offset deltas and with ref deltas, byte for byte as `git cat-file`
// gives them; a damaged entry is no object (the caller falls back), never a wrong one.

function gitOk(cwd: string, ...args: string[]): string {
  const r = git(cwd, ...args);
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** Every object as native git reads it: id -> [type, content]. */
function nativeObjects(repo: string): Map<string, [string, Buffer]> {
  const r = spawnSync("git", ["cat-file", "--batch-all-objects", "--batch"], { cwd: repo, maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, String(r.stderr));
  const out = new Map<string, [string, Buffer]>();
  const buf = r.stdout as Buffer;
  let i = 0;
  while (i < buf.length) {
    const nl = buf.indexOf(10, i);
    const [oid, type, size] = buf.subarray(i, nl).toString("latin1").split(" ");
    const n = Number(size);
    out.set(oid!, [type!, buf.subarray(nl + 1, nl + 1 + n)]);
    i = nl + 1 + n + 1;
  }
  return out;
}

/** A history whose files change a little each commit (one git fast-import), so git's packs hold long delta chains. */
function historyRepo(): string {
  const repo = tempDir("pack-read-");
  gitOk(repo, "init", "-q", "-b", "main");
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i}: ${"the quick brown fox ".repeat(3)}`);
  let stream = "";
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  for (let c = 0; c < 25; c++) {
    lines[(c * 37) % lines.length] = `changed in commit ${c}`;
    stream += `commit refs/heads/main\ncommitter t <t@example.com> ${1_790_000_000 + c} +0000\n${data(`commit ${c}`)}`;
    stream += `M 100644 inline memories/${c % 4}/a.json\n${data(`${lines.join("\n")}\n`)}`;
    stream += `M 100644 inline b.txt\n${data(`${lines.slice(c).join("\n")}\n`)}\n`;
  }
  const r = spawnSync("git", ["fast-import", "--quiet"], { cwd: repo, input: stream });
  assert.equal(r.status, 0, String(r.stderr));
  return repo;
}

function checkAll(repo: string, expectDeltas: string): void {
  const verify = gitOk(repo, "verify-pack", "-v", ...fs.readdirSync(path.join(repo, ".git/objects/pack")).filter((n) => n.endsWith(".idx")).map((n) => `.git/objects/pack/${n}`));
  assert.match(verify, new RegExp(expectDeltas), "the pack holds deltas");
  const gitdir = path.join(repo, ".git");
  forgetPackIndexes(gitdir);
  const objects = nativeObjects(repo);
  assert.ok(objects.size > 60);
  for (const [oid, [type, content]] of objects) {
    const got = readPackedObject(gitdir, oid);
    assert.ok(got, `read ${oid}`);
    assert.equal(got.type, type, oid);
    assert.ok(Buffer.from(got.content).equals(content), `content of ${type} ${oid}`);
  }
  assert.equal(readPackedObject(gitdir, "0".repeat(40)), null, "an object no pack lists");
}

describe("objects read straight from packs", () => {
  test("every object of native git's packs, offset deltas and ref deltas, as git cat-file reads it; a damaged entry reads as none", { timeout: 60_000 }, () => {
    const repo = historyRepo();
    gitOk(repo, "repack", "-adq", "--depth=50", "--window=50");
    checkAll(repo, "chain length = [2-9]");
    // ref deltas (the base named by id): what a pack built without offset deltas holds
    gitOk(repo, "-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq", "--depth=50", "--window=50");
    checkAll(repo, "chain length = [2-9]");
    // a damaged pack: entries whose bytes changed do not inflate (or fail their delta) and read as none
    const gitdir = path.join(repo, ".git");
    const objects = nativeObjects(repo);
    const pack = fs.readdirSync(path.join(gitdir, "objects/pack")).find((n) => n.endsWith(".pack"))!;
    const file = path.join(gitdir, "objects/pack", pack);
    const bytes = fs.readFileSync(file);
    for (let i = 12; i < bytes.length - 20; i += 7) bytes[i] = bytes[i]! ^ 0x55;
    fs.writeFileSync(file, bytes);
    forgetPackIndexes(gitdir);
    let wrong = 0;
    for (const [oid, [type, content]] of objects) {
      const got = readPackedObject(gitdir, oid);
      if (got && (got.type !== type || !Buffer.from(got.content).equals(content))) wrong++;
    }
    assert.equal(wrong, 0, "no damaged entry reads as a different object");
  });

  test("delta instructions: copies (offsets and lengths of 1-4 and 1-3 bytes, 0 meaning 64 KiB) and inserts", () => {
    const base = new Uint8Array(0x20000).map((_, i) => i % 251);
    const delta = [
      ...[0x80, 0x80, 0x08], // base size 0x20000 as a varint
      ...[0x8d, 0x80, 0x04], // result size 0x1000d
      0x05,
      ...[104, 101, 108, 108, 111], // insert "hello"
      0x80 | 0x01 | 0x02 | 0x10, // copy: offset 2 bytes, length 1 byte
      0x34,
      0x12,
      0x08,
      0x80 | 0x04, // copy: offset byte 2 only (0x010000), length 0 = 0x10000
      0x01,
    ];
    const out = applyDelta(base, new Uint8Array(delta));
    assert.equal(out.length, 0x1000d);
    assert.deepEqual([...out.subarray(0, 5)], [104, 101, 108, 108, 111]);
    assert.deepEqual([...out.subarray(5, 13)], [...base.subarray(0x1234, 0x123c)]);
    assert.deepEqual(out.subarray(13), base.subarray(0x10000, 0x20000));
    assert.throws(() => applyDelta(base.subarray(1), new Uint8Array(delta)), /base size/);
    assert.throws(() => applyDelta(base, new Uint8Array([0x80, 0x80, 0x08, 0x01, 0x00])), /opcode 0/);
  });
});

describe("a repository repacked by another process while this one reads it", () => {
  test("the packs are read again when they changed, and every object is found without isomorphic-git", async () => {
    const { readObjectNative, packsChangedSinceRead } = await import("../../src/sync/pack-index.ts");
    const repo = tempDir("pack-reread-");
    gitOk(repo, "init", "-q", "-b", "main");
    for (let i = 0; i < 3; i++) {
      fs.writeFileSync(path.join(repo, `f${i}.txt`), `file ${i}\n`);
      gitOk(repo, "add", ".");
      gitOk(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", `c${i}`);
      gitOk(repo, "repack", "-dq"); // one pack per commit, no loose objects: the reader lists the packs
    }
    const gitdir = path.join(repo, ".git");
    forgetPackIndexes(gitdir);
    const head = gitOk(repo, "rev-parse", "HEAD").trim();
    assert.ok(readObjectNative(gitdir, head), "read from the packs as they were");
    assert.equal(packsChangedSinceRead(gitdir), false);
    // another process: everything into one new pack, the old ones removed
    gitOk(repo, "repack", "-adq");
    const objects = nativeObjects(repo);
    const misses = [...objects.keys()].filter((oid) => !readObjectNative(gitdir, oid));
    assert.ok(misses.length > 0, "the packs read before are gone");
    assert.equal(packsChangedSinceRead(gitdir), true, "their names changed");
    for (const [oid, [type, content]] of objects) {
      const got = readObjectNative(gitdir, oid);
      assert.ok(got, `${oid} not found after the packs were read again`);
      assert.equal(got.type, type);
      assert.deepEqual(Buffer.from(got.content), content);
    }
    assert.equal(packsChangedSinceRead(gitdir), false, "read again: unchanged since");
  });
});
