import { spawnSync } from "node:child_process";

// The benchmarks of maintenance, capture and recall (issues 4 and 5) and of the HTTP API (issue
// 11): each its own script in bench-lib, run by scripts/bench as a separate process (each builds
// the stores it needs and prints its own tables), its output kept in docs/benchmarks.md with the
// command that made it, between markers, so a run of only some suites (`scripts/bench --suites
// api`) replaces their sections and keeps the rest of the report.

export interface Suite {
  key: string;
  title: string;
  /** Script and arguments, relative to the repository. */
  argv: string[];
  /** What the figures are compared with. */
  about: string;
  /** The report's section (a "## " heading) it goes under; default MAINTENANCE. */
  section?: string;
  /** The script prints Markdown (copied as is), not text (copied in a code block). */
  markdown?: boolean;
}

export const MAINTENANCE = "Maintenance, capture and recall";

export const SUITES: Suite[] = [
  {
    key: "gc",
    title: "gc over 10k memories, including the commit (target < 1 s)",
    argv: ["scripts/bench-lib/gc.ts", "--runs", "5"],
    about: "CortexGraph publishes no gc figure and does not commit; its load of 10k memories (124 ms in-process) is the floor of its gc.",
  },
  {
    key: "consolidate",
    title: "Consolidation candidates over 1k / 10k / 50k memories (issue 16 targets: preview 10k ≤ 1 s, 50k ≤ 4 s, peak RSS at 50k ≤ 300 MB, degenerate corpus ≤ 10 s)",
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
    key: "recall-quality",
    title: "Recall quality on the labelled corpus: recall@5, MRR@10, off-topic prompts answered, against plain BM25 (issue 15 targets: paraphrase recall@5 ≥ 0.95 and MRR ≥ 0.95, off-topic ≤ 10%)",
    argv: ["scripts/bench-lib/recall-quality.ts"],
    about: "The corpus is tests/fixtures/recall-corpus (written for memsync): every third query of each kind is held out from tuning and reported apart. The baseline is FTS5 bm25 over the content column, any word of the query (stop words out), top 10, no floor.",
    markdown: true,
  },
  {
    key: "coldstart",
    title: "Cold start: get, save and hook UserPromptSubmit on 10k memories against the empty compiled Bun program (targets ≤ 1.8x, ≤ 2.5x, ≤ 2.5x)",
    argv: ["scripts/bench-lib/coldstart.ts", "--runs", "30"],
    about: "The floor is the empty compiled Bun program (`bun build --compile --bytecode --format=esm` of an empty file), measured in the same hyperfine invocation as each command; `--before BIN` adds another binary to each invocation.",
    markdown: true,
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
  {
    key: "web",
    title: "The memory browser's pages on 50k memories (target ≤ 100 ms server time for search and a memory page)",
    argv: ["scripts/bench-lib/web-bench.ts", "--size", "50000", "--runs", "20"],
    about: "Each time is the client's over loopback (request to last byte), so an upper bound of the server's; one request at a time on a warm server. CPU ms/req is the server process's CPU time per request (/proc), what a request costs whatever the wait for a core. Give --bin twice to compare two builds side by side.",
    section: "The memory browser (`memsync serve`, /ui)",
    markdown: true,
  },
  {
    key: "api",
    title: "`memsync serve` under autocannon: get, recall, touch, save on 10k memories (targets: recall p99 ≤ 15 ms and touch p99 ≤ 10 ms at 100 requests/s, save ≥ 200/s, start ≤ 150 ms)",
    argv: ["scripts/bench-lib/api-bench.ts"],
    about:
      "Compared in the same run with the floor, a minimal Hono app on Bun.serve compiled like dist/memsync taking the same requests (scripts/bench-lib/api-floor.ts), and with the CLI's cold commands doing the same operations on a copy of the same store. " +
      "Method: autocannon 9.0.0 (programmatic, in the Bun process running the script) on 127.0.0.1 against `dist/memsync serve --listen 127.0.0.1:PORT` on a copy of `.bench/store-10000` (record files hard-linked, committed, settled 2.1 s); POST /v1/<op> with a JSON body: `get` and `touch` of 200 memories spread evenly through the store's history (flat and sharded in their proportion), in turn, `recall` of the hook-sized prompt of recall-bench.ts, `save` of a new one-line memory each time (the store grows by thousands during the run). Reads run first, then touch, then save; before each measured run one checked request (must answer 200) and 50 warm-up requests. " +
      "Latency is each 2xx response's own time as autocannon measured it (process.hrtime from write to parsed response), percentiles by nearest rank over all of them, not autocannon's integer-millisecond histogram. " +
      "The fixed rate is autocannon's `overallRate: 100` on one connection: autocannon grants each connection a quota per second and sends it as fast as answers come, so requests go one at a time, back to back while the quota lasts (not evenly spaced), never several at once. " +
      "CPU per request = the server process's utime + stime from /proc/PID/stat, before and after the run, over the requests answered. " +
      "Start = spawn of the binary to the first 200 from GET /v1/health (polled every 1 ms; health opens the store and reads its cheap facts, the journal among them, and starts the full status in the background), one untimed round then the runs, memsync and floor alternating; every other round also to the first 200 of POST /v1/get of one memory, the server's start without health's reads.",
    section: "The HTTP API (`memsync serve`)",
    markdown: true,
  },
  {
    key: "gitratio",
    title: "status, save + sync and pull of 100 changes against native git at 1k / 10k / 50k (issue 16 targets: each ≤ 1.5x native git)",
    argv: ["scripts/bench-lib/git-ratio.ts", "--sizes", "1000,10000,50000", "--bins", "after=dist/memsync"],
    about:
      "Each contender (memsync, native git; the empty compiled Bun program for status) on its own copy of the store with its own bare hub cloned from the same commit; rounds interleaved, medians of spawnSync wall-clock. Add `--bins before=BIN,after=BIN` to compare two binaries in the same rounds.",
    section: "Git-shaped speed",
    markdown: true,
  },
  {
    key: "import",
    title: "import cortexgraph: 10k memories + 3k relations, 50k + 15k, into an empty store, commit included (targets ≤ 5 s and ≤ 25 s)",
    argv: ["scripts/bench-lib/import.ts"],
    about:
      "CortexGraph has no import to compare with; its own load of 10k memories from one JSONL file is 124 ms in process (DESIGN.md section 5). Method: a generated CortexGraph JSONL folder (fixed seed; 2% of memory lines later replaced and 1% tombstoned, as an append-only log has them), `dist/memsync init`, `dist/memsync import cortexgraph DIR --json`, `dist/memsync commit`, each a whole process, wall-clock; peak memory is each process's max RSS (getrusage).",
    section: "Moving in and out (import)",
    markdown: true,
  },
];

export interface SuiteResult {
  key: string;
  title: string;
  about: string;
  section?: string;
  markdown?: boolean;
  command: string;
  seconds: number;
  ok: boolean;
  output: string;
}

export function runSuite(repo: string, s: Suite): SuiteResult {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, s.argv, { cwd: repo, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const output = `${r.stdout ?? ""}${r.status === 0 ? "" : `\n${r.stderr ?? ""}`}`.trim();
  return { key: s.key, title: s.title, about: s.about, section: s.section, markdown: s.markdown, command: `bun ${s.argv.join(" ")}`, seconds: (performance.now() - t0) / 1000, ok: r.status === 0, output };
}

const markers = (key: string) => [`<!-- suite:${key}:start -->`, `<!-- suite:${key}:end -->`] as const;

/** One suite's part of the report, between its markers. */
function suiteBlock(r: SuiteResult): string[] {
  const [start, end] = markers(r.key);
  const out = [start, `### ${r.title}`, ""];
  out.push(`\`${r.command}\` — ${r.seconds.toFixed(1)} s${r.ok ? "" : " — **failed**"}. ${r.about}`);
  out.push("");
  if (r.markdown && r.ok) out.push(r.output);
  else out.push("```", r.output, "```");
  out.push("", end, "");
  return out;
}

function sectionIntro(section: string): string[] {
  return section === MAINTENANCE ? ["Each suite is its own script under `scripts/bench-lib/` (run alone with the command shown); its output is copied here as printed.", ""] : [];
}

export function suitesMarkdown(results: readonly SuiteResult[]): string[] {
  const out: string[] = [];
  const sections = [...new Set(results.map((r) => r.section ?? MAINTENANCE))];
  for (const section of sections) {
    out.push(`## ${section}`, "", ...sectionIntro(section));
    for (const r of results) if ((r.section ?? MAINTENANCE) === section) out.push(...suiteBlock(r));
  }
  return out;
}

/**
 * The report with these suites' parts replaced and everything else kept: a part is found by its
 * markers, else by its "### title" heading (reports written before the markers), else added at the
 * end of its section, else in a new section before "## Notes".
 */
export function spliceSuites(report: string, results: readonly SuiteResult[]): string {
  let lines = report.split("\n");
  for (const r of results) {
    const block = suiteBlock(r);
    const [start, end] = markers(r.key);
    let a = lines.indexOf(start);
    let b = a >= 0 ? lines.indexOf(end, a) : -1;
    if (a < 0 || b < 0) {
      a = lines.indexOf(`### ${r.title}`);
      b = a < 0 ? -1 : lines.findIndex((l, i) => i > a && /^##?#? /.test(l)) - 1;
      if (a >= 0 && b < a) b = lines.length - 1;
    }
    if (a >= 0 && b >= a) {
      while (lines[b + 1] === "") b++;
      lines = [...lines.slice(0, a), ...block, ...lines.slice(b + 1)];
      continue;
    }
    const section = r.section ?? MAINTENANCE;
    const head = lines.indexOf(`## ${section}`);
    if (head >= 0) {
      let next = lines.findIndex((l, i) => i > head && /^## /.test(l));
      if (next < 0) next = lines.length;
      lines = [...lines.slice(0, next), ...block, ...lines.slice(next)];
      continue;
    }
    let notes = lines.indexOf("## Notes");
    if (notes < 0) notes = lines.length;
    lines = [...lines.slice(0, notes), `## ${section}`, "", ...sectionIntro(section), ...block, ...lines.slice(notes)];
  }
  return lines.join("\n");
}
