import { type Capture, type Extraction, extractCaptures } from "../core/capture/extract.ts";
import { extractExplicit } from "../core/capture/explicit.ts";
import { type CaptureContext, memoryFields, type Overrides, reinforceMemory } from "../core/capture/record.ts";
import { messages } from "../core/history.ts";
import { replacedWords } from "../core/recall-rank.ts";
import type { Memory } from "../core/model/memory.ts";
import { withScopeRules } from "../core/scope.ts";
import { newId } from "../core/new-id.ts";
import { createMemory, createRelation, type JsonObject } from "../core/records.ts";
import type { Store, StoreTx } from "../store/store.ts";
import { type OpsEnv, originOf } from "./context.ts";

// Capture (implicit: whatever a prompt states) and remember (explicit: this text, kept whole).
// Both are one write transaction, so one commit however many memories a prompt holds; a statement
// seen before (same fingerprint, same project) reinforces the memory that has it.
// Callable by every face: the CLI now, Claude Code hooks and the API later.

export interface StoredMemory {
  action: "created" | "reinforced";
  memory: Memory;
  path: string;
}

export interface CaptureOutcome {
  stored: StoredMemory[];
  extraction: Extraction;
}

export interface RememberOutcome extends StoredMemory {
  capture: Capture;
  extraction: Extraction;
}

/** Store one memory's fields, or reinforce the memory that already says it. */
function storeOne(tx: StoreTx, fields: JsonObject, created: Memory, project: string | null, stream: string): StoredMemory {
  const fp = typeof fields.fingerprint === "string" ? fields.fingerprint : undefined;
  const earlier = fp ? tx.findByFingerprint(fp, project) : undefined;
  if (earlier) {
    const memory = withScopeRules(reinforceMemory(tx.memory(earlier), fields, tx.now, stream));
    return { action: "reinforced", memory, path: tx.putMemory(memory) };
  }
  const memory = withScopeRules(created);
  return { action: "created", memory, path: tx.putMemory(memory) };
}

async function replacedBy(store: Store, fresh: readonly Memory[]): Promise<[string, string][]> {
  if (!fresh.some((m) => replacedWords(m.content).length > 0)) return [];
  return (await import("./supersede.ts")).supersededBy(store, fresh);
}

/** A `supersedes` relation from each created memory to each older one it replaces (once). */
function relateReplaced(tx: StoreTx, stored: readonly StoredMemory[], replaces: readonly [string, string][]): void {
  const created = new Set(stored.filter((s) => s.action === "created").map((s) => s.memory.id));
  for (const [from, to] of replaces) {
    if (!created.has(from) || !tx.memoryExists(to) || tx.findRelation(from, to, "supersedes")) continue;
    tx.putRelation(createRelation({ from, to, type: "supersedes" }, newId(), tx.now));
  }
}

function note(tx: StoreTx, op: "capture" | "remember", stored: StoredMemory[]): void {
  const created = stored.filter((s) => s.action === "created").map((s) => s.memory);
  tx.note(op, messages.capture(op, created, stored.length - created.length));
}

/**
 * Implicit capture: every decision, preference, problem and solution the text states. A caller
 * that has read the text already (to skip opening the store when there is nothing) passes its
 * extraction.
 */
export async function captureText(store: Store, env: OpsEnv, text: string, ctx: CaptureContext, extraction: Extraction = extractCaptures(text)): Promise<CaptureOutcome> {
  if (extraction.captures.length === 0) return { stored: [], extraction };
  const origin = originOf(store, env);
  // every record is built (and so validated and redacted) before the store is touched
  const planned = extraction.captures.map((c) => {
    const fields = memoryFields(c, ctx);
    return { fields, memory: createMemory(fields, newId(), origin), project: (fields.project as string | null) ?? null };
  });
  // what a new decision says it replaces, looked up before the write (a search; most captures name nothing)
  const replaces = await replacedBy(store, planned.map((p) => p.memory));
  const stored = await store.write((tx) => {
    const out = planned.map((p) => storeOne(tx, p.fields, p.memory, p.project, origin.replica!));
    relateReplaced(tx, out, replaces);
    note(tx, "capture", out);
    return out;
  }, replaces.length ? ["memory", "relation"] : ["memory"]);
  return { stored, extraction };
}

/** The record remember would store (validated and redacted), without a store: for --dry-run and checks. */
export function planRemember(text: string, ctx: CaptureContext, overrides: Overrides = {}): { fields: JsonObject; capture: Capture; extraction: Extraction; memory: Memory } {
  const { capture, extraction } = extractExplicit(text);
  const fields = memoryFields(capture, ctx, overrides);
  const memory = createMemory(fields, newId(), { now: Math.floor(Date.now() / 1000), machine: null, user: null });
  return { fields, capture, extraction, memory };
}

/** Explicit capture: this text, kept whole, with the fields extraction finds and the flags set. */
export async function rememberText(store: Store, env: OpsEnv, text: string, ctx: CaptureContext, overrides: Overrides = {}): Promise<RememberOutcome> {
  const { capture, extraction } = extractExplicit(text);
  const fields = memoryFields(capture, ctx, overrides);
  const origin = originOf(store, env);
  const created = createMemory(fields, newId(), origin);
  const stored = await store.write((tx) => {
    const one = storeOne(tx, fields, created, (fields.project as string | null) ?? null, origin.replica!);
    note(tx, "remember", [one]);
    return one;
  }, ["memory"]);
  return { ...stored, capture, extraction };
}
