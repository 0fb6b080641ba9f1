import * as v from "../../core/model/valibot.ts";
import { type Extraction, extractCaptures } from "../../core/capture/extract.ts";
import { parseHookPayload } from "../../core/capture/hook-input.ts";
import type { CaptureContext, Overrides } from "../../core/capture/record.ts";
import { invalidInput, usageError } from "../../core/errors.ts";
import { IMPORTANCE_LEVELS, MEMORY_TYPES, OUTCOMES, SHARING_SCOPES } from "../../core/model/vocab.ts";
import type { JsonObject } from "../../core/records.ts";
import { withStore } from "../context.ts";
import { ensureStore, storeExists } from "../init.ts";
import { projectOf } from "../project.ts";
import type { OpCall } from "./index.ts";
import { def, num, Texts } from "./schema.ts";

// remember (explicit capture: this text, kept whole) and capture (implicit: whatever a text, or a
// Claude Code hook payload, states). Both refuse bad input before a store is made, and a text with
// nothing to keep never creates or opens one.

/** Text of a memory or a prompt: far more than a memory holds (core/labels.ts checks that). */
const Text = v.pipe(v.string(), v.maxLength(1_000_000));
const Project = v.optional(v.pipe(v.string(), v.maxLength(500)));

/**
 * The project: the one given, else none for a global memory, else that of the working directory
 * (a hook's, else the caller's). A caller with no working directory (a server) resolves none.
 */
function projectFor(input: { global: boolean; project?: string | undefined }, call: OpCall, hookCwd: string | null = null): string | null {
  if (input.global) {
    if (input.project?.trim()) throw usageError("global and project exclude each other (a global memory belongs to no project)", { fields: ["global", "project"] });
    return null;
  }
  const cwd = call.cwd !== undefined ? (hookCwd ?? call.cwd) : undefined;
  return cwd !== undefined ? projectOf({ given: input.project, cwd }) : input.project?.trim() || null;
}

const Stored = (o: typeof import("./outputs.ts")) => v.object({ action: v.picklist(["created", "reinforced"]), memory: o.Memory, path: o.Text });

export const remember = def(
  () => v.object({
    text: Text,
    /** Default: read from the text. */
    type: v.optional(v.picklist(MEMORY_TYPES)),
    /** It worked (a pattern) or failed (an anti-pattern); with a type, only recorded. */
    outcome: v.optional(v.picklist(OUTCOMES)),
    /** Shared across projects: scope global, no project. */
    global: v.optional(v.boolean(), false),
    project: Project,
    scope: v.optional(v.picklist(SHARING_SCOPES)),
    tags: v.optional(Texts, []),
    /** Besides those found in the text. */
    entities: v.optional(Texts, []),
    importance: v.optional(v.picklist(IMPORTANCE_LEVELS)),
    /** Default: from the text, at least 0.8. */
    confidence: v.optional(num(0, 1)),
    category: v.optional(v.pipe(v.string(), v.maxLength(200))),
    /** meta.source (default remember). */
    source: v.optional(v.pipe(v.string(), v.maxLength(500))),
    /** What would be stored; store nothing. */
    dry_run: v.optional(v.boolean(), false),
  }),
  (o) => v.union([v.object({ dry_run: v.literal(true), memory: o.Fields }), v.object({ ...Stored(o).entries, store_created: o.Flag })]),
  async (call, input) => {
    if (input.text.trim() === "") throw invalidInput("text is empty", { fields: ["text"] });
    if (input.global && input.scope !== undefined && input.scope !== "global") throw usageError("global and scope disagree", { fields: ["global", "scope"] });
    const fields: JsonObject = {};
    if (input.importance !== undefined) fields.importance = input.importance;
    if (input.confidence !== undefined) fields.confidence = input.confidence;
    if (input.category !== undefined) fields.category = input.category;
    const overrides: Overrides = { type: input.type, outcome: input.outcome, scope: input.scope, entities: input.entities, fields };
    const ctx: CaptureContext = { project: projectFor(input, call), global: input.global, tags: input.tags, source: input.source ?? "remember" };
    const { planRemember, rememberText } = await import("../capture.ts");
    // bad input (an all-<private> text, an invalid tag) is refused before any store is made
    const plan = planRemember(input.text, ctx, overrides);
    if (input.dry_run) return { dry_run: true as const, memory: plan.fields };
    const env = call.env;
    const created = storeExists(env) ? false : await ensureStore(env);
    const out = await withStore(env, (store) => rememberText(store, env, input.text, ctx, overrides));
    return { action: out.action, memory: out.memory, path: out.path, store_created: created };
  },
);

const extractionJson = (x: Extraction) => ({ skipped: x.skipped, ignored: x.ignored, reason: x.reason, redacted: x.redacted, private_removed: x.privateRemoved });

export const capture = def(
  () => v.object({
    /** Free text, or a Claude Code hook payload (JSON with hook_event_name, prompt, cwd, session_id). */
    text: Text,
    /** Store as global (no project). */
    global: v.optional(v.boolean(), false),
    /** Default: that of the hook's cwd, else of the caller's working directory. */
    project: Project,
    /** Put on every memory stored. */
    tags: v.optional(Texts, []),
    dry_run: v.optional(v.boolean(), false),
  }),
  (o) =>
    v.object({
      dry_run: o.Flag,
      project: o.NullableText,
      source: o.Text,
      stored: v.array(Stored(o)),
      /** What was stored (a dry run: the record fields it would store). */
      captures: v.array(o.Fields),
      skipped: v.array(v.object({ text: o.Text, reason: o.Text })),
      ignored: v.array(o.Text),
      reason: o.NullableText,
      redacted: v.array(o.Text),
      private_removed: o.Flag,
      store_created: o.Flag,
    }),
  async (call, input) => {
    const hook = parseHookPayload(input.text);
    const ctx: CaptureContext = {
      project: projectFor(input, call, hook?.cwd ?? null),
      global: input.global,
      tags: input.tags,
      source: hook ? `claude-code:${hook.event ?? "hook"}` : "capture",
      session: hook?.sessionId ?? null,
      agent: hook ? "claude-code" : null,
    };
    const text = hook ? hook.prompt : input.text;
    const base = { dry_run: input.dry_run, project: ctx.global ? null : ctx.project, source: ctx.source };
    const none = { stored: [], captures: [], store_created: false };
    if (text === null || text.trim() === "") {
      const reason = hook ? `the ${hook.event ?? "hook"} payload carries no prompt` : "the text is empty";
      return { ...base, ...none, skipped: [], ignored: [], reason, redacted: [], private_removed: false };
    }
    const x = extractCaptures(text);
    if (input.dry_run) {
      const { memoryFields } = await import("../../core/capture/record.ts");
      return { ...base, ...none, captures: x.captures.map((c) => memoryFields(c, ctx)), ...extractionJson(x) };
    }
    // a text with nothing to keep never creates or opens a store
    if (x.captures.length === 0) return { ...base, ...none, ...extractionJson(x) };
    const env = call.env;
    if (!storeExists(env)) {
      // where this capture would create the store, bad input is refused before that
      const [{ memoryFields }, { checkNewMemory }] = await Promise.all([import("../../core/capture/record.ts"), import("../save.ts")]);
      for (const c of x.captures) checkNewMemory(memoryFields(c, ctx));
    }
    const created = await ensureStore(env);
    const { captureText } = await import("../capture.ts");
    const out = await withStore(env, (store) => captureText(store, env, text, ctx, x));
    return { ...base, stored: out.stored, captures: out.extraction.captures, ...extractionJson(out.extraction), store_created: created };
  },
);
