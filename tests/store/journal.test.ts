import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { nodeFs } from "../../src/store/fs-port.ts";
import { appendJournal, dropJournal, JOURNAL_FILE, readJournal, readJournalText } from "../../src/store/journal.ts";

// dropJournal after a commit: the committed entries go, whatever was appended after them stays,
// whether the journal still begins with the bytes the commit read or not.

function store(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-journal-"));
  fs.mkdirSync(path.join(root, ".memsync"));
  return root;
}

const entry = (n: number, text = `{"n": ${n}, "é": "ü\\n"}\n`) => ({ op: "save", message: `save ${n}`, paths: [`memories/${n}.json`], files: { [`memories/${n}.json`]: text }, at: n });

/** Entries as plain JSON (files come back as an object without a prototype). */
const plain = (x: unknown) => JSON.parse(JSON.stringify(x));

describe("journal", () => {
  test("the entries read are dropped; one appended after the read stays", () => {
    const root = store();
    appendJournal(nodeFs, root, entry(1));
    appendJournal(nodeFs, root, entry(2, "x".repeat(100_000)));
    const read = readJournalText(nodeFs, root);
    assert.equal(read.entries.length, 2);
    appendJournal(nodeFs, root, entry(3));
    dropJournal(nodeFs, root, read.entries.length, read.bytes);
    assert.deepEqual(plain(readJournal(nodeFs, root)), [entry(3)]);
    const again = readJournalText(nodeFs, root);
    dropJournal(nodeFs, root, again.entries.length, again.bytes);
    assert.equal(fs.existsSync(path.join(root, JOURNAL_FILE)), false, "nothing left: the file goes");
  });

  test("a journal that no longer begins with the bytes read: the first entries are dropped by count", () => {
    const root = store();
    appendJournal(nodeFs, root, entry(1));
    appendJournal(nodeFs, root, entry(2));
    const read = readJournalText(nodeFs, root);
    // rewritten meanwhile (same length, other bytes), then appended to
    const file = path.join(root, JOURNAL_FILE);
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace('"save 1"', '"save 9"'));
    appendJournal(nodeFs, root, entry(3));
    dropJournal(nodeFs, root, read.entries.length, read.bytes);
    assert.deepEqual(plain(readJournal(nodeFs, root)), [entry(3)]);
  });

  test("bytes read that end in a torn line are no boundary: parsed whole again, the torn line skipped", () => {
    const root = store();
    appendJournal(nodeFs, root, entry(1));
    const file = path.join(root, JOURNAL_FILE);
    fs.appendFileSync(file, '{"op":"save","mess');
    const read = readJournalText(nodeFs, root);
    assert.equal(read.entries.length, 1);
    fs.appendFileSync(file, "\n");
    appendJournal(nodeFs, root, entry(2));
    dropJournal(nodeFs, root, read.entries.length, read.bytes);
    assert.deepEqual(plain(readJournal(nodeFs, root)), [entry(2)]);
  });
});
