import * as z from "zod/mini";
import { withStore } from "../context.ts";
import { gcOp } from "../gc.ts";
import { resolveIds } from "../id-lookup.ts";
import { promoteOp } from "../promote.ts";
import type { OpImpl } from "./index.ts";
import { IdText, int, MAX_IDS, parseIds } from "./schema.ts";

// Maintenance: main build only (catalogue/index.ts leaves this module out of the edge build).

const def = <I, O>(input: OpImpl<I, O>["input"], run: OpImpl<I, O>["run"]): OpImpl<I, O> => ({ input, run });

export const gc = def(
  z.object({
    /** Archive instead of deleting. */
    archive: z._default(z.boolean(), false),
    dry_run: z._default(z.boolean(), false),
    /** At most this many, the lowest scores first (0: all). */
    limit: z._default(int(0, 100_000_000), 0),
    /** Make this machine the store's maintainer. */
    claim_maintainer: z._default(z.boolean(), false),
  }),
  (call, input) =>
    withStore(call.env, (store) => gcOp(store, call.env, { archive: input.archive, dryRun: input.dry_run, limit: input.limit ? input.limit : null, claim: input.claim_maintainer })),
);

export const promote = def(
  z.object({
    ids: z._default(z.array(IdText).check(z.maxLength(MAX_IDS)), []),
    auto: z._default(z.boolean(), false),
    dry_run: z._default(z.boolean(), false),
    /** The vault folder on this machine (never a synced setting). */
    vault: z._default(z.nullable(z.string()), null),
    claim_maintainer: z._default(z.boolean(), false),
  }),
  async (call, input) => {
    parseIds(input.ids);
    return withStore(call.env, async (store) =>
      promoteOp(store, call.env, { ids: await resolveIds(store, input.ids), auto: input.auto, dryRun: input.dry_run, vault: input.vault, claim: input.claim_maintainer }),
    );
  },
);
