import { invalidInput } from "../core/errors.ts";
import type { JsonObject } from "../core/records.ts";
import type { SplitPart } from "../core/split.ts";

// The parts of a split as the command line gives them: a JSON document of parts (--input) and
// per-part labels (--part-tags 2:a,b, part numbers from 1); the messages name the CLI's options.
// The catalogue's split takes the same parts as its input (ops/catalogue/maintenance.ts), which
// is how an API's body gives them.

/** --part-tags 2:a,b → labels for part 2 (1-based). */
export function perPart(items: readonly string[], flag: string, count: number): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const item of items) {
    const m = /^(\d+):(.*)$/s.exec(item);
    if (!m) throw invalidInput(`--${flag} takes PART:LIST, e.g. --${flag} 2:a,b (parts count from 1), got ${JSON.stringify(item.slice(0, 40))}`);
    const n = Number(m[1]);
    if (n < 1 || n > count) throw invalidInput(`--${flag} ${n}: there are ${count} parts (1 to ${count})`);
    const values = m[2]!.split(",").map((s) => s.trim()).filter(Boolean);
    out.set(n, [...(out.get(n) ?? []), ...values]);
  }
  return out;
}

const stringList = (v: unknown, what: string): string[] => {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw invalidInput(`${what} must be a list of strings`);
  return v as string[];
};

/** Parts from --input: {"parts": [...]}, each a text or an object with content (and tags, entities, fields). */
export function partsFromJson(value: JsonObject): SplitPart[] {
  const list = value.parts;
  if (!Array.isArray(list)) throw invalidInput(`--input: expected {"parts": [...]}`);
  return list.map((p, i) => {
    if (typeof p === "string") return { content: p };
    if (typeof p !== "object" || p === null || Array.isArray(p)) throw invalidInput(`--input: part ${i + 1} must be a text or an object with "content"`);
    const { content, tags, entities, ...fields } = p as JsonObject;
    if (typeof content !== "string") throw invalidInput(`--input: part ${i + 1} needs "content" (a text)`);
    return {
      content,
      ...(tags !== undefined ? { tags: stringList(tags, `--input: part ${i + 1} tags`) } : {}),
      ...(entities !== undefined ? { entities: stringList(entities, `--input: part ${i + 1} entities`) } : {}),
      ...(Object.keys(fields).length ? { fields } : {}),
    };
  });
}

