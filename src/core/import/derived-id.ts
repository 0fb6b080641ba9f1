import { hashString } from "../cluster/hash.ts";
import { isId } from "../ids.ts";

// Ids for records whose source has none memsync can use (OrchestKit's "decision-m1abc-x7y2z3",
// an entity name): a UUID made from the text, the same on every machine and every run, so
// importing the same file twice finds the same ids (idempotent) and never builds a path from
// the source's text. Version 8 (RFC 9562's custom version): it cannot collide with a v4 or v7.

const hex8 = (n: number) => (n >>> 0).toString(16).padStart(8, "0");

export function derivedId(text: string): string {
  const h = [0x811c9dc5, 0x2545f491, 0x9e3779b9, 0x85ebca77].map((seed) => hex8(hashString(text, seed))).join("");
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The source's id when it is a UUID (lowercased), else one derived from it within its namespace. */
export function idFor(namespace: string, sourceId: string): { id: string; kept: boolean } {
  const lower = sourceId.trim().toLowerCase();
  if (isId(lower)) return { id: lower, kept: true };
  return { id: derivedId(`${namespace}\n${sourceId}`), kept: false };
}
