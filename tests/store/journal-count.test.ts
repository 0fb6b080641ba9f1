import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { nodeFs } from "../../src/store/fs-port.ts";
import { countJournal, countWholeLines, JOURNAL_COUNT_FILE } from "../../src/store/journal-count.ts";
import { appendJournal, dropJournal, JOURNAL_FILE, type JournalEntry, readJournal } from "../../src/store/journal.ts";
import { memsyncJson, newStore, tempDir } from "../helpers/env.ts";

// countJournal must give readJournal's count (entries other than "rescan") on every journal,
// whatever its cache holds: real journal files in temp folders, written as memsync writes them
// (appendJournal, dropJournal) and as crashes and other tools leave them.

const MIB = 1024 * 1024;

function storeDir(): string {
  const root = tempDir("memsync-jcount-");
  fs.mkdirSync(path.join(root, ".memsync"));
  return root;
}

const journalOf = (root: string) => path.join(root, JOURNAL_FILE);
const cacheOf = (root: string) => path.join(root, JOURNAL_COUNT_FILE);

function expected(root: string): number {
  return readJournal(nodeFs, root).filter((e) => e.op !== "rescan").length;
}

/** The count with the cache as it is, and again with none: both readJournal's. */
function assertCount(root: string, note: string): number {
  const want = expected(root);
  assert.equal(countJournal(nodeFs, root), want, `${note} (cached)`);
  const cache = fs.existsSync(cacheOf(root)) ? fs.readFileSync(cacheOf(root)) : null;
  fs.rmSync(cacheOf(root), { force: true });
  assert.equal(countJournal(nodeFs, root), want, `${note} (from scratch)`);
  if (cache) fs.writeFileSync(cacheOf(root), cache);
  return want;
}

function entry(op: string, text = "a memory", at = 1_700_000_000): JournalEntry {
  return { op, message: `${op}: ${text.slice(0, 20)}`, paths: [`memories/${op}.json`], files: { [`memories/${op}.json`]: text }, at };
}

const append = (root: string, text: string) => fs.appendFileSync(journalOf(root), text);

test("counts as readJournal does over appends, rescan entries, blank, foreign and CRLF lines", () => {
  const root = storeDir();
  assert.equal(countJournal(nodeFs, root), 0, "no journal");
  appendJournal(nodeFs, root, entry("save"));
  assert.equal(assertCount(root, "one save"), 1);
  appendJournal(nodeFs, root, { op: "rescan", message: "", paths: [], at: 1 });
  assert.equal(assertCount(root, "a rescan entry is not a change"), 1);
  // texts holding what the frame looks for, escaped inside strings
  appendJournal(nodeFs, root, entry("update", 'a text with {"op":"save"} and }\n and a "quote"'));
  appendJournal(nodeFs, root, entry("touch", "ends with }"));
  assert.equal(assertCount(root, "frame bytes inside texts"), 3);
  append(root, "\n   \n\t\n");
  assert.equal(assertCount(root, "blank lines"), 3);
  append(root, "not json at all\n[1,2]\n{}\n{\"paths\":[]}\n");
  assert.equal(assertCount(root, "foreign lines"), 3);
  append(root, `${JSON.stringify(entry("edit"))}\r\n`);
  append(root, `  ${JSON.stringify({ message: "m", op: "archive", paths: [], at: 2 })}  \n`);
  assert.equal(assertCount(root, "entries out of the writer's frame are parsed"), 5);
  for (let i = 0; i < 50; i++) appendJournal(nodeFs, root, entry(i % 7 === 0 ? "rescan" : "save", `memory ${i}`));
  assert.equal(assertCount(root, "many appends"), 5 + 50 - 8);
  const cache = JSON.parse(fs.readFileSync(cacheOf(root), "utf8"));
  assert.equal(cache.size, fs.statSync(journalOf(root)).size, "the cache holds the count up to the end");
});

test("a torn last line counts only if it parses; a torn line continued by the next append is not an entry", () => {
  const root = storeDir();
  appendJournal(nodeFs, root, entry("save"));
  countJournal(nodeFs, root); // cached at one whole line
  const line = JSON.stringify(entry("update"));
  append(root, line.slice(0, 40));
  assert.equal(assertCount(root, "torn mid-line"), 1);
  append(root, `${JSON.stringify(entry("touch"))}\n`);
  assert.equal(assertCount(root, "torn line then a whole append: one invalid line"), 1);
  append(root, line);
  assert.equal(assertCount(root, "a whole entry with no newline yet"), 2);
  append(root, "   ");
  assert.equal(assertCount(root, "...and JSON spaces after it"), 2);
  append(root, "\n");
  appendJournal(nodeFs, root, entry("save", "after"));
  assert.equal(assertCount(root, "completed"), 3);
});

