import { invalidInput } from "./errors.ts";

// Tags and entities: the two label lists a memory carries. Tags are normalized identifiers
// ("Machine Learning" -> machine_learning); entities keep their spelling ("PostgreSQL") and are
// only trimmed and de-duplicated case-insensitively.

export const LIMITS = {
  contentMax: 50_000,
  tagsMax: 50,
  tagMax: 100,
  entitiesMax: 100,
  entityMax: 200,
} as const;

/** Sanitize one tag. Returns "" when nothing usable is left. */
export function sanitizeTag(raw: string): string {
  return raw
    .normalize("NFKC")
    .toLowerCase()
    .trim()
    .replace(/[\s_]+/g, "_")
    // keep letters, digits and the punctuation technical names use (c++, c#, node.js, k8s/v1)
    .replace(/[^\p{L}\p{N}_\-.+#/:]/gu, "")
    .replace(/_+/g, "_")
    .replace(/^[_\-.:/]+|[_\-.:/]+$/g, "");
}

/** Sanitize and de-duplicate tags, refusing a tag with nothing left or over the limits. */
export function sanitizeTags(raw: readonly string[]): string[] {
  return checkTagCount(sanitizeTagList(raw));
}

export function checkTagCount(tags: string[]): string[] {
  if (tags.length > LIMITS.tagsMax) throw invalidInput(`too many tags: ${tags.length} (at most ${LIMITS.tagsMax})`);
  return tags;
}

/** Sanitize and de-duplicate, refusing unusable tags; the count is checked by the caller. */
export function sanitizeTagList(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (const r of raw) {
    const tag = sanitizeTag(r);
    if (!tag) throw invalidInput(`invalid tag ${JSON.stringify(r.slice(0, 60))}: it has no letters or digits`);
    if ([...tag].length > LIMITS.tagMax) {
      throw invalidInput(`invalid tag ${JSON.stringify(r.slice(0, 60) + "…")}: longer than ${LIMITS.tagMax} characters`);
    }
    if (!out.includes(tag)) out.push(tag);
  }
  return out;
}

/** Trim and de-duplicate entities (case-insensitively, first spelling wins). */
export function normalizeEntities(raw: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const r of raw) {
    const e = r.normalize("NFC").replace(/\s+/g, " ").trim();
    if (!e) throw invalidInput("invalid entity: empty");
    if ([...e].length > LIMITS.entityMax) {
      throw invalidInput(`invalid entity ${JSON.stringify(e.slice(0, 60) + "…")}: longer than ${LIMITS.entityMax} characters`);
    }
    const key = e.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  if (out.length > LIMITS.entitiesMax) throw invalidInput(`too many entities: ${out.length} (at most ${LIMITS.entitiesMax})`);
  return out;
}

/** Length in characters (code points), the unit every limit is stated in. */
export function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
