import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { anothersView } from "../../src/core/capture/anothers-view.ts";
import { extractCaptures } from "../../src/core/capture/extract.ts";
import { standingFailure } from "../../src/core/capture/standing-failure.ts";
import { keptByRules } from "../helpers/look-alikes.ts";

// Branch capture32: (1) a standing problem said in the plain present with a condition of a kind,
// whose trouble is in what the thing gives (nothing, an empty file, stale totals, each one twice) or
// in a verb of damage (mangles, duplicates), with no word of trouble; main 491b84b stored none of
// these by its rules (some by its learned table, as decisions). Its look-alikes are facts of how a
// thing is meant to work, and one occasion, a spell, a spec, a request. (2) Someone else's view,
// its holder named ("Ines reckons ...", "our architect prefers ..."), is not the team's choice; main
// stored it. None is the corpus's wording.

describe("capture: a standing problem in the plain present, by what the thing gives", () => {
  test("the rules keep it as a problem", () => {
    for (const yes of [
      "The quote generator returns nothing for postcodes with a space in them.",
      "Our badge printer prints every name badge twice when the guest list has a plus-one.",
      "The ferry timetable feed serves stale departures whenever the operator edits a route.",
      "Rowing club results export blank times for crews with a cox.",
      "The recipe importer mangles fractions that contain a slash.",
      "Loyalty points get duplicated every time a till goes offline mid-sale.",
    ]) {
      const kept = keptByRules(yes);
      assert.equal(kept.length, 1, yes);
      assert.equal(kept[0]!.type, "problem", yes);
    }
  });

  test("with the learned table too: a problem, not a decision", () => {
    for (const yes of ["The kiln monitor reports zero temperature for kilns added after the firmware update.", "Tram arrival screens show the wrong platform when two trams share a stop."]) {
      const kept = extractCaptures(yes).captures;
      assert.ok(kept.length > 0, yes);
      assert.equal(kept[0]!.type, "problem", yes);
    }
  });

  test("look-alikes: a behaviour meant that way is no problem; one occasion, a spell, a spec, a request store nothing", () => {
    for (const fact of ["The quote API returns an empty list, not a 404, when a postcode is unknown.", "The backup job runs every time a shift closes at the till.", "The ferry feed returns nothing for cancelled routes, by design."]) {
      assert.ok(keptByRules(fact).every((c) => c.type !== "problem"), fact);
    }
    for (const no of [
      "The quote generator returned nothing for Mr Patel's postcode this morning.",
      "The badge printer is printing everything twice right now.",
      "The quote generator should return nothing for postcodes outside the UK.",
      "Make the recipe importer return nothing when a fraction has a slash.",
      "When I open the rowing results on my phone it shows blank times.",
    ]) {
      assert.equal(keptByRules(no).length, 0, no);
    }
  });

  test("standingFailure: the verb agrees with its subject, a noun that looks like a verb is the subject's", () => {
    assert.ok(standingFailure("The invoice CSV export returns an empty file whenever a name has a comma."));
    assert.ok(standingFailure("Hangar door sensors drop their readings when the heaters kick in."));
    assert.ok(standingFailure("Ticket create calls in the sandbox fail with a 500 if the title has an emoji."));
    assert.equal(standingFailure("Code freeze starts two days before every release."), null);
    assert.equal(standingFailure("The ferry feed is showing stale departures whenever the operator edits."), null);
    assert.equal(standingFailure("The cron job runs twice a day on every node."), null);
    assert.equal(standingFailure("We get duplicate rows whenever the importer retries."), null);
  });

  test("every failure word the predicate reads is behind a hint (FAILURE_HINTS)", () => {
    // one sentence per alternative of the predicate, each kept: none is turned away by the hint gate
    for (const result of ["nothing", "no results", "an empty page", "blank rows", "zero-byte files", "black frames", "white tiles", "all-zero rows", "null ids", "NaN totals", "zeroes", "garbage", "gibberish", "mojibake", "garbled text", "scrambled names", "the wrong totals", "stale rows", "outdated prices", "out-of-date stock", "old prices", "duplicates", "duplicated rows", "each row twice", "the same row twice", "half the rows", "question marks", "invalid dates", "corrupt files", "truncated names", "partial rows", "incomplete rows"])
      assert.ok(standingFailure(`The ledger export returns ${result} for accounts with a hyphen.`), result);
    for (const verb of ["mangles", "garbles", "corrupts", "scrambles", "clobbers", "duplicates", "double-counts", "loses", "misreads", "miscounts", "misroutes", "mislabels", "misplaces", "swallows", "reboots", "jams", "flickers", "stutters", "glitches", "drops", "overlaps", "drifts", "fails", "crashes", "hangs"])
      assert.ok(standingFailure(`The ledger export ${verb} for accounts with a hyphen.`), verb);
    for (const state of ["poisoned", "corrupted", "lost", "wiped", "mangled", "duplicated", "stuck", "dropped", "clobbered", "scrambled", "garbled", "mixed up", "swapped", "overwritten", "cut off", "truncated", "down", "blank", "dark", "offline"])
      assert.ok(standingFailure(`The ledger export gets ${state} for accounts with a hyphen.`), state);
  });
});

describe("capture: someone else's view is not the team's choice", () => {
  test("the view alone stores nothing; the same voice deciding is kept", () => {
    for (const no of [
      "Ines reckons we should move the rota app from Firebase to Supabase, she's drafting a plan.",
      "Our architect prefers event sourcing for the rota ledger, but the old code is all CRUD.",
      "The consultants keep pushing Snowflake for the rota reports, nobody here is sold.",
    ]) {
      assert.equal(extractCaptures(no).captures.length, 0, no);
    }
    assert.ok(extractCaptures("Our architect decided the rota ledger uses event sourcing from now on.").captures.length > 0);
  });

  test("anothersView: a named holder with a verb of view, not a requirement, not a thing of the vocabulary", () => {
    assert.ok(anothersView("Ines reckons we should move to Supabase."));
    assert.ok(anothersView("The security team would rather we used passkeys."));
    assert.equal(anothersView("Postgres prefers narrow indexes for this."), null);
    assert.equal(anothersView("We prefer thin controllers in the rota app."), null);
    assert.equal(anothersView("Personally I think tabs are fine."), null);
    assert.equal(anothersView("The client wants every invoice as PDF/A."), null);
    assert.equal(anothersView("Ines suggested passkeys and we agreed, so that's the plan."), null);
  });
});
