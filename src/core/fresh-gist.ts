import { makeGist } from "./gist.ts";

// The gist a memory made by consolidation or split gets: generated from its own content (the
// sources' gists described other texts), at the default level, keeping its entities.

export function freshGist(content: string, entities: readonly string[]): string | null {
  return makeGist(content, "moderate", entities);
}
