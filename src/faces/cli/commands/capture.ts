import { type Capture, type Extraction, extractCaptures } from "../../../core/capture/extract.ts";
import { parseHookPayload } from "../../../core/capture/hook-input.ts";
import type { CaptureContext, Overrides } from "../../../core/capture/record.ts";
import { usageError } from "../../../core/errors.ts";
import { IMPORTANCE_LEVELS, MEMORY_TYPES, SHARING_SCOPES } from "../../../core/model/vocab.ts";
import type { JsonObject } from "../../../core/records.ts";
import type { StoredMemory } from "../../../ops/capture.ts";
import { projectOf as resolveProject } from "../../../ops/project.ts";
import { cwd } from "../../../runtime/host.ts";
import { json } from "../format.ts";
import { type Flags, list, num, oneOf, opsEnv, STDIN_ARG, str, textArg, wordsOf } from "../options.ts";
import type { CommandResult } from "../result.ts";

// remember (explicit capture) and capture (implicit capture, also from a Claude Code hook payload).
// capture runs on every prompt, and most prompts store nothing: the extraction is loaded up front
// (pure, small), the schemas and the store only when something is to be written.

const ops = () => import("../../../ops/capture.ts");
const storeOps = async () => ({ ...(await import("../../../ops/context.ts")), ...(await import("../../../ops/init.ts")) });
const records = () => import("../../../core/capture/record.ts");

/** --project, else none for --global, else the project of the hook's cwd or of this process's. */
function projectOf(flags: Flags, hookCwd: string | null): string | null {
  const given = str(flags, "project");
  if (flags.global) {
    if (given !== undefined) throw usageError("--global and --project exclude each other (a global memory belongs to no project)");
    return null;
  }
  return resolveProject({ given, cwd: hookCwd ?? cwd() });
}

