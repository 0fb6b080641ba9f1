import path from "node:path";
import { isoTime } from "../../../core/time.ts";
import type { GcOutcome } from "../../../ops/gc.ts";
import type { MaintainerOutcome } from "../../../ops/maintainer.ts";
import type { PromoteOutcome } from "../../../ops/promote.ts";
import { call } from "../call.ts";
import { json, scoreText } from "../format.ts";
import { type Flags, ids, num, str } from "../options.ts";
import type { CommandResult } from "../result.ts";

// Maintenance by decay (main build only): gc prunes what has faded, promote moves what has been
// reinforced to the long-term vault.

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function claimNote(m: MaintainerOutcome | null): string {
  if (!m?.claimed) return "";
  return m.previous ? `memsync: this machine (${m.machine}) takes maintenance over from ${m.previous}\n` : `memsync: this machine (${m.machine}) now maintains the store\n`;
}

function gcText(out: GcOutcome): string {
  const rule = `score under ${out.forget_threshold}, ${out.model}`;
  const lines: string[] = [];
  const verb = out.action === "archive" ? "archive" : "prune";
  if (out.dry_run) {
    const limited = out.candidates.length < out.under_threshold ? ` (${out.under_threshold} under the threshold, --limit ${out.candidates.length})` : "";
    lines.push(`would ${verb} ${plural(out.candidates.length, "memory", "memories")} of ${out.scanned} active (${rule})${limited}; nothing changed`);
    for (const c of out.candidates) lines.push(`  ${c.id}  ${scoreText(c.score)}  uses ${c.use_count}  last used ${isoTime(c.last_used).slice(0, 10)}  ${c.preview}`);
  } else {
    const what = out.action === "archive" ? "archived" : "pruned";
    const rels = out.relations_removed.length ? ` and ${plural(out.relations_removed.length, "relation", "relations")}` : "";
    lines.push(`${what} ${plural(out.removed.length, "memory", "memories")}${rels} of ${out.scanned} active (${rule})`);
    if (out.under_threshold > out.candidates.length) lines.push(`${out.under_threshold - out.candidates.length} more under the threshold are left for the next run (--limit)`);
  }
  for (const s of out.skipped) lines.push(`  kept ${s.id}: ${s.reason}`);
  return `${lines.join("\n")}\n`;
}

export async function gc(flags: Flags): Promise<CommandResult> {
  const limit = num(flags, "limit", { min: 0, max: 100_000_000, int: true });
  const out = await call<GcOutcome>("gc", flags, { archive: flags.archive === true, dry_run: flags.dryRun === true, limit, claim_maintainer: flags.claimMaintainer === true });
  return { stdout: flags.json ? json(out) : gcText(out), stderr: claimNote(out.maintainer) };
}

function promoteText(out: PromoteOutcome): string {
  const lines: string[] = [];
  if (out.dry_run) {
    lines.push(`would promote ${plural(out.promoted.length, "memory", "memories")}${out.vault ? ` into ${out.vault}` : ""}; nothing changed`);
  } else {
    lines.push(`promoted ${plural(out.promoted.length, "memory", "memories")} into ${out.vault}`);
  }
  for (const p of out.promoted) lines.push(`  ${p.id}  ${scoreText(p.score)}  ${p.reason.padEnd(10)}  ${out.dry_run ? p.note : path.basename(p.note)}${p.reused_note ? " (its note from an earlier run)" : ""}`);
  for (const s of out.skipped) lines.push(`  skipped ${s.id}: ${s.reason}`);
  return `${lines.join("\n")}\n`;
}

export async function promote(rawIds: string[], flags: Flags): Promise<CommandResult> {
  // --vault DIR (relative to here), else MEMSYNC_VAULT (the ops environment, runtime/ops-env.ts)
  const wanted = rawIds.length ? ids(rawIds) : [];
  const out = await call<PromoteOutcome>("promote", flags, { ids: wanted, auto: flags.auto === true, dry_run: flags.dryRun === true, vault: str(flags, "vault") ?? null, claim_maintainer: flags.claimMaintainer === true }, {
    flagOf: { ids: "IDs", vault: "--vault DIR or set MEMSYNC_VAULT" },
  });
  return { stdout: flags.json ? json(out) : promoteText(out), stderr: claimNote(out.maintainer) };
}