test("a line a crash left with a zeroed block is parsed, not taken by its frame", () => {
  const root = storeDir();
  const line = Buffer.from(`${JSON.stringify(entry("save", "x".repeat(300)))}\n`);
  line.fill(0, 100, 200);
  fs.writeFileSync(journalOf(root), line);
  appendJournal(nodeFs, root, entry("update"));
  assert.equal(assertCount(root, "zeroed block"), 1);
});

test("lines longer than a read chunk: framed, torn, parsed alone, and a frame straddling two chunks", () => {
  const root = storeDir();
  appendJournal(nodeFs, root, entry("save", "y".repeat(MIB + 5000)));
  assert.equal(assertCount(root, "a long entry"), 1);
  appendJournal(nodeFs, root, { op: "rescan", message: "z".repeat(2 * MIB + 10), paths: [], at: 3 });
  assert.equal(assertCount(root, "a long rescan"), 1);
  // out of the frame (message first): parsed alone
  append(root, `${JSON.stringify({ message: "w".repeat(MIB + 1), op: "update", paths: [], at: 4 })}\n`);
  assert.equal(assertCount(root, "a long entry out of the frame"), 2);
  // a torn line whose continuation's {"op":" straddles a chunk boundary (reads start at line
  // starts, so at this line's start): not an entry, and only the read overlap finds it
  const start = fs.statSync(journalOf(root)).size;
  const tornHead = '{"op":"save","message":"';
  const torn = `${tornHead}${"v".repeat(MIB - 3 - tornHead.length)}`;
  assert.equal(torn.length, MIB - 3);
  append(root, `${torn}${JSON.stringify(entry("touch"))}\n`);
  assert.equal(fs.statSync(journalOf(root)).size > start + MIB, true);
  assert.equal(assertCount(root, "a second frame across the chunk boundary"), 2);
  // a long torn last line
  append(root, `{"op":"save","message":"${"u".repeat(MIB + 7)}`);
  assert.equal(assertCount(root, "a long torn tail"), 2);
  append(root, '","paths":[],"at":5}');
  assert.equal(assertCount(root, "a long whole entry with no newline"), 3);
});

test("countWholeLines counts only lines ending in a newline", () => {
  const a = JSON.stringify(entry("save"));
  assert.equal(countWholeLines(Buffer.from(`${a}\n${a}\n${a}`)), 2);
  assert.equal(countWholeLines(Buffer.from(`\n\n${a}\n`)), 1);
});

test("a commit's rewrite, even of the same size and head, is counted again", () => {
  const root = storeDir();
  // three entries of one length; a commit of the first leaves two, a rescan appended after
  // brings the journal back to its size with the same first bytes
  const e1 = entry("save", "memory one", 1_700_000_001);
  const e2 = entry("save", "memory two", 1_700_000_002);
  appendJournal(nodeFs, root, e1);
  appendJournal(nodeFs, root, e2);
  appendJournal(nodeFs, root, entry("save", "memory 3x", 1_700_000_003));
  const size = fs.statSync(journalOf(root)).size;
  assert.equal(assertCount(root, "before"), 3);
  dropJournal(nodeFs, root, 1);
  assert.equal(assertCount(root, "after the rewrite"), 2);
  const pad = { op: "rescan", message: "", paths: [] as string[], at: 1 };
  const fill = size - fs.statSync(journalOf(root)).size - Buffer.byteLength(`${JSON.stringify(pad)}\n`);
  appendJournal(nodeFs, root, { ...pad, message: "m".repeat(fill) });
  assert.equal(fs.statSync(journalOf(root)).size, size, "same size as counted before the commit");
  assert.equal(assertCount(root, "rewritten, regrown to the counted size"), 2);
  dropJournal(nodeFs, root, 5);
  assert.equal(fs.existsSync(journalOf(root)), false);
  assert.equal(countJournal(nodeFs, root), 0, "emptied by a commit");
  appendJournal(nodeFs, root, entry("touch"));
  assert.equal(assertCount(root, "a new journal after the commit"), 1);
});

