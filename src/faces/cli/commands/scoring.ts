import { usageError } from "../../../core/errors.ts";
import { isoTime } from "../../../core/time.ts";
import type { MemoryScore, ScoreOutcome } from "../../../ops/score.ts";
import type { SettingsOutcome } from "../../../ops/settings.ts";
import { call } from "../call.ts";
import { durationText, json, missingReport, scoreText } from "../format.ts";
import { type Flags, ids } from "../options.ts";
import type { CommandResult } from "../result.ts";

// score and settings: reading decay scores, reading and changing the shared settings. Not
// maintenance: both builds have them.

function scoreBlock(s: MemoryScore, now: number, model: string, threshold: number): string {
  const lines = [
    `${s.id}  score ${scoreText(s.score)}  (${model})`,
    `  uses ${s.use_count}   strength ${s.strength}   last used ${isoTime(s.last_used)} (${durationText(Math.max(0, now - s.last_used))} ago)   status ${s.status}`,
  ];
  if (s.forget_in === null) lines.push(`  never falls under the forget threshold ${threshold}`);
  else if (s.forget_in === 0) lines.push(`  under the forget threshold ${threshold}: the next gc takes it${s.status === "active" ? "" : " if it is active"}`);
  else lines.push(`  falls under the forget threshold ${threshold} in ${durationText(s.forget_in)} (${isoTime(s.forget_at!)})`);
  const review = s.review_priority > 0 ? `review priority ${s.review_priority.toFixed(2)} (in the danger zone)` : "review priority 0";
  const promo = s.promotion.eligible ? `promotion: yes (${s.promotion.reason})` : `promotion: no (${s.promotion.reason})`;
  lines.push(`  ${review}   ${promo}`);
  return `${lines.join("\n")}\n`;
}

export async function score(rawIds: string[], flags: Flags): Promise<CommandResult> {
  const out = await call<ScoreOutcome>("score", flags, { ids: ids(rawIds) });
  const stdout = flags.json
    ? json(out)
    : out.scores.map((s) => scoreBlock(s, out.now, out.settings.decay.model, out.settings.forget_threshold)).join("\n");
  return { stdout, ...missingReport(out) };
}

export async function settings(key: string | undefined, value: string | undefined, rest: unknown[], flags: Flags): Promise<CommandResult> {
  if (rest.length) throw usageError("settings takes at most a key and a value");
  const out = await call<SettingsOutcome>("settings", flags, { key, value: value === undefined ? undefined : String(value) }, { flagOf: { "maintainer claim": "memsync maintainer --claim" } });
  if (flags.json) return { stdout: json(key !== undefined && value === undefined ? { key, value: out.settings[key] } : out) };
  if (value !== undefined) {
    const c = out.changed;
    return { stdout: c ? `${c.key}: ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}\n` : `${key} is already ${JSON.stringify(out.settings[key!])}\n` };
  }
  if (key !== undefined) return { stdout: `${JSON.stringify(out.settings[key])}\n` };
  const width = Math.max(...Object.keys(out.settings).map((k) => k.length));
  const lines = Object.entries(out.settings).map(([k, v]) => `${k.padEnd(width)}  ${JSON.stringify(v)}`);
  lines.push(`(half-life of the chosen decay model: ${out.half_life_days.toFixed(2)} days; change one with: memsync settings KEY VALUE)`);
  return { stdout: `${lines.join("\n")}\n` };
}
