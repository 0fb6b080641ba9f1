import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { mayBeTrouble, TROUBLE, TROUBLE_HINTS } from "../../src/core/capture/cues.ts";
import { REPO } from "../helpers/env.ts";

// cues.ts searches TROUBLE only in a sentence holding one of TROUBLE_HINTS (a cold hook compiled the
// pattern for every sentence). Sound only if every match of TROUBLE holds a hint: checked on every
// text and sentence of the capture corpus and the sentences below; and each hint must be needed: a
// sentence TROUBLE matches that holds that hint alone (in the corpus, or below), so that leaving any
// hint out fails this test.

const ONLY: [string, string][] = [
  ["keep", "the heap keeps rising"],
  ["scale", "it does not scale"],
  ["full", "the disk is full"],
  ["grow", "the heap grows 40mb per hour"],
  ["grew", "the heap grew 40mb per hour"],
  ["climb", "the heap climbs"],
  ["disconnect", "the client disconnects"],
  ["tim", "half the time"],
  ["too", "the bundle is too big"],
  ["which is", "the key is in the repo, which is bad"],
  ["duplicated", "rows are duplicated"],
  ["lost", "messages are lost"],
  ["truncated", "logs are truncated"],
  ["overwritten", "configs are overwritten"],
  ["mangled", "names are mangled"],
  ["garbled", "bytes are garbled"],
  ["unusable", "the UI is unusable"],
  ["sluggish", "the UI is sluggish"],
  ["janky", "the UI is janky"],
  ["unresponsive", "the UI is unresponsive"],
  ["whenever", "the pod restarts whenever"],
  ["randomly", "the pod restarts randomly"],
  ["constantly", "the pod restarts constantly"],
  ["corrupt", "the index is corrupt"],
  ["not work", "sso is not working"],
  ["refused", "the push is refused"],
  ["tripled", "the bill tripled"],
  ["freez", "the UI freezes"],
  ["froze", "the UI froze"],
  ["creep", "the heap creeps up"],
  ["killed", "the pod gets killed"],
  ["overlap", "the jobs overlap with the backup"],
  ["overloaded", "the db is overloaded"],
  ["throttled", "the api is throttled"],
  ["behind", "the replica fell behind"],
  ["locked", "the user is locked"],
  ["collaps", "the menu collapses"],
  ["degrad", "the db degrades"],
  ["plummet", "the hit rate plummets"],
  ["tank", "the hit rate tanked"],
  ["%", "cpu hits 95%"],
  ["white", "a white screen on iOS"],
  ["empty", "an empty page on iOS"],
  ["quota", "we hit the quota"],
  ["ceiling", "we hit the ceiling"],
  ["every", "it adds 2s to every request"],
  ["each", "it adds 2s to each request"],
  ["all", "it adds 2s to all of them"],
  ["go", "the cluster goes yellow"],
  ["went", "the cluster went yellow"],
  ["turn", "the cluster turns yellow"],
  ["evict", "redis evicts keys"],
  ["overrun", "the job overruns"],
];

const hintsIn = (s: string) => TROUBLE_HINTS.filter((h) => s.toLowerCase().includes(h));

const corpus = fs
  .readFileSync(path.join(REPO, "tests/fixtures/capture-corpus.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => (JSON.parse(l) as { text: string }).text)
  .flatMap((t) => [t, ...t.split(/(?<=[.;!?])\s+|\n+/)]);
const sentences = [...corpus, ...ONLY.map(([, s]) => s), ...ONLY.map(([, s]) => s.toUpperCase())];

test("every match of TROUBLE holds one of its hints (the capture corpus, its sentences, the sentences here)", () => {
  let matched = 0;
  for (const s of sentences) {
    if (!TROUBLE.test(s)) continue;
    matched++;
    assert.ok(mayBeTrouble(s), `TROUBLE matches ${JSON.stringify(s)}, which holds no hint`);
  }
  assert.ok(matched > 1000, `the corpus exercises TROUBLE (${matched} matches)`);
});

test("each hint is needed: a sentence TROUBLE matches holding that hint alone", () => {
  for (const [hint, s] of ONLY) {
    assert.ok(TROUBLE.test(s), `TROUBLE matches ${JSON.stringify(s)}`);
    assert.deepEqual(hintsIn(s), [hint], `${JSON.stringify(s)} holds ${hint} alone`);
  }
  for (const hint of TROUBLE_HINTS) {
    const alone = sentences.find((s) => TROUBLE.test(s) && hintsIn(s).length === 1 && hintsIn(s)[0] === hint);
    assert.ok(alone !== undefined, `no sentence TROUBLE matches holds ${JSON.stringify(hint)} alone: the hint is not needed, or a sentence is missing`);
  }
  assert.equal(mayBeTrouble("add a unit test for the login page redirect"), false, "a request holding none is not searched");
});
