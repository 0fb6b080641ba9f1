// Each index query one cold recall makes, with its CPU and answer, the hook's way: the settled
// index (the Store's path when it is not settled), budget 4,000, countUpTo as the hook asks (1;
// UPTO=N for another), the project given (the bench's hook runs in a repository whose project no
// bench memory has: "local:main"). Nested calls are listed too (countMatchesOrAll -> countMatches).
// One process per run: run it a few times and read the medians (issue 16, branch recallcost28).
//
//   bun scripts/bench-lib/recall-trace.ts STORE "prompt" [project]
import { IndexDb } from "../../src/store/index-db.ts";
const [dir, query, project] = process.argv.slice(2);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const proto = IndexDb.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
const log: string[] = [];
for (const name of ["countMatches", "countMatchesPassing", "searchWithTerms", "countMatchesOrAll", "relationsOfTypeTo", "projects"]) {
  const f = proto[name]!;
  proto[name] = function (this: unknown, ...a: unknown[]) {
    const t = cpu();
    const r = f.apply(this, a);
    const n = Array.isArray(r) ? `${r.length} rows` : JSON.stringify(r);
    log.push(`${(cpu() - t).toFixed(2).padStart(6)} ms ${name}(${String(JSON.stringify(a[0])).slice(0, 160)}${a[2] !== undefined ? ", " + JSON.stringify(a[2]) : ""}) -> ${n}`);
    return r;
  };
}
const { recallSettled } = await import("../../src/ops/recall-settled.ts");
const { recallTerms } = await import("../../src/core/recall-rank.ts");
const t0 = cpu();
const terms = recallTerms(query!);
const env = { storeRoot: dir!, home: "/tmp" } as never;
const opts = { query: query!, terms, budget: 4000, countUpTo: Number(process.env.UPTO ?? 1), project: project ?? null };
let out = await recallSettled(env, opts);
if (!out) {
  console.log("settled: null, the Store's path");
  const { Store } = await import("../../src/store/store.ts");
  const { recall } = await import("../../src/ops/recall.ts");
  const store = await Store.open(dir!);
  out = await recall(store, opts);
  store.close();
}
const t1 = cpu();
console.log(log.join("\n"));
console.log(`recall ${(t1 - t0).toFixed(2)} ms; items ${out?.items.map((i) => i.short_id).join(" ")}; total ${out?.total}`);
