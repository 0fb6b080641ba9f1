import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git } from "../helpers/env.ts";
import { hub, machine } from "../helpers/hub.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

const sync = async (dir: string) => await memsyncJson(["--store", dir, "sync"]);
const save = async (dir: string, text: string) => (await memsyncJson(["--store", dir, "save", text])).memory.id as string;

// A sync's commit looks only into folders whose mtime moved; an editor saving in place leaves
// its folder's mtime as it was. So a pull stats the files it is about to write (an edit there is
// committed and merged first), the next command's look at the folders it wrote into (their
// mtime moved; the pull itself stats only the files it wrote) journals any other file changed
// there, and an edit in place anywhere else is committed once a status (a full look, as `git
// status` stats every file) or the commit command has seen it. Never lost.

const file = (store: string, id: string) => path.join(store, "memories", `${id}.json`);

/** Rewrite a memory's content in place: same file, the folder's mtime unchanged. */
function editInPlace(store: string, id: string, content: string): void {
  const f = file(store, id);
  const rec = JSON.parse(fs.readFileSync(f, "utf8"));
  fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace(JSON.stringify(rec.content), JSON.stringify(content)));
}

const shown = (store: string, rev: string, id: string) => JSON.parse(git(store, "show", `${rev}:memories/${id}.json`).stdout);
const pastRacyWindow = () => new Promise((r) => setTimeout(r, 2200));

/** Machine a with these memories synced; b a clone of it whose index trusts its folders (past the racy window). */
async function twoMachines(first: string, second: string) {
  const h = hub();
  const a = machine(h.root, "a", h.bare);
  const ids = [await save(a, first), await save(a, second)] as const;
  await sync(a);
  const b = path.join(h.root, "b");
  assert.equal((await memsync(["clone", h.bare, b])).code, 0);
  await memsyncJson(["--store", b, "commit"]); // (a first commit compares every file with history)
  await pastRacyWindow();
  await memsyncJson(["--store", b, "list"]); // the index looks at the folders again and trusts them now
  return { h, a, b, ids };
}

describe("edits saved in place, and syncs that look only into folders whose mtime moved", () => {
  test("a file the pull overwrites is committed and merged first; another one in a folder it writes into is journaled", { timeout: 120_000 }, async () => {
    const { h, a, b, ids: [x, y] } = await twoMachines("x as saved on a", "y as saved on a");
    await memsyncJson(["--store", a, "touch", x]);
    await sync(a);

    editInPlace(b, x, "x edited by hand on b");
    editInPlace(b, y, "y edited by hand on b");
    const out = await sync(b);
    // x: the remote's touch and b's edit, both
    const merged = shown(b, "HEAD", x);
    assert.equal(merged.content, "x edited by hand on b", JSON.stringify(out));
    assert.equal(merged.use_count, 1, "a's touch counted");
    assert.equal(shown(h.bare, "main", x).content, "x edited by hand on b", "pushed");
    const log = git(b, "log", "--format=%s").stdout;
    assert.ok(log.includes("edit: 1 file changed outside memsync"), log);
    // y: still on disk, journaled, committed by the next sync
    assert.equal(JSON.parse(fs.readFileSync(file(b, y), "utf8")).content, "y edited by hand on b");
    assert.ok((await memsyncJson(["--store", b, "status"])).uncommitted_changes >= 1);
    await sync(b);
    assert.equal(shown(h.bare, "main", y).content, "y edited by hand on b");
    assert.equal(git(b, "status", "--porcelain").stdout, "");
  });

  test("another file of a folder the pull wrote into, edited in place, is committed by the next sync without a status", { timeout: 120_000 }, async () => {
    const { h, a, b, ids: [x, y] } = await twoMachines("x as saved on a", "y as saved on a");
    await memsyncJson(["--store", a, "touch", x]);
    await sync(a);

    editInPlace(b, y, "y edited by hand on b");
    await sync(b); // pulls x into the folder y is in
    assert.equal(shown(b, "HEAD", x).use_count, 1, "a's touch pulled");
    assert.equal(JSON.parse(fs.readFileSync(file(b, y), "utf8")).content, "y edited by hand on b", "left as it is");
    // the pull recorded nothing of the folder that would hide y: the next sync's quick look finds it
    await sync(b);
    assert.equal(shown(b, "HEAD", y).content, "y edited by hand on b");
    assert.equal(shown(h.bare, "main", y).content, "y edited by hand on b");
    assert.equal(git(b, "status", "--porcelain").stdout, "");
  });

  test("an edit elsewhere waits for a status (or the commit command) to be committed; nothing is overwritten", { timeout: 120_000 }, async () => {
    const { h, a, b, ids: [x, z] } = await twoMachines("x, related on a", "z, edited on b");
    await memsyncJson(["--store", a, "relate", x, z]);
    await sync(a); // the pull brings a relation: memories/ is not written

    editInPlace(b, z, "z edited by hand on b");
    await sync(b);
    assert.equal(JSON.parse(fs.readFileSync(file(b, z), "utf8")).content, "z edited by hand on b", "left as it is");
    assert.equal(shown(b, "HEAD", z).content, "z, edited on b", "not seen by the sync's quick look");
    assert.equal((await memsyncJson(["--store", b, "status"])).uncommitted_changes, 1, "status sees it");
    await sync(b);
    assert.equal(shown(h.bare, "main", z).content, "z edited by hand on b");
    assert.equal(git(b, "status", "--porcelain").stdout, "");
  });
});
