import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { extractCaptures } from "../../src/core/capture/extract.ts";
import { scopedInstruction } from "../../src/core/capture/scoped-instruction.ts";
import { assertLookAlikes, keptByRules } from "../helpers/look-alikes.ts";

// Branch capture31: an instruction to the assistant for every task of a kind ("Whenever you write an
// importer, add a dry-run flag", "When I paste a SQL error, ...", "Ask me before you add any new
// gem") is a standing preference, whatever output it is about; the same words for the task at hand
// ("When you're done with the importer, show me the diff", "When you get a chance, ...") are a
// request. Main a1212ea stored the one-task lines (by its "when you" cue or its learned table),
// missed the kinds not about its output, and kept only the occasion clause as what was said. None
// is the corpus's wording.

describe("capture: instructions for a kind of task are kept, instructions for this task are not", () => {
  test("the rules: one task against a kind of task, occasion said first or after", () => {
    assertLookAlikes([
      ["When you're done with the invoice importer, show me the diff.", "Whenever you write an importer for the invoice service, add a dry-run flag."],
      ["Before you open the PR for the tide alerts, rebase it on main.", "Before you open a PR on the tide alerts repo, run the snapshot tests."],
      ["Once you've renamed the fields in the bakery schema, ping me.", "When you rename a field in the bakery schema, add a migration note."],
    ]);
  });

  test("standing instructions whose subject is not the assistant's output, with what they ask", () => {
    for (const [yes, asks] of [
      ["When I paste a SQL error, show me the failing clause first.", "failing clause"],
      ["Ask me before you add any new gem to the shop.", "ask me"],
      ["Keep any SQL you write for the ledger inside the queries folder.", "queries folder"],
      ["Whenever you touch the export code, update the CSV samples too.", "CSV samples"],
    ] as const) {
      const kept = keptByRules(yes);
      assert.equal(kept.length, 1, yes);
      assert.equal(kept[0]!.type, "preference", yes);
      assert.ok((kept[0]!.decision?.what ?? "").toLowerCase().includes(asks.toLowerCase()), `${yes} -> ${kept[0]!.decision?.what}`);
    }
  });

  test("with the learned table too: an occasion that comes once", () => {
    for (const no of ["When you get a chance, suggest a charting library for the bike counter app.", "When you get a minute, look at the failing upload test for the choir site."])
      assert.equal(extractCaptures(no).captures.length, 0, no);
  });
});

describe("scoped-instruction.ts", () => {
  test("the occasion's kind, its softeners, the speaker's own past act", () => {
    assert.equal(scopedInstruction("If you write SQL for the warehouse, use CTEs."), "standing");
    assert.equal(scopedInstruction("If you write the SQL for the March report, send it over."), "one task");
    assert.equal(scopedInstruction("Before you merge it, run the tests."), "one task");
    assert.equal(scopedInstruction("Explain the idioms when you use them."), "standing", "said after, 'them' is the instruction's own object");
    assert.equal(scopedInstruction("Before you touch billing/invoice.ts, read the comment."), "one task", "a named file is one thing");
    assert.equal(scopedInstruction("Ask before deleting any file in fixtures."), "standing");
    assert.equal(scopedInstruction("Ask before deleting the file."), null);
    assert.equal(scopedInstruction("prefer small PRs, under 400 lines if you can"), null, "'if you can' softens, it is no occasion");
    assert.equal(scopedInstruction("If you still need to run install, use the flag."), null);
    assert.equal(scopedInstruction("When I clicked refund, show me the log."), null, "the speaker's past act is no occasion that repeats");
    assert.equal(scopedInstruction("Got a 502 from the API when I clicked refund."), null);
    assert.equal(scopedInstruction("For me is better when you write the tests first."), null, "no instruction opens it");
    assert.equal(scopedInstruction("Every time I ask you for the migration you give me a different answer."), null);
  });
});
