import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { type RecallIndex, recallIn, type RecallOptions, type RecallOutcome } from "../../src/ops/recall.ts";
import type { Store } from "../../src/store/store.ts";
import { storeWith } from "../helpers/memory-store.ts";

// A caller counting to at most 1,000 (the hook) learns whether the query is narrowed (more than
// 1,000 matches of every memory) from one common word's count, not from the query's OR joined to
// every match's memory row (ops/recall.ts, recall-counts.ts wordNarrowing): the outcome must be
// the one the OR's count gives. Checked on a real index: the same recall with the store's size
// hidden (the word is then not tried) is the reference, and the OR's count must not be asked.

const T0 = 1_790_000_000;

function memory(i: number, content: string, project?: string): Memory {
  return { ...createMemory({ content, ...(project ? { project } : {}) }, newId(), { now: T0 + i, machine: "m", user: null }), status: "active" };
}

/** 1,100 memories of another project saying "worker", and `mine` of the project "here" (and none) about the billing worker. */
function corpus(mine: number): Memory[] {
  const memories: Memory[] = [];
  for (let i = 0; i < 1100; i++) memories.push(memory(i, `The worker pool number ${i} restarts on deploy.`, "elsewhere"));
  const topics = ["invoices", "refunds", "ledgers", "receipts", "payouts", "coupons", "taxes", "disputes"];
  for (let i = 0; i < mine; i++) memories.push(memory(2000 + i, `The billing worker handles ${topics[i % topics.length]} for tenant ${i} after a restart.`, i % 2 ? "here" : undefined));
  return memories;
}

/** The store's reads, recording what is asked; `hideSize`: the store's size reads 0 (the word is not tried). */
function reads(store: Store, asked: string[], hideSize: boolean): RecallIndex {
  return {
    searchWithTerms: (match, filter, limit) => store.searchWithTerms(match, filter, limit),
    boundedSearchReady: () => store.boundedSearchReady(),
    countMatches: (match, filter, upTo) => {
      asked.push(`count ${match ?? "(all)"} ${upTo ?? ""}`);
      return match === null && hideSize ? Promise.resolve(0) : store.countMatches(match, filter, upTo);
    },
    countMatchesPassing: (match, filter, upTo) => {
      asked.push(`passing ${match}`);
      return store.countMatchesPassing(match, filter, upTo);
    },
    relationsOfTypeTo: (type, ids) => store.relationsOfTypeTo(type, ids),
    projects: () => store.projects(),
    nowSeconds: () => T0 + 10_000,
    rawSettings: store.rawSettings,
  };
}

async function both(mine: number, opts: RecallOptions): Promise<{ got: RecallOutcome; want: RecallOutcome; asked: string[] }> {
  const store = await storeWith(corpus(mine), T0);
  try {
    const asked: string[] = [];
    const got = await recallIn(reads(store, asked, false), opts, async () => undefined);
    const want = await recallIn(reads(store, [], true), opts, async () => undefined);
    return { got, want, asked };
  } finally {
    await store.close();
  }
}

for (const [mine, upTo, why] of [
  [300, 1, "the hook's count (whether any match passes)"],
  [300, 101, "a count the word's filtered matches reach"],
  [40, 101, "a count the word's filtered matches fall short of (the query is counted)"],
] as const) {
  test(`past 1,000 matches, one common word tells the query is narrowed: ${why}`, async () => {
    const { got, want, asked } = await both(mine, { query: "why does the billing worker restart", project: "here", countUpTo: upTo, now: T0 + 10_000 });
    assert.deepEqual(asked.filter((a) => a.startsWith("passing")), [], `asked: ${asked.join(" | ")}`);
    assert.deepEqual(got, want);
    assert.ok(got.items.length > 0);
  });
}

test("a store of at most 1,000 memories: no word is tried, the query's count as before", async () => {
  const store = await storeWith(corpus(0).slice(0, 900).concat(corpus(60).slice(1100)), T0);
  try {
    const asked: string[] = [];
    const got = await recallIn(reads(store, asked, false), { query: "why does the billing worker restart", project: "here", countUpTo: 1, now: T0 + 10_000 }, async () => undefined);
    assert.deepEqual(asked.filter((a) => / 1001$/.test(a)), [], `asked: ${asked.join(" | ")}`);
    assert.equal(asked.filter((a) => a.startsWith("passing")).length, 1);
    assert.ok(got.items.length > 0);
  } finally {
    await store.close();
  }
});
