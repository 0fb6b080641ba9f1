import assert from "node:assert/strict";
import { test } from "node:test";
import { rarestWithin } from "../../src/ops/recall.ts";

// recall's narrowed search ranks the rarest terms whose matches together stay within a bound
// (ops/recall.ts RANKED_AT_MOST): a bound on what BM25 ranks whatever the store's size.

const t = (match: string, df: number) => ({ match, df });

test("the rarest terms within the bound, in the order given; always the rarest one", () => {
  const terms = [t("billing", 7549), t("work", 275), t("postgresql", 1779), t("database migrations", 37), t("duckdb", 1693), t("indexes", 9426)];
  assert.deepEqual(rarestWithin(terms, 8000), ["work", "postgresql", "database migrations", "duckdb"]);
  assert.deepEqual(rarestWithin(terms, 312), ["work", "database migrations"]);
  assert.deepEqual(rarestWithin(terms, 311), ["database migrations"]);
  // one term alone past the bound: still the rarest
  assert.deepEqual(rarestWithin([t("a", 20000), t("b", 9000)], 8000), ["b"]);
  assert.deepEqual(rarestWithin([], 8000), []);
  // equal counts: the first named first
  assert.deepEqual(rarestWithin([t("x", 5000), t("y", 5000)], 8000), ["x"]);
  // within the bound, everything, in order
  assert.deepEqual(rarestWithin(terms, 1e9), terms.map((x) => x.match));
});

test("whatever the terms, the chosen ones' matches stay within the bound unless one alone exceeds it", () => {
  let s = 11;
  const r = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  for (let round = 0; round < 500; round++) {
    const terms = Array.from({ length: 1 + Math.floor(r() * 30) }, (_, i) => t(`w${i}`, 1 + Math.floor(r() ** 3 * 20000)));
    const bound = 1 + Math.floor(r() * 10000);
    const chosen = rarestWithin(terms, bound);
    const df = new Map(terms.map((x) => [x.match, x.df]));
    const sum = chosen.reduce((a, m) => a + df.get(m)!, 0);
    const least = Math.min(...terms.map((x) => x.df));
    assert.ok(chosen.length >= 1);
    assert.ok(sum <= bound || (chosen.length === 1 && df.get(chosen[0]!) === least), `${sum} > ${bound}`);
    // no term left out is rarer than one chosen
    const most = Math.max(...chosen.map((m) => df.get(m)!));
    for (const x of terms) if (!chosen.includes(x.match)) assert.ok(x.df >= most);
    // and the next rarest would not have fitted
    const left = terms.filter((x) => !chosen.includes(x.match)).sort((a, b) => a.df - b.df)[0];
    if (left) assert.ok(sum + left.df > bound);
  }
});
