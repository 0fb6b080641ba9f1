import { isMemsyncError, MemsyncError, withOperation } from "../../core/errors.ts";
import { runDirect } from "../../ops/catalogue/direct.ts";
import type { ProgressListener } from "../../sync/progress.ts";
import { cwd } from "../../runtime/host.ts";
import { type Flags, opsEnv } from "./options.ts";

// How a command runs an operation: through the catalogue (ops/catalogue), with plain values from
// its flags, this process's environment and working directory. Commands never reach store/ or
// sync/ themselves. An operation's error names its input fields (data.fields); here they become
// the command's flags.

export interface CallOptions {
  progress?: ProgressListener;
  /** The store folder, when the command names one itself (init DIR). */
  root?: string;
  /** How the command says an input field, when not as --field-name (ids: "IDs"). */
  flagOf?: Record<string, string>;
}

export async function call<O = any>(name: string, flags: Flags, input: Record<string, unknown>, opts: CallOptions = {}): Promise<O> {
  try {
    const op = { env: opsEnv(flags, opts.root), cwd: cwd(), ...(opts.progress ? { progress: opts.progress } : {}) };
    const given = dropUndefined(input);
    // a plain get or save skips the catalogue (ops/catalogue/direct.ts)
    const direct = runDirect<O>(name, op, given);
    return await (direct ?? (await import("../../ops/catalogue/run.ts")).runOp<O>(name, op, given));
  } catch (e) {
    throw inFlags(withOperation(e, name), opts.flagOf ?? {});
  }
}

/** An input without the keys no flag gave (the schema fills in their defaults). */
function dropUndefined(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The error with the input fields it names said as this command's flags (claim_maintainer: --claim-maintainer). */
export function inFlags(e: unknown, flagOf: Record<string, string>): unknown {
  const fields = isMemsyncError(e) ? e.data.fields : undefined;
  if (!isMemsyncError(e) || !Array.isArray(fields)) return e;
  let message = e.message;
  for (const field of fields) {
    if (typeof field !== "string") continue;
    const flag = flagOf[field] ?? `--${field.replace(/_/g, "-")}`;
    message = message.replace(new RegExp(`(?<![\\w-])${escape(field)}(?![\\w-])`, "g"), flag);
  }
  return new MemsyncError(e.code, message, e.data);
}
