import { commitPending, type CommitOutcome } from "../sync/commit.ts";
import type { Store } from "../store/store.ts";
import type { Author } from "../sync/repo-init.ts";
import { type OpsEnv, originOf } from "./context.ts";
import { autoRepack } from "./repack.ts";

/** Who memsync's commits on this machine are by. */
export function commitAuthor(store: Store, env: OpsEnv): Author {
  const origin = originOf(store, env);
  return { name: env.user ?? "memsync", email: `memsync@${origin.machine ?? "unknown"}` };
}

/** Commit every pending change to the store's git history (no network). */
export async function commitStore(store: Store, env: OpsEnv): Promise<CommitOutcome> {
  const origin = originOf(store, env);
  const out = await commitPending(store, commitAuthor(store, env), origin.now);
  if (out.commits.length) await autoRepack(store, false);
  return out;
}
