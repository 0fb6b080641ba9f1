import type { Store } from "../../src/store/store.ts";

// How many times a refresh loaded file rows from the index (a settled store's full refresh, which
// compares folders by their sums, loads none): the store's index methods counted in place.

/** Count the file rows a refresh loads (a settled store's full refresh loads none). */
export function countRowLoads(store: Store): { n: number; restore: () => void } {
  const index = store.index;
  const counter = { n: 0, restore: () => {} };
  const a = index.stampsIn.bind(index);
  const b = index.stampsOfKind.bind(index);
  index.stampsIn = (dir) => (counter.n++, a(dir));
  index.stampsOfKind = (kind) => (counter.n++, b(kind));
  counter.restore = () => {
    index.stampsIn = a;
    index.stampsOfKind = b;
  };
  return counter;
}
