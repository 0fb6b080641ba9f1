import { usageError } from "../../../core/errors.ts";
import { withStore } from "../../../ops/context.ts";
import { CONTEXT_DEFAULTS, projectContext, projectFor } from "../../../ops/project-context.ts";
import { RECALL_DEFAULTS, recall } from "../../../ops/recall.ts";
import { cwd } from "../../../runtime/host.ts";
import { json } from "../format.ts";
import { type Flags, num, opsEnv, str, textArg, wordsOf } from "../options.ts";
import type { CommandResult } from "../result.ts";

// recall and context: the blocks a hook injects into an agent's context. The text output is the
// block itself (nothing at all when nothing matched); --json gives the structured result, with
// the block in its `text`.

const budgetFlag = (flags: Flags, fallback: number) => num(flags, "budget", { min: 0, max: 1_000_000, int: true }) ?? fallback;
const limitFlag = (flags: Flags, fallback: number) => num(flags, "limit", { min: 1, max: 1000, int: true }) ?? fallback;

export async function recallCmd(words: string[], flags: Flags): Promise<CommandResult> {
  const query = await textArg(wordsOf(words, flags), "query");
  const budget = budgetFlag(flags, RECALL_DEFAULTS.budget);
  const limit = limitFlag(flags, RECALL_DEFAULTS.limit);
  const project = str(flags, "project");
  const out = await withStore(opsEnv(flags), (store) => recall(store, { query, budget, limit, project }));
  return { stdout: flags.json ? json(out) : out.text };
}

export async function contextCmd(flags: Flags): Promise<CommandResult> {
  const project = projectFor(str(flags, "project"), cwd());
  if (project === null) throw usageError("give the project: memsync context --project NAME");
  const budget = budgetFlag(flags, CONTEXT_DEFAULTS.budget);
  const limit = limitFlag(flags, CONTEXT_DEFAULTS.limit);
  const out = await withStore(opsEnv(flags), (store) => projectContext(store, { project, budget, limit }));
  return { stdout: flags.json ? json(out) : out.text };
}
