import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { nodeFs } from "../../src/store/fs-port.ts";
import { tempDir } from "../helpers/env.ts";

// A quick refresh reads each shard folder's mtime alone (fs-port.ts folderMtime): it must say
// what stat says of a folder, and null wherever stat finds no folder.
test("folderMtime: a folder's stat mtime; null for a file, nothing, or a path through a file", () => {
  const dir = tempDir("memsync-fmtime-");
  const sub = path.join(dir, "ab");
  fs.mkdirSync(sub);
  fs.utimesSync(sub, new Date(1_700_000_000_123), new Date(1_700_000_000_987));
  assert.equal(nodeFs.folderMtime(sub), nodeFs.stat(sub)!.mtime);
  assert.equal(nodeFs.folderMtime(sub), 1_700_000_000_987);
  fs.writeFileSync(path.join(dir, "f.json"), "{}");
  assert.equal(nodeFs.folderMtime(path.join(dir, "f.json")), null);
  assert.equal(nodeFs.folderMtime(path.join(dir, "missing")), null);
  assert.equal(nodeFs.folderMtime(path.join(dir, "f.json", "x")), null);
  // a link to a folder is followed, as stat follows it
  fs.symlinkSync(sub, path.join(dir, "link"));
  assert.equal(nodeFs.folderMtime(path.join(dir, "link")), 1_700_000_000_987);
});
