// Who may run maintenance (gc, consolidate, split, promote). The store's shared settings name one
// maintainer machine; any other machine is refused unless it takes the role over explicitly, so two
// laptops never consolidate the same store at once. A store that names none yet is taken by the
// first machine that maintains it.

export type MaintainerVerdict =
  /** go on; `record` says this machine's name must be written as the maintainer with the change */
  | { ok: true; record: boolean }
  | { ok: false; holder: string };

export function maintainerVerdict(holder: string | null, machine: string, claim: boolean): MaintainerVerdict {
  if (holder === machine) return { ok: true, record: false };
  if (holder === null || claim) return { ok: true, record: true };
  return { ok: false, holder };
}
