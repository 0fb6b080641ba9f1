import { invalidInput } from "./errors.ts";

// Ids are lowercase RFC 9562 UUIDs. New ones are v7 (new-id.ts); any version is accepted on
// read so stores migrated from CortexGraph (v4) keep working.
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isId(value: unknown): value is string {
  return typeof value === "string" && UUID_RE.test(value);
}

/**
 * Turn user input into an id, or refuse it. This is the only way a string from outside becomes
 * something the store will build a path from.
 */
export function parseId(input: string, what = "id"): string {
  const trimmed = input.trim().toLowerCase();
  if (!isId(trimmed)) {
    const shown = input.length > 60 ? `${input.slice(0, 57)}...` : input;
    throw invalidInput(`invalid ${what} ${JSON.stringify(shown)}: expected a UUID like 0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d`);
  }
  return trimmed;
}

/**
 * The short id memsync shows (commit messages, recall): the last 8 hex digits of an id, or up to
 * the whole last group (12). UUIDv7 ids made the same minute share their leading digits, so the
 * tail is what tells them apart.
 */
export const SHORT_ID_RE = /^[0-9a-f]{8,12}$/;

export function isShortId(input: string): boolean {
  return SHORT_ID_RE.test(input.trim().toLowerCase());
}

/**
 * Shard folder for an id: its last two hex digits. UUIDv7 ids begin with their creation time, so
 * the leading digits of ids made close together are equal; the random tail spreads them evenly
 * over 256 folders.
 */
export function shardOf(id: string): string {
  return id.slice(-2);
}

export const SHARD_RE = /^[0-9a-f]{2}$/;

/** An id as a user gives it: the full id, or an abbreviation (hex digits only, dashes dropped). */
export type IdRef = { full: string } | { abbrev: string; given: string };

/** Fewest hex digits an abbreviation may have (git shows 7; memsync shows the last 8). */
export const MIN_ABBREV = 6;

/**
 * A full id, or an abbreviation of one: at least MIN_ABBREV of its hex digits, leading (as git
 * users type them, dashes optional) or trailing (as memsync prints them). Anything else is
 * refused in one line; an abbreviation holds hex digits only, so it never becomes a path.
 */
export function parseIdRef(input: string, what = "id"): IdRef {
  const trimmed = input.trim().toLowerCase();
  if (UUID_RE.test(trimmed)) return { full: trimmed };
  const hex = trimmed.replace(/-/g, "");
  if (/^[0-9a-f-]+$/.test(trimmed) && hex.length >= MIN_ABBREV && hex.length <= 32) return { abbrev: hex, given: trimmed };
  const shown = input.length > 60 ? `${input.slice(0, 57)}...` : input;
  throw invalidInput(
    `invalid ${what} ${JSON.stringify(shown)}: expected a full id like 0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d, or at least ${MIN_ABBREV} of its hex digits from its start or its end`,
  );
}
