import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { memsyncJson, newStore, readMemoryFile, tempDir } from "../helpers/env.ts";

// New content, new readings: an update of the content reads the decision, entities, fingerprint
// and gist again from the new text (unless the same update gives them), so context, MEMORY.md
// and promoted notes show the new rationale, not the old one.

const OLD = "We decided to use MySQL for the analytics database because the team knows it well";
const NEW = "We decided to use PostgreSQL for the analytics database because we need JSONB columns";

describe("update re-reads what was read from the content", () => {
  test("decision what/why, entities, fingerprint and gist follow the new text; context, MEMORY.md and a promoted note show the new reason", () => {
    const store = newStore();
    const s = (...args: string[]) => memsyncJson(["--store", store, ...args]);
    const id = s("remember", OLD, "--project", "shop", "--entity", "Grafana").memory.id as string;
    const before = readMemoryFile(store, id);
    assert.equal(before.type, "decision");
    assert.match(before.decision.why, /team knows it/);
    assert.ok(before.entities.map((e: string) => e.toLowerCase()).includes("mysql"), JSON.stringify(before.entities));

    // long and wordy enough to get a gist
    const long = `${NEW}. Basically, the reporting service actually reads all of the same tables every single night, and honestly the JSONB columns really let it keep all of the raw events right next to the rollups without having to run a second store at all.`;
    s("update", id, "--content", long);
    const m = readMemoryFile(store, id);
    assert.match(m.decision.what, /postgresql/i);
    assert.match(m.decision.why, /JSONB/i);
    assert.doesNotMatch(JSON.stringify(m.decision), /team knows|mysql/i);
    const names = m.entities.map((e: string) => e.toLowerCase());
    assert.ok(names.includes("postgresql"), JSON.stringify(m.entities));
    assert.ok(!names.includes("mysql"), "an entity only the old text named goes");
    assert.ok(names.includes("grafana"), "an entity given by hand that the old text never named stays");
    assert.notEqual(m.fingerprint, before.fingerprint);
    assert.match(m.fingerprint, /postgresql/);
    assert.ok(m.gist && /JSONB/i.test(m.gist), `a gist of the new text: ${m.gist}`);

    const ctx = s("context", "--project", "shop");
    assert.match(ctx.text, /because: [^)]*JSONB/i);
    assert.doesNotMatch(ctx.text, /team knows/);

    const file = path.join(tempDir(), "MEMORY.md");
    s("export", "memory-md", "--project", "shop", "--file", file);
    const md = fs.readFileSync(file, "utf8");
    assert.match(md, /JSONB/i);
    assert.doesNotMatch(md, /team knows|MySQL/);

    const vault = path.join(tempDir(), "vault");
    const note = s("promote", id, "--vault", vault).promoted[0].note as string;
    const text = fs.readFileSync(note, "utf8");
    assert.match(text, /\*\*Why:\*\* [^\n]*JSONB/i);
    assert.doesNotMatch(text, /team knows/);
  });

  test("what the same update gives explicitly is kept as given; a memory with no decision gets none", () => {
    const store = newStore();
    const s = (...args: string[]) => memsyncJson(["--store", store, ...args]);
    const input = path.join(tempDir(), "patch.json");
    const id = s("remember", OLD, "--project", "shop").memory.id as string;
    fs.writeFileSync(input, JSON.stringify({ content: NEW, decision: { what: "postgres", why: "given by hand" } }));
    s("update", id, "--input", input, "--entity", "Postgres-Cluster");
    const m = readMemoryFile(store, id);
    assert.deepEqual([m.decision.what, m.decision.why], ["postgres", "given by hand"]);
    assert.deepEqual(m.entities, ["Postgres-Cluster"]);

    const fact = s("save", "The staging database runs on MySQL", "--entity", "Grafana").memory.id as string;
    s("update", fact, "--content", "The staging database runs on PostgreSQL");
    const f = readMemoryFile(store, fact);
    assert.equal(f.decision, null);
    assert.deepEqual(f.entities.map((e: string) => e.toLowerCase()).sort(), ["grafana", "postgresql"]);
  });

  test("a note promoted before the update is rewritten with the new content; a file at promoted_to that is not its note, or a symlink, is left alone", () => {
    const store = newStore();
    const s = (...args: string[]) => memsyncJson(["--store", store, ...args]);
    const vault = path.join(tempDir(), "vault");
    const id = s("remember", OLD, "--project", "shop").memory.id as string;
    const note = s("promote", id, "--vault", vault).promoted[0].note as string;
    assert.match(fs.readFileSync(note, "utf8"), /team knows/);

    const out = s("update", id, "--content", NEW);
    assert.deepEqual(out.notes_refreshed, [note]);
    const text = fs.readFileSync(note, "utf8");
    assert.match(text, /PostgreSQL/);
    assert.match(text, /\*\*Why:\*\* [^\n]*JSONB/i);
    assert.doesNotMatch(text, /team knows|MySQL/);
    assert.equal(readMemoryFile(store, id).status, "promoted");
    assert.deepEqual(fs.readdirSync(vault), [path.basename(note)], "no temp file left in the vault");

    // the user replaced the note by their own file: never overwritten
    fs.writeFileSync(note, "my own notes\n");
    assert.equal(s("update", id, "--content", OLD).notes_refreshed, undefined);
    assert.equal(fs.readFileSync(note, "utf8"), "my own notes\n");

    // a symlink at promoted_to, to a note of this memory elsewhere: not written through
    const elsewhere = path.join(tempDir(), "elsewhere.md");
    fs.writeFileSync(elsewhere, `---\nstm_id: "${id}"\n---\nold\n`);
    fs.rmSync(note);
    fs.symlinkSync(elsewhere, note);
    assert.equal(s("update", id, "--content", NEW).notes_refreshed, undefined);
    assert.match(fs.readFileSync(elsewhere, "utf8"), /^---\nstm_id/);
    assert.ok(fs.lstatSync(note).isSymbolicLink());
  });
});
