import { usageError } from "../core/errors.ts";
import { env } from "./host.ts";

// Millisecond settings read from the environment (MEMSYNC_STOP_GRACE_MS, the sync lock's wait, the
// push's retry budget): unset or empty gives the default; anything but a whole number of
// milliseconds is refused (exit 2, before the command changes anything), never read as the default:
// a mistyped knob that silently meant "default" made a test or a server behave other than asked.

/** The whole number of milliseconds in `name`, else `dflt` when it is unset or empty; a usage error otherwise. */
export function msKnob(name: string, dflt: number): number {
  const raw = env(name);
  if (raw === undefined || raw.trim() === "") return dflt;
  const v = Number(raw);
  if (!Number.isSafeInteger(v) || v < 0 || !/^\s*\d+\s*$/.test(raw)) throw usageError(`${name} takes a whole number of milliseconds, not ${JSON.stringify(raw)}`);
  return v;
}
