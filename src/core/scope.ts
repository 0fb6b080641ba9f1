import type { Memory } from "./model/memory.ts";

// What a memory's sharing scope promises, as far as the record itself can keep it (README: The
// store, Scopes). Where a record lives (local records never enter git) is the store's part.

/**
 * A memory as it may be written with its scope: a global one carries no user identity, so its
 * `captured_by.user` and `captured_by.session` are dropped (null). Applied on every write, so a
 * change of scope to global anonymises too. Returns the same object when nothing changes.
 */
export function withScopeRules(m: Memory): Memory {
  const by = m.captured_by;
  if (m.scope !== "global" || !by || (by.user == null && by.session == null)) return m;
  return { ...m, captured_by: { ...by, user: null, session: null } };
}
