import { conflict } from "../core/errors.ts";
import { maintainerVerdict } from "../core/maintainer.ts";
import type { Store, StoreTx } from "../store/store.ts";
import { machineAndReplica } from "../store/machine.ts";
import type { OpsEnv } from "./context.ts";

// The maintainer role, as every maintenance operation checks it (see core/maintainer.ts).

export interface MaintainerOutcome {
  machine: string;
  /** This change made this machine the store's maintainer (recorded in .meta.json, same commit). */
  claimed: boolean;
  previous: string | null;
}

function refuse(holder: string, machine: string) {
  return conflict(
    `maintenance of this store belongs to machine ${holder} (this is ${machine}); run it there, or take the role over with claim_maintainer`,
    { maintainer: holder, machine, fields: ["claim_maintainer"] },
  );
}

/** This machine's name as the store knows it. */
export function thisMachine(store: Store, env: OpsEnv): string {
  // (a read too: a preview, or who maintains a read-only store)
  return machineAndReplica(store.fs, store.root, () => env.hostName, env.machineOverride).machine ?? "unknown";
}

/**
 * Inside a maintenance transaction, before it changes anything: refuse unless this machine is the
 * maintainer; a claim, or a store that names none, records this machine in the same transaction.
 */
export function takeMaintenance(tx: StoreTx, machine: string, claim: boolean): MaintainerOutcome {
  const previous = tx.meta().settings.maintainer;
  const verdict = maintainerVerdict(previous, machine, claim);
  if (!verdict.ok) throw refuse(verdict.holder, machine);
  if (verdict.record) tx.updateMeta((m) => ({ ...m, settings: { ...m.settings, maintainer: machine } }));
  return { machine, claimed: verdict.record, previous };
}

/** Outside a transaction (a preview): the same refusal, nothing written. */
export async function checkMaintenance(store: Store, env: OpsEnv, claim: boolean): Promise<void> {
  await store.codec();
  const machine = thisMachine(store, env);
  const verdict = maintainerVerdict(store.rereadMeta().settings.maintainer, machine, claim);
  if (!verdict.ok) throw refuse(verdict.holder, machine);
}

/** `memsync maintainer [--claim]`: who maintains this store; with claim, this machine from now on. */
export async function maintainerOp(store: Store, env: OpsEnv, claim: boolean): Promise<{ maintainer: string | null; machine: string; is_this_machine: boolean; claimed: boolean }> {
  await store.codec();
  const machine = thisMachine(store, env);
  if (!claim) {
    const holder = store.rereadMeta().settings.maintainer;
    return { maintainer: holder, machine, is_this_machine: holder === machine, claimed: false };
  }
  const out = await store.write((tx) => {
    const r = takeMaintenance(tx, machine, true);
    if (r.claimed) tx.note("maintainer", `maintainer: ${machine}${r.previous ? ` takes over from ${r.previous}` : ""}`);
    return r;
  }, []);
  return { maintainer: machine, machine, is_this_machine: true, claimed: out.claimed };
}
