import { ALL_CHECKS, CHECK_TITLES } from "./checks.ts";
import { type ChaosResult, KILLABLE, MAINTENANCE, type OpKind } from "./harness.ts";

// The report of a chaos run as markdown lines (for docs/benchmarks.md): what was acknowledged,
// what was lost (must be 0), kills and recoveries, each check, and every failure in detail.

const n = (x: number) => x.toLocaleString("en-US");

export function reportLines(r: ChaosResult): string[] {
  const o = r.options;
  const chaos = r.records.filter((x) => x.phase === "chaos");
  const kinds: OpKind[] = ["save", "touch", "update", "relate", "archive", "delete", "sync", "commit", "consolidate", "split", "gc"];
  const acked = (k: OpKind) => chaos.filter((x) => x.kind === k && x.code === 0).length;
  const burst = chaos.filter((x) => x.burst && x.code === 0).length;
  const kills = chaos.filter((x) => x.killed);
  const refused = chaos.filter((x) => x.code !== 0 && !x.killed);
  const codes = new Map<string, number>();
  for (const x of refused) codes.set(`${x.kind} exit ${x.code ?? x.signal}`, (codes.get(`${x.kind} exit ${x.code ?? x.signal}`) ?? 0) + 1);
  const lost = r.failures.reduce((s, f) => s + (f.lost ?? 0), 0);
  const failedChecks = new Set(r.failures.map((f) => f.check));
  const lines = [
    `### Chaos run, seed ${o.seed}: ${r.failures.length === 0 ? "PASS" : "FAIL"}`,
    "",
    ...(o.env && Object.keys(o.env).length ? [`- environment of every memsync process: ${Object.entries(o.env).map(([k, v]) => `${k}=${v}`).join(", ")}`] : []),
    `- clones: ${o.localClones} over a local path + ${o.httpClones} over smart HTTP (git http-backend), one bare remote; fault injection (MEMSYNC_FAULT): ${r.faultInjection ? "yes" : "not supported by this binary"}`,
    `- operations: ${n(chaos.length)} run, ${n(chaos.filter((x) => x.code === 0).length)} acknowledged: ${kinds.map((k) => `${k} ${n(acked(k))}`).join(", ")} (touches in same-instant bursts: ${n(burst)})`,
    `- not acknowledged (exit non-zero, not killed): ${n(refused.length)}${codes.size ? ` (${[...codes].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}: ${v}`).join(", ")})` : ""}`,
    `- kills (SIGKILL): ${n(kills.length)} (${[...KILLABLE].map((k) => `${k} ${kills.filter((x) => x.kind === k).length}`).join(", ")}; by fault injection ${kills.filter((x) => x.kill?.how === "fault").length}, at a random delay ${kills.filter((x) => x.kill?.how === "timer").length})`,
    ...(o.maintenance ? [maintenanceLine(r)] : []),
    `- recoveries (a killed clone's next sync succeeded): ${n(r.recoveries)} of ${n(kills.length)}`,
    `- remote checked after killed pushes (git rev-list --objects): ${r.remoteChecks.runs} times, ${r.remoteChecks.failures.length} broken`,
    `- final syncs: ${r.finalRounds} rounds of every clone${r.converged ? ", the last changed nothing" : ", NOT settled"}`,
    `- lost: ${n(lost)}${lost ? ` (${[...new Set(r.failures.filter((f) => f.lost).map((f) => f.check))].map((c) => `${c}: ${r.failures.filter((f) => f.check === c).reduce((s, f) => s + (f.lost ?? 0), 0)}`).join(", ")})` : ""}`,
    `- checks: ${ALL_CHECKS.map((c) => `${CHECK_TITLES[c]} ${failedChecks.has(c) ? "FAIL" : "ok"}`).join("; ")}`,
    `- duration: ${(r.durationMs / 1000).toFixed(1)} s (chaos ${(r.chaosMs / 1000).toFixed(1)} s)`,
  ];
  for (const s of r.serve ?? []) {
    const refused = Object.entries(s.refused).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}: ${v}`).join(", ");
    lines.push(
      `- serve clone ${s.clone} (\`memsync serve\` on its tree, written over its API beside the CLI): ${n(s.httpOps)} HTTP writes and syncs, ${n(s.acknowledged)} acknowledged (2xx: ${Object.entries(s.byKind).map(([k, v]) => `${k} ${n(v)}`).join(", ")}); ${n(s.unknown)} answers lost to a kill or stop (${Object.entries(s.lostTo).map(([k, v]) => `${k} ${v}`).join(", ") || "none"}); refused ${refused || "none"}; server SIGKILLed ${s.crashes} times, SIGTERMed ${s.stops}, started ${s.starts}; ${n(s.agreementChecks)} reads compared with the files during the run, ${n(s.finalCompared)} memories after the final syncs`,
    );
  }
  for (const s of r.serve ?? []) {
    const a = s.stopAnswers;
    if (a) lines.push(`  - ${s.clone}: at its clean stops: ${a.stopping503} answered 503 "stopping", ${a.resetSentBefore} reset though sent before the stop began, ${a.resetSentAfter} reset sent after it, ${a.connectionRefused} connections refused`);
    for (const x of s.lostToStop) lines.push(`  - ${s.clone}: lost to a clean stop: ${x}`);
  }
  if (r.notes.length) lines.push("", "Notes:", "", ...r.notes.map((x) => `- ${x}`));
  if (r.failures.length) {
    lines.push("", `Failures (${r.failures.length}; repeat with \`scripts/chaos --seed ${o.seed} --clones ${o.localClones} --http ${o.httpClones}${o.serveClones ? ` --serve-clones ${o.serveClones}` : ""} --ops ${o.ops} --kills ${o.kills}${Object.entries(o.env ?? {}).map(([k, v]) => ` --env ${k}=${v}`).join("")}\`; files: ${r.dir}):`, "");
    // broken machinery first (what follows often stems from it), then the losses
    const order = ["final sync", "fsck", "remote after kill", "status", "hung", "identical", "targets"];
    const rank = (c: string) => (order.includes(c) ? order.indexOf(c) : order.length);
    const byCheck = new Map<string, string[]>();
    for (const f of [...r.failures].sort((a, b) => rank(a.check) - rank(b.check))) byCheck.set(f.check, [...(byCheck.get(f.check) ?? []), f.message]);
    for (const [check, msgs] of byCheck) {
      lines.push(`- ${check}: ${msgs.length}`);
      for (const m of msgs.slice(0, 12)) lines.push(`  - ${m}`);
      if (msgs.length > 12) lines.push(`  - ... ${msgs.length - 12} more`);
    }
  }
  return lines;
}