test("a replaced file of equal size and head, an in-place rewrite and a truncation are counted again", () => {
  const root = storeDir();
  const save = `${JSON.stringify(entry("save", "same head", 1_700_000_000))}\n`;
  const rescanOf = (message: string) => `${JSON.stringify({ op: "rescan", message, paths: [], at: 1_700_000_000 })}\n`;
  const rescan = rescanOf("x".repeat(save.length - rescanOf("").length));
  assert.equal(rescan.length, save.length);
  fs.writeFileSync(journalOf(root), save + save);
  assert.equal(countJournal(nodeFs, root), 2);
  // replaced by a rename: a new file, the same size and first bytes, one change fewer
  const tmp = `${journalOf(root)}.new`;
  fs.writeFileSync(tmp, save + rescan);
  fs.renameSync(tmp, journalOf(root));
  assert.equal(assertCount(root, "replaced, equal size and head"), 1);
  // rewritten in place (same inode): equal size and head, other last bytes
  fs.writeFileSync(journalOf(root), save + save);
  assert.equal(countJournal(nodeFs, root), 2);
  fs.writeFileSync(journalOf(root), save + rescan);
  assert.equal(assertCount(root, "in place, equal size"), 1);
  // cut short in place, then grown past the counted size again
  fs.truncateSync(journalOf(root), 10);
  assert.equal(assertCount(root, "truncated"), 0);
  fs.writeFileSync(journalOf(root), rescan + rescan + save);
  assert.equal(assertCount(root, "rewritten longer in place"), 1);
});

test("a missing, corrupt or stale cache never gives a wrong number", () => {
  const root = storeDir();
  for (let i = 0; i < 5; i++) appendJournal(nodeFs, root, entry("save", `memory ${i}`));
  assert.equal(countJournal(nodeFs, root), 5);
  const good = fs.readFileSync(cacheOf(root), "utf8");
  for (const bad of ["", "{", "null", "[]", '{"ino":1}', JSON.stringify({ ...JSON.parse(good), count: "5" }), JSON.stringify({ ...JSON.parse(good), size: -1 })]) {
    fs.writeFileSync(cacheOf(root), bad);
    assert.equal(countJournal(nodeFs, root), 5, `cache ${JSON.stringify(bad)}`);
  }
  // a cache of a larger journal (counted past the end of this one)
  fs.writeFileSync(cacheOf(root), JSON.stringify({ ...JSON.parse(good), size: JSON.parse(good).size + 100, count: 9 }));
  assert.equal(countJournal(nodeFs, root), 5);
  // a cache of another machine's or store's journal, copied in
  const other = storeDir();
  for (let i = 0; i < 9; i++) appendJournal(nodeFs, other, entry("touch", `other ${i}`));
  countJournal(nodeFs, other);
  fs.copyFileSync(cacheOf(other), cacheOf(root));
  assert.equal(countJournal(nodeFs, root), 5);
  // a folder where the cache goes: counted, nothing thrown
  fs.rmSync(cacheOf(root));
  fs.mkdirSync(cacheOf(root));
  assert.equal(countJournal(nodeFs, root), 5);
  assert.deepEqual(fs.readdirSync(path.join(root, ".memsync")).filter((n) => n.endsWith(".tmp")), [], "no temp file left");
});

test("status reports the uncommitted changes after save, touch and commit", () => {
  const store = newStore();
  const status = () => memsyncJson(["--store", store, "status"]).uncommitted_changes as number;
  const before = status();
  const id = memsyncJson(["--store", store, "save", "--input", "-"], { input: JSON.stringify({ content: "journal count status note" }) }).memory.id as string;
  assert.equal(status(), before + 1);
  memsyncJson(["--store", store, "touch", id]);
  assert.equal(status(), before + 2);
  assert.equal(status(), expected(store), "as readJournal counts");
  memsyncJson(["--store", store, "commit"]);
  assert.equal(status(), 0);
  memsyncJson(["--store", store, "save", "--input", "-"], { input: JSON.stringify({ content: "one more after the commit" }) });
  assert.equal(status(), 1);
  assert.equal(fs.existsSync(path.join(store, JOURNAL_COUNT_FILE)), true, "the count is remembered");
});
