import type { GenericSchema } from "valibot";
import { unavailable } from "../core/errors.ts";
import { type Memory, MemorySchema, memoryToJson } from "../core/model/memory.ts";
import { type Relation, RelationSchema, relationToJson } from "../core/model/relation.ts";
import { type StoreMeta, StoreMetaSchema, storeMetaToJson } from "../core/model/store-meta.ts";
import { parseJsonText, parseWith } from "../core/model/validate.ts";
import type { StoreFs } from "./fs-port.ts";
import type { RecordKind } from "./layout.ts";

// Reading and writing record text: everything that needs the schemas. The store loads this
// module only when it must parse a file or write one; a read served from the index never pays
// for the schema library (about 5 ms of start-up in the compiled binary).
//
// A bad file is never an exception here: it comes back as a problem, so one corrupt file cannot
// stop the rest from loading.

export type RecordOf<K extends RecordKind> = K extends "memory" ? Memory : Relation;

export type ReadResult<K extends RecordKind> = { ok: true; record: RecordOf<K> } | { ok: false; problem: string };

const SCHEMA = { memory: MemorySchema, relation: RelationSchema } as const;

export function parseRecordText<K extends RecordKind>(kind: K, text: string, expectedId: string | null): ReadResult<K> {
  const json = parseJsonText(text);
  if (!json.ok) return json;
  const parsed = parseWith(SCHEMA[kind] as unknown as GenericSchema<unknown, RecordOf<K>>, json.value);
  if (!parsed.ok) return { ok: false, problem: `invalid ${kind}: ${parsed.problem}` };
  if (expectedId !== null && parsed.value.id !== expectedId) {
    return { ok: false, problem: `id ${parsed.value.id} does not match the file name` };
  }
  return { ok: true, record: parsed.value };
}

export function readRecordFile<K extends RecordKind>(fs: StoreFs, absPath: string, kind: K, expectedId: string | null): ReadResult<K> {
  let text: string;
  try {
    text = fs.readText(absPath);
  } catch (e) {
    return { ok: false, problem: `unreadable (${(e as { code?: string }).code ?? String(e)})` };
  }
  return parseRecordText(kind, text, expectedId);
}

export function parseStoreMeta(raw: unknown, path: string): StoreMeta {
  const parsed = parseWith(StoreMetaSchema, raw);
  if (!parsed.ok) throw unavailable(`store metadata ${path} is unusable: ${parsed.problem}`);
  return parsed.value;
}

export type RecordOrMetaKind = RecordKind | "meta";

/** Validate a record (or .meta.json) given as a JSON value; on success, its canonical text. */
export function validate(kind: RecordOrMetaKind, value: unknown): { ok: true; text: string } | { ok: false; problem: string } {
  if (kind === "meta") {
    const r = parseWith(StoreMetaSchema, value);
    return r.ok ? { ok: true, text: storeMetaToJson(r.value) } : r;
  }
  const r = parseWith(SCHEMA[kind] as unknown as GenericSchema<unknown, Memory | Relation>, value);
  if (!r.ok) return r;
  return { ok: true, text: kind === "memory" ? memoryToJson(r.value as Memory) : relationToJson(r.value as Relation) };
}

export { memoryToJson, relationToJson, storeMetaToJson };

export type Codec = typeof import("./codec.ts");
