import { usageError } from "../../../core/errors.ts";
import { short } from "../../../core/history.ts";
import type { ClusterView, ConsolidateMode, ConsolidateOutcome } from "../../../ops/consolidate.ts";
import { call } from "../call.ts";
import { json, oneLinePreview } from "../format.ts";
import { type Flags, num, texts } from "../options.ts";
import type { CommandResult } from "../result.ts";

// memsync consolidate (maintenance, main build only): preview clusters of near-duplicates,
// --apply merges them, --link relates them both ways instead.

function clusterBlock(c: ClusterView): string {
  const lines = [`cluster ${c.id}  cohesion ${c.cohesion}  ${c.members.length} memories`];
  for (const m of c.members) lines.push(`  ${m.id}  uses ${m.use_count}  strength ${m.strength}  ${oneLinePreview(m.content, 80)}`);
  if (c.merged) {
    const labels = [c.merged.tags.length ? `tags ${c.merged.tags.join(", ")}` : "", c.merged.entities.length ? `entities ${c.merged.entities.join(", ")}` : ""].filter(Boolean);
    lines.push(`  -> one ${c.merged.type}: strength ${c.merged.strength}, uses ${c.merged.use_count}${labels.length ? `, ${labels.join("; ")}` : ""}`);
    lines.push(`     ${oneLinePreview(c.merged.content, 100)}`);
  } else {
    lines.push(`  -> cannot be merged: ${c.problem}`);
  }
  return lines.join("\n");
}

function text(out: ConsolidateOutcome): string {
  const head = `${out.clusters.length} cluster${out.clusters.length === 1 ? "" : "s"} of near-duplicates among ${out.memories} active memories (threshold ${out.threshold})`;
  if (out.mode === "preview") {
    if (out.clusters.length === 0) return `${head}\n`;
    const hint = "merge them: memsync consolidate --apply [--cluster ID ...]   relate them instead: --link";
    return `${head}\n\n${out.clusters.map(clusterBlock).join("\n\n")}\n\n${hint}\n`;
  }
  if (out.applied.length === 0) return `${head}: nothing to ${out.mode === "apply" ? "merge" : "link"}\n`;
  const lines = out.applied.map((a) =>
    out.mode === "apply"
      ? `merged ${a.sources.length} memories into ${a.into}  (cluster ${a.cluster}, cohesion ${a.cohesion}; ${a.relations_moved.length} relation(s) moved, ${a.relations_removed.length} removed)`
      : `linked ${a.sources.length} memories of cluster ${a.cluster}: ${a.relations_created.length} related relation(s)`,
  );
  for (const a of out.applied) if (out.mode === "apply") lines.push(`  from ${a.sources.map(short).join(", ")}`);
  if (out.maintainer?.claimed) lines.push(`this machine (${out.maintainer.machine}) now maintains the store`);
  return `${lines.join("\n")}\n`;
}

export async function consolidateCmd(flags: Flags): Promise<CommandResult> {
  if (flags.apply && flags.link) throw usageError("give --apply (merge) or --link (relate), not both");
  const mode: ConsolidateMode = flags.apply ? "apply" : flags.link ? "link" : "preview";
  const clusters = texts(flags, "cluster").flatMap((c) => c.split(","));
  const threshold = num(flags, "threshold", { min: 0.05, max: 1 });
  const out = await call<ConsolidateOutcome>("consolidate", flags, { mode, clusters, threshold, claim_maintainer: flags.claimMaintainer === true }, { flagOf: { "mode link": "--link" } });
  return { stdout: flags.json ? json(out) : text(out) };
}
