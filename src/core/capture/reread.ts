import { LIMITS, normalizeEntities } from "../labels.ts";
import type { EntityRelation, Memory } from "../model/memory.ts";
import type { JsonObject } from "../records.ts";
import { extractExplicit } from "./explicit.ts";
import { fingerprintOf } from "./extract.ts";

// New content, new readings: what memsync read from a memory's text (the decision's what, why,
// alternatives...; the entities it names and their relations; the capture fingerprint) describes
// the old text once the content changes. update and resolve re-read them from the new text, as
// remember reads them, unless the same change gives them explicitly. Labels a person added that
// the old text never named are kept. (The gist is made again by the caller, from the result.)

const lower = (s: string) => s.toLowerCase();
const relKey = (r: EntityRelation) => `${r.from.toLowerCase()}\u0000${r.type}\u0000${r.to.toLowerCase()}`;

/**
 * Fields to add to a patch that changes `before.content` to `content`: only those the patch does
 * not set itself. A memory with no decision gets none (save reads no decision from its text);
 * one with a decision gets the new text's, or its first words as `what` and no reason when the
 * new text states no decision.
 */
export function rereadFields(before: Memory, content: string, patch: JsonObject): JsonObject {
  const old = extractExplicit(before.content).capture;
  const now = extractExplicit(content).capture;
  const out: JsonObject = {};

  let entities = before.entities;
  if (!Object.hasOwn(patch, "entities")) {
    const readBefore = new Set(old.entities.map(lower));
    const kept = before.entities.filter((e) => !readBefore.has(lower(e)));
    entities = normalizeEntities([...kept, ...now.entities]).slice(0, LIMITS.entitiesMax);
    out.entities = entities;
  } else if (Array.isArray(patch.entities)) {
    entities = patch.entities as string[];
  }
  if (!Object.hasOwn(patch, "entity_relations")) {
    const readBefore = new Set(old.entity_relations.map(relKey));
    const names = new Set(entities.map(lower));
    const seen = new Set<string>();
    const rels = [...(before.entity_relations ?? []).filter((r) => !readBefore.has(relKey(r))), ...now.entity_relations].filter(
      (r) => names.has(lower(r.from)) && names.has(lower(r.to)) && !seen.has(relKey(r)) && seen.add(relKey(r)),
    );
    out.entity_relations = rels.length ? rels : undefined;
  }

  let what: string | undefined;
  if (!Object.hasOwn(patch, "decision") && before.decision) {
    const d = now.decision ?? { what: firstWords(content), why: null, alternatives: [], constraints: [], tradeoffs: [] };
    out.decision = { ...d };
    what = d.what;
  } else if (patch.decision && typeof patch.decision === "object" && typeof (patch.decision as JsonObject).what === "string") {
    what = (patch.decision as JsonObject).what as string;
  }
  if (!Object.hasOwn(patch, "fingerprint") && before.fingerprint !== undefined) {
    const type = typeof patch.type === "string" ? patch.type : before.type;
    out.fingerprint = fingerprintOf(type, what ?? content);
  }
  return out;
}

/** A decision's `what` when the text states no decision the reader recognises: its first line, cut short. */
function firstWords(text: string): string {
  const line = text.trim().split("\n")[0]!.replace(/\s+/g, " ").trim();
  if (line.length <= 160) return line;
  const cut = line.slice(0, 160);
  const space = cut.lastIndexOf(" ");
  return `${space > 40 ? cut.slice(0, space) : cut}…`;
}
