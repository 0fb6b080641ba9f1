import { invalidInput } from "./errors.ts";

// A user's query becomes an FTS5 expression built only from quoted word tokens, so no input can
// inject FTS5 syntax. Every word must match (AND); words of 3+ characters also match as prefixes
// ("postgres" finds "PostgreSQL").

export interface SearchTerms {
  words: string[];
  match: string;
}

export function searchTerms(query: string, mode: "all" | "any" = "all"): SearchTerms {
  const words = [...new Set(query.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, 32);
  if (words.length === 0) throw invalidInput("search query has no words to look for");
  const parts = words.map((w) => (w.length >= 3 ? `"${w}"*` : `"${w}"`));
  return { words, match: parts.join(mode === "all" ? " AND " : " OR ") };
}
