import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";

// A status stat thread (src/stat-worker.ts) is a new JS world: every module it loads is evaluated
// again there before it takes its first folder, and node:fs alone costs ~1.7 ms of that (a
// compiled probe; docs/benchmarks.md, status28), time the thread's share of the look waits for.
// So no module of its graph may import node:fs (or node:os, as heavy) at load: they take it
// lazily (src/store/lazy-fs.ts) for the odd cases only.

const SRC = path.resolve(import.meta.dirname, "../../src");
const transpiler = new Bun.Transpiler({ loader: "ts" });

/** The modules a file loads at evaluation (type-only imports erased), by resolved path or bare name. */
function loads(file: string): string[] {
  const found = transpiler.scanImports(fs.readFileSync(file, "utf8")).filter((i) => i.kind === "import-statement");
  return found.map((i) => (i.path.startsWith(".") ? path.resolve(path.dirname(file), i.path) : i.path));
}

function graph(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const deps = loads(file);
    seen.set(file, deps);
    for (const d of deps) if (d.startsWith("/")) visit(d);
  };
  visit(entry);
  return seen;
}

describe("the stat thread's module graph", () => {
  test("loads neither node:fs nor node:os at evaluation", () => {
    const g = graph(path.join(SRC, "stat-worker.ts"));
    assert.ok(g.has(path.join(SRC, "store/folder-scan.ts")), "the graph was followed into the store's modules");
    const heavy = [...g].flatMap(([file, deps]) => deps.filter((d) => /^(node:)?(fs|os)(\/|$)/.test(d)).map((d) => `${path.relative(SRC, file)} imports ${d}`));
    assert.deepEqual(heavy, []);
  });
});