/** What the main machine's maintenance did: run, acknowledged, killed, memories removed and made. */
function maintenanceLine(r: ChaosResult): string {
  const m = r.records.filter((x) => x.phase === "chaos" && MAINTENANCE.has(x.kind));
  const part = (label: string, xs: typeof m) =>
    `${label} ${xs.length} run / ${xs.filter((x) => x.code === 0).length} acknowledged / ${xs.filter((x) => x.killed).length} killed (${xs.reduce((s, x) => s + (x.removed?.length ?? 0), 0)} memories ${label.startsWith("gc --archive") ? "archived" : "removed"}, ${xs.reduce((s, x) => s + (x.made?.length ?? 0), 0)} made)`;
  const saves = r.records.filter((x) => x.phase === "chaos" && x.kind === "save" && x.code === 0);
  return `- maintenance on ${r.clones[0]?.name ?? "?"} (the main machine): ${part("consolidate --apply", m.filter((x) => x.kind === "consolidate"))}; ${part("split", m.filter((x) => x.kind === "split"))}; ${part("gc", m.filter((x) => x.kind === "gc" && !x.archive && !x.args.includes("--archive")))}; ${part("gc --archive", m.filter((x) => x.kind === "gc" && x.args.includes("--archive")))}; faded saves acknowledged ${saves.filter((x) => x.faded).length}, label edits acknowledged ${r.records.filter((x) => x.phase === "chaos" && x.tag && x.code === 0).length}`;
}
