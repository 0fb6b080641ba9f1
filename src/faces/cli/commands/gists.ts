import { GIST_LEVELS } from "../../../core/gist.ts";
import { firstWords, short } from "../../../core/history.ts";
import type { BackfillOutcome } from "../../../ops/backfill-gists.ts";
import { call } from "../call.ts";
import { json } from "../format.ts";
import { type Flags, oneOf } from "../options.ts";
import { progressBar } from "../progress-bar.ts";
import type { CommandResult } from "../result.ts";

// backfill-gists: gists for memories that have none, in one transaction (one commit), with a
// progress bar on a terminal.

export async function backfillGistsCmd(flags: Flags): Promise<CommandResult> {
  const input = { level: oneOf(flags, "level", GIST_LEVELS), dry_run: Boolean(flags.dryRun), force: Boolean(flags.force) };
  const bar = await progressBar(flags.json === true);
  let out: BackfillOutcome;
  try {
    out = await call<BackfillOutcome>("backfill-gists", flags, input, { progress: (phase, done, total) => bar.update(phase, done, total) });
  } finally {
    bar.stop();
  }
  if (flags.json) return { stdout: json(out) };
  return { stdout: `${report(out).join("\n")}\n` };
}

function report(out: BackfillOutcome): string[] {
  const n = out.changed.length;
  const lines: string[] = [];
  const before = out.changed.reduce((a, c) => a + c.content_chars, 0);
  const after = out.changed.reduce((a, c) => a + c.gist_chars, 0);
  const saved = before > 0 ? Math.round((1 - after / before) * 100) : 0;
  const verb = out.dry_run ? "would set" : "set";
  lines.push(`${verb} ${n} gist${n === 1 ? "" : "s"} (${out.level}) of ${out.examined} memories${n ? `: ${before} -> ${after} characters (-${saved}%)` : ""}`);
  if (out.dry_run) {
    for (const c of out.changed) {
      const pct = Math.round((1 - c.gist_chars / c.content_chars) * 100);
      lines.push(`  ${short(c.id)}  ${String(c.content_chars).padStart(5)} -> ${String(c.gist_chars).padStart(5)} chars  -${String(pct).padStart(2)}%  ${firstWords(c.gist, 60)}`);
    }
  }
  const s = out.skipped;
  const skipped = [
    s.has_gist && `${s.has_gist} already had one (--force makes them again)`,
    s.too_short && `${s.too_short} under 30 words`,
    s.not_shorter && `${s.not_shorter} not clearly shorter`,
    s.unchanged && `${s.unchanged} unchanged`,
  ].filter(Boolean);
  if (skipped.length) lines.push(`skipped: ${skipped.join(", ")}`);
  return lines;
}
