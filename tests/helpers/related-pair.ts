import { memsync, newStore } from "./env.ts";

/** A fresh store with two saved memories, a supporting b, and an id no memory has. */
export function relatedPair(): { store: string; a: string; b: string; missing: string } {
  const store = newStore();
  const saved = (text: string) => JSON.parse(memsync(["save", text, "--json"], { env: { MEMSYNC_HOME: store } }).stdout).memory.id as string;
  const a = saved("Use cursor pagination for list endpoints");
  const b = saved("Retry the billing worker's connection with backoff");
  memsync(["relate", a, b, "--type", "supports"], { env: { MEMSYNC_HOME: store } });
  return { store, a, b, missing: "01936552-35ba-7a03-b44b-d40957434960" };
}
