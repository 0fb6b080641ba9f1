import { spawnSync } from "node:child_process";

// The benchmarks of maintenance, capture and recall (issues 4 and 5): each its own script in
// bench-lib, run by scripts/bench as a separate process (each builds the stores it needs and
// prints its own tables), its output kept in docs/benchmarks.md with the command that made it.

export interface Suite {
  key: string;
  title: string;
  /** Script and arguments, relative to the repository. */
  argv: string[];
  /** What the figures are compared with. */
  about: string;
}

export const SUITES: Suite[] = [
  {
    key: "gc",
    title: "gc over 10k memories, including the commit (target < 1 s)",
    argv: ["scripts/bench-lib/gc.ts", "--runs", "5"],
    about: "CortexGraph publishes no gc figure and does not commit; its load of 10k memories (124 ms in-process) is the floor of its gc.",
  },
  {
    key: "consolidate",
    title: "Consolidation candidates over 1k / 10k / 50k memories (targets < 3 s at 10k, < 20 s at 50k)",
    argv: ["scripts/bench-lib/consolidate.ts"],
    about: "CortexGraph compares all pairs: 10.65 s for 1,000 memories (DESIGN.md section 5).",
  },
  {
    key: "recall",
    title: "recall and context on 10k memories (run by a hook on every prompt)",
    argv: ["scripts/bench-lib/recall-bench.ts", "--runs", "20"],
    about: "Compared with `search` in the same run; CortexGraph's search (24 ms in-process) only looks at the 3·top_k most recently used memories.",
  },
  {
    key: "capture",
    title: "Capture: extraction per prompt, and the command cold",
    argv: ["scripts/bench-lib/capture.ts"],
    about: "OrchestKit's capture pipeline was never wired (DESIGN.md section 5): no figure to compare with.",
  },
  {
    key: "gists",
    title: "Gist savings per level",
    argv: ["scripts/bench-lib/gist-savings.ts"],
    about: "CortexGraph's token reducer saves 20–30% on prose at \"moderate\", ~0% on terse notes.",
  },
];

export interface SuiteResult {
  key: string;
  title: string;
  about: string;
  command: string;
  seconds: number;
  ok: boolean;
  output: string;
}

export function runSuite(repo: string, s: Suite): SuiteResult {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, s.argv, { cwd: repo, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const output = `${r.stdout ?? ""}${r.status === 0 ? "" : `\n${r.stderr ?? ""}`}`.trim();
  return { key: s.key, title: s.title, about: s.about, command: `bun ${s.argv.join(" ")}`, seconds: (performance.now() - t0) / 1000, ok: r.status === 0, output };
}

export function suitesMarkdown(results: readonly SuiteResult[]): string[] {
  if (results.length === 0) return [];
  const out = ["## Maintenance, capture and recall", ""];
  out.push("Each suite is its own script under `scripts/bench-lib/` (run alone with the command shown); its output is copied here as printed.");
  out.push("");
  for (const r of results) {
    out.push(`### ${r.title}`);
    out.push("");
    out.push(`\`${r.command}\` — ${r.seconds.toFixed(1)} s${r.ok ? "" : " — **failed**"}. ${r.about}`);
    out.push("");
    out.push("```");
    out.push(r.output);
    out.push("```");
    out.push("");
  }
  return out;
}