function preview(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function describe(c: { type: string; decision: Capture["decision"]; content: string; entities: string[] }): string {
  const d = c.decision;
  const parts = [`${c.type.padEnd(10)} ${preview(d?.what ?? c.content, 70)}`];
  if (d?.alternatives.length) parts.push(`over ${d.alternatives.join(", ")}`);
  if (d?.why) parts.push(`because ${preview(d.why, 70)}`);
  if (c.entities.length) parts.push(`[${c.entities.slice(0, 8).join(", ")}]`);
  return parts.join("  ");
}

function detailLines(f: JsonObject): string[] {
  const d = f.decision as Capture["decision"];
  const lines = [`  ${describe(f as never)}`];
  if (d) {
    lines.push(`    what: ${d.what}`);
    if (d.why) lines.push(`    why: ${d.why}`);
    if (d.alternatives.length) lines.push(`    alternatives: ${d.alternatives.join("; ")}`);
    if (d.constraints.length) lines.push(`    constraints: ${d.constraints.join("; ")}`);
    if (d.tradeoffs.length) lines.push(`    tradeoffs: ${d.tradeoffs.join("; ")}`);
  } else {
    lines.push(`    content: ${preview(String(f.content), 100)}`);
  }
  const rels = (f.entity_relations as { from: string; type: string; to: string }[] | undefined) ?? [];
  if ((f.entities as string[]).length) lines.push(`    entities: ${(f.entities as string[]).join(", ")}`);
  if (rels.length) lines.push(`    relations: ${rels.map((r) => `${r.from} ${r.type} ${r.to}`).join("; ")}`);
  lines.push(`    confidence ${f.confidence}  category ${f.category ?? "-"}  scope ${f.scope}  project ${f.project ?? "-"}`);
  return lines;
}

function storedLine(s: StoredMemory): string {
  const head = s.action === "created" ? `stored ${s.memory.id}` : `reinforced ${s.memory.id} (uses: ${s.memory.use_count})`;
  return `${head}  ${describe(s.memory)}`;
}

function extractionSummary(x: Extraction, stored: number): string[] {
  const lines: string[] = [];
  if (stored === 0) lines.push(`nothing stored: ${x.reason ?? "nothing to store"}`);
  for (const s of x.skipped) if (s.reason !== "no decision, preference, problem or solution in it") lines.push(`  skipped "${preview(s.text, 60)}" (${s.reason})`);
  if (x.ignored.length) lines.push(`  ignored: ${x.ignored.join(", ")}`);
  if (x.redacted.length) lines.push(`  redacted ${x.redacted.length} secret${x.redacted.length === 1 ? "" : "s"} (${[...new Set(x.redacted)].join(", ")})`);
  if (x.privateRemoved) lines.push("  left out <private> text");
  return lines;
}

function extractionJson(x: Extraction) {
  return { skipped: x.skipped, ignored: x.ignored, reason: x.reason, redacted: x.redacted, private_removed: x.privateRemoved };
}

export async function capture(rawWords: string[], flags: Flags): Promise<CommandResult> {
  const words = wordsOf(rawWords, flags);
  const input = await textArg(words.length ? words : [STDIN_ARG], "text to capture");
  const hook = parseHookPayload(input);
  const ctx: CaptureContext = {
    project: projectOf(flags, hook?.cwd ?? null),
    global: Boolean(flags.global),
    tags: list(flags, "tag"),
    source: hook ? `claude-code:${hook.event ?? "hook"}` : "capture",
    session: hook?.sessionId ?? null,
    agent: hook ? "claude-code" : null,
  };
  const text = hook ? hook.prompt : input;
  const dryRun = Boolean(flags.dryRun);
  const base = { dry_run: dryRun, project: ctx.global ? null : ctx.project, source: ctx.source };

  if (text === null || text.trim() === "") {
    const reason = hook ? `the ${hook.event ?? "hook"} payload carries no prompt` : "the text is empty";
    return { stdout: flags.json ? json({ ...base, stored: [], captures: [], skipped: [], ignored: [], reason }) : `nothing stored: ${reason}\n` };
  }

  const x = extractCaptures(text);
  if (dryRun) {
    const { memoryFields } = await records();
    const planned = x.captures.map((c) => memoryFields(c, ctx));
    if (flags.json) return { stdout: json({ ...base, stored: [], captures: planned, ...extractionJson(x) }) };
    const lines = planned.length ? [`would store ${planned.length} memor${planned.length === 1 ? "y" : "ies"}:`, ...planned.flatMap(detailLines)] : [];
    return { stdout: `${[...lines, ...extractionSummary(x, planned.length)].join("\n")}\n` };
  }

  // a prompt with nothing to keep never creates or opens a store
  if (x.captures.length === 0) {
    if (flags.json) return { stdout: json({ ...base, stored: [], captures: [], ...extractionJson(x) }) };
    return { stdout: `${extractionSummary(x, 0).join("\n")}\n` };
  }
  const env = opsEnv(flags);
  const { ensureStore, withStore } = await storeOps();
  const { captureText } = await ops();
  const created = await ensureStore(env);
  const out = await withStore(env, (store) => captureText(store, env, text, ctx, x));
  if (flags.json) {
    return { stdout: json({ ...base, stored: out.stored, captures: out.extraction.captures, ...extractionJson(out.extraction), store_created: created }) };
  }
  return {
    stdout: `${[...out.stored.map(storedLine), ...extractionSummary(out.extraction, out.stored.length)].join("\n")}\n`,
    stderr: created ? `memsync: created a new store at ${env.storeRoot}\n` : "",
  };
}

export async function remember(rawWords: string[], flags: Flags): Promise<CommandResult> {
  const words = wordsOf(rawWords, flags);
  const text = await textArg(words, "memory text");
  if (flags.success && flags.failed) throw usageError("--success and --failed exclude each other");
  const fields: JsonObject = {};
  const set = (k: string, v: unknown) => {
    if (v !== undefined) fields[k] = v;
  };
  set("importance", oneOf(flags, "importance", IMPORTANCE_LEVELS));
  set("confidence", num(flags, "confidence", { min: 0, max: 1 }));
  set("category", str(flags, "category"));
  const overrides: Overrides = {
    type: oneOf(flags, "type", MEMORY_TYPES),
    outcome: flags.success ? "success" : flags.failed ? "failed" : undefined,
    scope: oneOf(flags, "scope", SHARING_SCOPES),
    entities: list(flags, "entity"),
    fields,
  };
  if (flags.global && overrides.scope !== undefined && overrides.scope !== "global") throw usageError("--global and --scope disagree");
  const ctx: CaptureContext = {
    project: projectOf(flags, null),
    global: Boolean(flags.global),
    tags: list(flags, "tag"),
    source: str(flags, "source") ?? "remember",
  };
  const env = opsEnv(flags);
  const { planRemember, rememberText } = await ops();
  const { ensureStore, storeExists, withStore } = await storeOps();
  // refuse bad input (an all-<private> text, an invalid tag) before any store is made
  const plan = planRemember(text, ctx, overrides);
  if (flags.dryRun) {
    return { stdout: flags.json ? json({ dry_run: true, memory: plan.fields }) : `${["would remember:", ...detailLines(plan.fields)].join("\n")}\n` };
  }
  const created = storeExists(env) ? false : await ensureStore(env);
  const out = await withStore(env, (store) => rememberText(store, env, text, ctx, overrides));
  if (flags.json) return { stdout: json({ action: out.action, memory: out.memory, path: out.path, store_created: created }) };
  return {
    stdout: `${out.action === "created" ? `remembered ${out.memory.id}` : `reinforced ${out.memory.id} (uses: ${out.memory.use_count})`}  ${describe(out.memory)}\n`,
    stderr: created ? `memsync: created a new store at ${env.storeRoot}\n` : "",
  };
}
