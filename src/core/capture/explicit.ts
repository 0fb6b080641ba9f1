import { findMentions, uniqueRelations } from "./entities.ts";
import { type Capture, categoryOf, type Extraction, extractCaptures, fingerprintOf } from "./extract.ts";
import { prepareText } from "./text.ts";

// Explicit capture (memsync remember): the person asked for the text to be kept, so it is kept
// whole, whatever it is; extraction only fills in the structured fields. The guards that keep
// implicit capture quiet (a question, a request, code) do not stop it, and a statement someone
// chose to remember counts as sure: confidence at least EXPLICIT_CONFIDENCE.

export const EXPLICIT_CONFIDENCE = 0.8;

export function extractExplicit(text: string): { capture: Capture; extraction: Extraction } {
  const extraction = extractCaptures(text);
  const found = extraction.captures;
  if (found.length > 0) {
    const best = found.reduce((a, b) => (b.confidence > a.confidence ? b : a));
    const entities = [...new Set([...best.entities, ...found.flatMap((c) => c.entities)])].slice(0, 100);
    const relations = uniqueRelations(found.flatMap((c) => c.entity_relations));
    return {
      extraction,
      capture: {
        ...best,
        content: text,
        entities,
        entity_relations: relations,
        confidence: Math.round(Math.min(1, Math.max(EXPLICIT_CONFIDENCE, best.confidence + 0.1)) * 100) / 100,
      },
    };
  }
  // nothing stated as a decision: a fact, with the entities it names
  const prose = prepareText(text).text || text;
  const mentions = findMentions(prose.length > 50_000 ? prose.slice(0, 50_000) : prose);
  return {
    extraction,
    capture: {
      type: "fact",
      content: text,
      decision: null,
      entities: mentions.map((m) => m.name).slice(0, 100),
      entity_relations: [],
      confidence: EXPLICIT_CONFIDENCE,
      category: categoryOf([], mentions, prose),
      scope: "team",
      importance: "medium",
      fingerprint: fingerprintOf("fact", text),
      signal: "remember",
    },
  };
}
