import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { OpCall } from "../../src/ops/catalogue/index.ts";
import { runOp } from "../../src/ops/catalogue/run.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { bootId } from "../../src/store/boot.ts";
import { nodeFs, type StoreFs } from "../../src/store/fs-port.ts";
import { JOURNAL_FILE, readJournal } from "../../src/store/journal.ts";
import { recordPath } from "../../src/store/layout.ts";
import { REDO_MARKER } from "../../src/store/redo.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// One durable point per acknowledged write (store/redo.ts): a shared record's file is written
// without its own fsyncs, its journal line being the write's durable copy. A kill loses nothing
// (the page cache survives it); these tests stand in for a crash of the machine: the files
// written since the last durable point are left as a lost page cache can leave them (the old
// version back, cut short, empty, zeros, a removal undone, a new file gone) and the redo marker
// names another boot (as pull's tests fake a crash). The next command must bring back every
// acknowledged write of touch, save, update, archive, delete and relate.

const linux = bootId() !== null;

function callIn(dir: string): OpCall {
  const env = opsEnvOf({ store: "store", vars: { MEMSYNC_MACHINE: "redo-test" }, cwd: dir, home: dir, hostName: "host", user: "tester" });
  return { env, cwd: dir };
}

/** The machine crashed: the marker was left by another boot. */
function crash(root: string): void {
  const marker = path.join(root, REDO_MARKER);
  const was = JSON.parse(fs.readFileSync(marker, "utf8")) as Record<string, unknown>;
  fs.writeFileSync(marker, `${JSON.stringify({ ...was, boot: "another-boot" })}\n`);
}

test("after a crash of the machine, every acknowledged write the disk lost comes back", { skip: !linux && "needs a boot id (Linux)" }, async () => {
  const dir = tempDir("memsync-redo-");
  const root = path.join(dir, "store");
  const c = callIn(dir);
  const save = async (content: string) => (await runOp<any>("save", c, { memory: { content } })).memory.id as string;
  const [a, b, arch, d, f] = [await save("cursor pagination for list endpoints"), await save("offset pagination times out"), await save("use zod for schemas"), await save("a memory to delete"), await save("a memory edited by hand")];
  const at = (id: string) => path.join(root, recordPath("memory", id, false, "shared"));
  await runOp("commit", c, {});
  assert.equal(fs.existsSync(path.join(root, REDO_MARKER)), false, "a commit is a durable point: the marker goes");
  // the old versions as the disk holds them (their inodes), to put back as a crash would
  for (const id of [a, d]) fs.linkSync(at(id), path.join(dir, `old-${id}`));

  await runOp("touch", c, { ids: [a] });
  await runOp("touch", c, { ids: [a] });
  await runOp("update", c, { id: b, patch: { content: "offset pagination times out past 1M rows" } });
  await runOp("archive", c, { ids: [arch] });
  await runOp("delete", c, { ids: [d] });
  const rel = (await runOp<any>("relate", c, { from: a, to: b, type: "supports" })).relation.id as string;
  const e = await save("saved after the last durable point");
  await runOp("touch", c, { ids: [f] });
  assert.ok(fs.existsSync(path.join(root, REDO_MARKER)), "the first write after the durable point left the marker");
  const relFile = path.join(root, recordPath("relation", rel, false, "shared"));
  const want = new Map([a, b, arch, e, f].map((id) => [at(id), fs.readFileSync(at(id), "utf8")] as const));
  want.set(relFile, fs.readFileSync(relFile, "utf8"));
  const stamped = new Set(readJournal(nodeFs, root).flatMap((x) => Object.keys(x.redo ?? {})));
  for (const p of [...want.keys(), at(d)]) assert.ok(stamped.has(path.relative(root, p)), `the journal stamps ${path.relative(root, p)}`);

  // the page cache lost: each file as a crash may leave it
  fs.renameSync(path.join(dir, `old-${a}`), at(a)); // the rename lost: the old version (its own inode) is back
  fs.truncateSync(at(b), Math.floor(fs.statSync(at(b)).size / 2)); // cut short
  fs.truncateSync(at(arch), 0); // empty
  fs.renameSync(path.join(dir, `old-${d}`), at(d)); // the removal lost
  fs.unlinkSync(relFile); // the new file's name lost
  fs.writeFileSync(at(e), Buffer.alloc(fs.statSync(at(e)).size), { flag: "r+" }); // its data lost: zeros
  // and one file changed by hand after its write (a new file, later): that change is kept
  const hand = fs.readFileSync(at(f), "utf8").replace("a memory edited by hand", "edited by hand after the touch");
  await new Promise((r) => setTimeout(r, 5));
  fs.writeFileSync(`${at(f)}.tmp-hand`, hand);
  fs.renameSync(`${at(f)}.tmp-hand`, at(f));
  want.set(at(f), hand);
  crash(root);

  // the next command, whatever it is, first writes back what the crash lost
  const got = await runOp<any>("get", c, { ids: [a, b, arch, e] });
  const byId = new Map<string, any>(got.found.map((x: any) => [x.memory.id, x.memory]));
  assert.equal(Object.values(byId.get(a).counters.use_count as Record<string, number>).reduce((s, n) => s + n, 0), 2, "both touches");
  assert.equal(byId.get(b).content, "offset pagination times out past 1M rows");
  assert.equal(byId.get(arch).status, "archived");
  assert.equal(byId.get(e).content, "saved after the last durable point");
  for (const [p, text] of want) assert.equal(fs.readFileSync(p, "utf8"), text, path.relative(root, p));
  assert.equal(fs.existsSync(at(d)), false, "the deletion stands");
  assert.equal(fs.existsSync(path.join(root, REDO_MARKER)), false, "recovered and made durable: the marker goes");
  assert.equal((await runOp<any>("status", c, {})).health, "healthy");
  await runOp("commit", c, {});
  assert.equal(fs.existsSync(path.join(root, JOURNAL_FILE)), false);
});

test("a shared record's write makes one fsync (its journal line); a local one stays durable on its own", { skip: !linux && "needs a boot id (Linux)" }, async () => {
  const dir = tempDir("memsync-redo-");
  const c = callIn(dir);
  const id = (await runOp<any>("save", c, { memory: { content: "counted fsyncs" } })).memory.id as string;
  const local = (await runOp<any>("save", c, { memory: { content: "a machine-local memory", scope: "local" } })).memory.id as string;
  const root = path.join(dir, "store");
  const calls: string[] = [];
  const counting: StoreFs = { ...nodeFs };
  for (const k of ["writeNewDurable", "fsyncFile", "fsyncDir", "appendDurable", "syncAll"] as const) {
    const real = nodeFs[k] as (...a: unknown[]) => unknown;
    (counting as unknown as Record<string, unknown>)[k] = (...args: unknown[]) => {
      calls.push(k);
      return real(...args);
    };
  }
  const store = await Store.open(root, { fs: counting });
  try {
    const touchIt = (mid: string) => store.write((tx) => void tx.putMemory({ ...tx.memory(mid), updated_at: tx.now + 1 }), []);
    await touchIt(id);
    assert.deepEqual(calls, ["appendDurable"], "the journal line alone");
    calls.length = 0;
    await touchIt(local);
    assert.deepEqual(calls, ["writeNewDurable", "fsyncDir"], "a local record is not journaled: its file and folder are fsynced");
  } finally {
    store.close();
  }
});
