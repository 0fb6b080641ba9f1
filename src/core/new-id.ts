import { v7 as uuidv7 } from "uuid";

// New ids: UUIDv7, time-ordered (so "newest N" needs no full load), from the uuid package. Apart
// from ids.ts so that commands that only read never load it.

export function newId(): string {
  return uuidv7();
}
