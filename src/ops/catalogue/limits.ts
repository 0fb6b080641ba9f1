// Defaults and limits of the catalogue's reads, as plain numbers: the input schemas
// (queries.ts) are built from them, and the CLI reads its flags against the same numbers without
// loading a schema.

/** At most this many ids in one call. */
export const MAX_IDS = 10_000;
/** An id as given (full or abbreviated) is at most this many characters. */
export const ID_TEXT_MAX = 200;

/** Whether a list of ids is one the get entry's input schema (IdList) passes unchanged: 1 to MAX_IDS texts of 1 to ID_TEXT_MAX characters. */
export const plainIdList = (ids: unknown): ids is string[] =>
  Array.isArray(ids) && ids.length >= 1 && ids.length <= MAX_IDS && ids.every((id) => typeof id === "string" && id.length >= 1 && id.length <= ID_TEXT_MAX);

export const QUERY_LIMITS = {
  /** list and search: at most this many results; 0 means all. */
  limit: { min: 0, max: 1_000_000 },
  listLimit: 50,
  searchLimit: 20,
  /** recall and context: the block's size in characters, and how many memories at most. */
  budget: { min: 0, max: 1_000_000 },
  blockLimit: { min: 1, max: 1000 },
} as const;

