// Where capture's stores come from, per set: for each prompt that stored anything, the mechanism of
// its first capture (the learned model's add, a rule's trigger phrase, or the cue reading) and its
// type, counted as right (the prompt is labelled to store) or false. Counts only for every set;
// texts only for a readable set (a tuning set or a retired held-out set), never a held-out one.
//
//   bun scripts/bench-lib/capture-origins.ts                     (counts per set group)
//   bun scripts/bench-lib/capture-origins.ts --list SET [ORIGIN]  (a readable set's stores, e.g. problem/cue)

import { type Capture, extractCaptures, readSentence } from "../../src/core/capture/extract.ts";
import { splitSentences } from "../../src/core/capture/text.ts";
import { type CorpusRow, LEAD_HELD_OUT, loadCorpus, RETIRED_HELD_OUT } from "./capture-quality.ts";

/** "type/mechanism" of a capture: mechanism "model", "trigger" or "cue". */
export function originOf(c: Capture): string {
  if (c.signal === "learned model") return `${c.type}/model`;
  // the sentence the capture started from: the one whose reading gives its signal
  for (const s of splitSentences(c.content)) {
    const r = readSentence(s);
    if (r.kind === "capture" && r.draft.signal === c.signal) return `${c.type}/${r.draft.trigger.re.source === "^" ? "cue" : "trigger"}`;
  }
  return `${c.type}/other`;
}

const groupOf = (r: CorpusRow) => (LEAD_HELD_OUT.has(r.set ?? "") ? "held-out" : RETIRED_HELD_OUT.has(r.set ?? "") ? "retired" : r.split === "tune" ? "tune" : "old held-out");

if (import.meta.main) {
  const rows = loadCorpus();
  const i = process.argv.indexOf("--list");
  if (i !== -1) {
    const set = process.argv[i + 1] ?? "";
    const only = process.argv[i + 2];
    if (!(set.startsWith("tune") || RETIRED_HELD_OUT.has(set)) || LEAD_HELD_OUT.has(set)) {
      console.error(`--list ${set}: only a tuning set or a retired held-out set is listed`);
      process.exit(2);
    }
    for (const r of rows.filter((x) => (x.set ?? (x.split === "tune" ? "tune1" : "")) === set)) {
      const got = extractCaptures(r.text).captures;
      if (!got.length) continue;
      const o = originOf(got[0]!);
      if (only && o !== only) continue;
      console.log(`${r.store ? "RIGHT" : "FALSE"} #${r.id} ${o} [${got[0]!.signal}] ${JSON.stringify(r.text.slice(0, 220))}`);
    }
  } else {
    const counts = new Map<string, Map<string, [number, number]>>();
    for (const r of rows) {
      const got = extractCaptures(r.text).captures;
      if (!got.length) continue;
      const g = groupOf(r);
      const o = originOf(got[0]!);
      const byOrigin = counts.get(g) ?? counts.set(g, new Map()).get(g)!;
      const c = byOrigin.get(o) ?? [0, 0];
      c[r.store ? 0 : 1]++;
      byOrigin.set(o, c);
    }
    for (const [g, byOrigin] of counts) {
      console.log(`${g}: ${[...byOrigin].sort((a, b) => b[1][1] - a[1][1]).map(([o, [t, f]]) => `${o} ${t}/${f}`).join(", ")}`);
    }
  }
}
