import { QUERY_LIMITS } from "../../../ops/catalogue/limits.ts";
import type { ContextOutcome } from "../../../ops/project-context.ts";
import type { RecallOutcome } from "../../../ops/recall.ts";
import { call } from "../call.ts";
import { json } from "../format.ts";
import { type Flags, num, str, textArg, wordsOf } from "../options.ts";
import type { CommandResult } from "../result.ts";

// recall and context: the blocks a hook injects into an agent's context. The text output is the
// block itself (nothing at all when nothing matched); --json gives the structured result, with
// the block in its `text`. Defaults and project resolution are the catalogue's.

const budgetFlag = (flags: Flags) => num(flags, "budget", { ...QUERY_LIMITS.budget, int: true });
const limitFlag = (flags: Flags) => num(flags, "limit", { ...QUERY_LIMITS.blockLimit, int: true });

export async function recallCmd(words: string[], flags: Flags): Promise<CommandResult> {
  const query = await textArg(wordsOf(words, flags), "query");
  const out = await call<RecallOutcome>("recall", flags, { query, budget: budgetFlag(flags), limit: limitFlag(flags), project: str(flags, "project") });
  return { stdout: flags.json ? json(out) : out.text };
}

export async function contextCmd(flags: Flags): Promise<CommandResult> {
  const out = await call<ContextOutcome>("context", flags, { project: str(flags, "project"), budget: budgetFlag(flags), limit: limitFlag(flags) });
  return { stdout: flags.json ? json(out) : out.text };
}
