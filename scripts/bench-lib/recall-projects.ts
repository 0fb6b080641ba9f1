// Recall's project scope on the labelled multi-project set (tests/fixtures/recall-projects): per
// scope (inside a project / outside any repository) and per kind of prompt, recall@5, MRR@10 and
// the share of should-be-quiet prompts that returned anything. In process, on a fresh store in a
// temp folder, each memory saved with its project, a day apart in the set's order.
//
//   bun scripts/bench-lib/recall-projects.ts [--json] [--misses]

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findMentions } from "../../src/core/capture/entities.ts";
import type { OpsEnv } from "../../src/ops/context.ts";
import { initStore } from "../../src/ops/init.ts";
import { recall } from "../../src/ops/recall.ts";
import { saveMemories } from "../../src/ops/save.ts";
import { Store } from "../../src/store/store.ts";
import { PROJECT_MEMORY_LINES, PROJECTS, type ProjectKey } from "../../tests/fixtures/recall-projects/memories.ts";
import { SCOPED_QUERIES, type ScopedQuery } from "../../tests/fixtures/recall-projects/queries.ts";

const DAY = 86_400;
const NOW = 1_800_000_000;

export interface ScopeScores {
  /** Prompts that have relevant memories, and their recall@5 and MRR@10 (averaged). */
  answerable: number;
  recall5: number;
  mrr10: number;
  /** Prompts that should get nothing, and the share of them that got something. */
  quiet: number;
  answered: number;
}

export interface ProjectsResult {
  memories: number;
  queries: number;
  /** "inside", "outside", "all", and each kind ("own", "personal", ...) -> scores. */
  scores: Record<string, ScopeScores>;
  misses: string[];
}

function score(queries: readonly ScopedQuery[], ranked: ReadonlyMap<ScopedQuery, string[][]>): ScopeScores {
  let r5 = 0;
  let mrr = 0;
  let answered = 0;
  const answerable = queries.filter((q) => q.relevant.length > 0);
  for (const q of queries) {
    const keys = ranked.get(q)!;
    if (q.relevant.length === 0) {
      if (keys.length > 0) answered++;
      continue;
    }
    const top5 = new Set(keys.slice(0, 5).flat());
    r5 += q.relevant.filter((k) => top5.has(k)).length / q.relevant.length;
    const first = keys.slice(0, 10).findIndex((ks) => ks.some((k) => q.relevant.includes(k)));
    if (first >= 0) mrr += 1 / (first + 1);
  }
  const quiet = queries.length - answerable.length;
  const n = answerable.length;
  return { answerable: n, recall5: n ? r5 / n : 0, mrr10: n ? mrr / n : 0, quiet, answered: quiet ? answered / quiet : 0 };
}

function parseLine(line: string): { key: string; project: string | null; type: string; content: string } {
  const [key, project, type, ...rest] = line.split("|");
  return { key: key!, project: project === "-" ? null : PROJECTS[project as ProjectKey], type: type!, content: rest.join("|") };
}

export async function measureProjectScope(): Promise<ProjectsResult> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-recall-projects-"));
  const env: OpsEnv = { storeRoot: root, hostName: "bench", user: null };
  const ranked = new Map<ScopedQuery, string[][]>();
  const misses: string[] = [];
  try {
    await initStore(env, { git: false });
    const store = await Store.open(root);
    try {
      const lines = PROJECT_MEMORY_LINES.map(parseLine);
      const records = lines.map((m, i) => ({
        content: m.content,
        type: m.type,
        project: m.project,
        created_at: NOW - (lines.length - i) * DAY,
        entities: [...new Set(findMentions(m.content).map((x) => x.name))],
      }));
      const saved = await saveMemories(store, env, records, records.map((_, i) => `memory ${i + 1}`));
      const keyOf = new Map(saved.map((s, i) => [s.memory.id, lines[i]!.key]));
      for (const q of SCOPED_QUERIES) {
        const project = q.in === null ? null : PROJECTS[q.in];
        const r = await recall(store, { query: q.q, project, limit: 10, budget: 100_000, now: NOW });
        const keys = r.items.map((i) => [keyOf.get(i.id)!, ...i.collapsed.map((c) => keyOf.get(c)!)]);
        ranked.set(q, keys);
        const top = keys.slice(0, 5).flat();
        const miss = q.relevant.length === 0 ? keys.length > 0 : !q.relevant.every((k) => top.includes(k)) || !q.relevant.includes(keys[0]![0]!);
        if (miss) misses.push(`${q.in ?? "outside"} ${q.kind}: ${JSON.stringify(q.q)} -> ${keys.slice(0, 5).map((k) => k.join("+")).join(", ") || "(nothing)"}${q.relevant.length ? `; wanted ${q.relevant.join(", ")}` : ""}`);
      }
    } finally {
      store.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const scores: Record<string, ScopeScores> = {
    inside: score(SCOPED_QUERIES.filter((q) => q.in !== null), ranked),
    outside: score(SCOPED_QUERIES.filter((q) => q.in === null), ranked),
    all: score(SCOPED_QUERIES, ranked),
  };
  for (const kind of ["own", "personal", "elsewhere", "named", "unnamed", "offtopic"] as const) {
    for (const [scope, inside] of [["inside", true], ["outside", false]] as const) {
      const of = SCOPED_QUERIES.filter((q) => q.kind === kind && (q.in !== null) === inside);
      if (of.length > 0) scores[`${scope}/${kind}`] = score(of, ranked);
    }
  }
  return { memories: PROJECT_MEMORY_LINES.length, queries: SCOPED_QUERIES.length, scores, misses };
}

const f2 = (x: number) => x.toFixed(2);

export function projectsTable(r: ProjectsResult): string[] {
  const out = [
    `${r.memories} memories in 4 projects and none, ${r.queries} prompts; recall (limit 10) with the prompt's project (inside) or project null (outside any repository)`,
    "",
    "| prompts | answerable | recall@5 | MRR@10 | should be quiet | of them answered |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const [name, s] of Object.entries(r.scores)) {
    const cell = (x: number, n: number) => (n ? f2(x) : "-");
    out.push(`| ${name} | ${s.answerable} | ${cell(s.recall5, s.answerable)} | ${cell(s.mrr10, s.answerable)} | ${s.quiet} | ${cell(s.answered, s.quiet)} |`);
  }
  return out;
}

if (import.meta.main) {
  const r = await measureProjectScope();
  if (process.argv.includes("--json")) console.log(JSON.stringify(r, null, 2));
  else {
    console.log(projectsTable(r).join("\n"));
    if (process.argv.includes("--misses")) console.log(["", "misses:", ...r.misses.map((m) => `  ${m}`)].join("\n"));
  }
}
