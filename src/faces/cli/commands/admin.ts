import { corrupt, unavailable, usageError } from "../../../core/errors.ts";
import { isoTime } from "../../../core/time.ts";
import { withStore } from "../../../ops/context.ts";
import type { DoctorOutcome } from "../../../ops/doctor.ts";
import type { RepackOutcome } from "../../../sync/repack.ts";
import type { InitOutcome } from "../../../ops/init.ts";
import type { ReindexOutcome } from "../../../ops/reindex.ts";
import type { StatusOutcome } from "../../../ops/status.ts";
import type { CommitOutcome } from "../../../sync/commit.ts";
import type { ProgressListener } from "../../../sync/progress.ts";
import { call } from "../call.ts";
import { json } from "../format.ts";
import { type Flags, opsEnv, storeRoot } from "../options.ts";
import type { CommandResult } from "../result.ts";
import path from "node:path";
import { cwd } from "../../../runtime/host.ts";

// init, status, reindex, doctor, commit, sync (through the catalogue); clone and remote set (this
// machine's set-up, not catalogue operations).

export async function init(dir: string | undefined, flags: Flags): Promise<CommandResult> {
  const root = dir ? path.resolve(cwd(), dir) : storeRoot(flags);
  const out = await call<InitOutcome>("init", flags, { git: flags.git !== false }, { root });
  if (flags.json) return { stdout: json(out) };
  const what = out.already_initialized ? "already a memsync store" : "initialized a memsync store";
  return { stdout: `${what} at ${out.root}${out.git?.commit ? ` (commit ${out.git.commit.slice(0, 8)})` : ""}\n` };
}

export async function status(flags: Flags): Promise<CommandResult> {
  const out = await call<StatusOutcome>("status", flags, {});
  const exitCode = out.health === "unavailable" ? unavailable("").exitCode : 0;
  if (flags.json) return { stdout: json(out), exitCode };
  const lines = [`store: ${out.store}`, `health: ${out.health}${out.reasons.length ? ` (${out.reasons.join("; ")})` : ""}`];
  if (out.read_only) lines.push("access: read-only (a read-only mount or another user's files): reads work, writes are refused (exit 10)");
  if (out.memories) {
    const by = (r: Record<string, number>) => Object.entries(r).map(([k, n]) => `${k} ${n}`).join(", ") || "none";
    lines.push(`memories: ${out.memories.total} (${by(out.memories.by_status)}); by type: ${by(out.memories.by_type)}`);
  }
  if (out.content_conflicts) lines.push(`content conflicts: ${out.content_conflicts} memor${out.content_conflicts === 1 ? "y" : "ies"} with texts from two machines (memsync conflicts; settle with memsync resolve)`);
  if (out.relations) lines.push(`relations: ${out.relations.total}${out.relations.dangling.length ? ` (${out.relations.dangling.length} dangling)` : ""}`);
  if (out.layout) {
    lines.push(`layout: ${out.layout.setting}, shard threshold ${out.layout.shard_threshold}; new records ${out.layout.new_records_sharded ? "go to shard folders" : "are flat"}`);
  }
  if (out.meta) lines.push(`created: ${isoTime(out.meta.created_at)}, storage version ${out.meta.storage_version}`);
  if (out.uncommitted_changes) lines.push(`uncommitted changes: ${out.uncommitted_changes} (memsync commit)`);
  if (out.unpushed_commits) lines.push(`commits waiting to be pushed: ${out.unpushed_commits} (memsync sync)`);
  for (const p of out.problems) lines.push(`  problem: ${p.path}: ${p.problem}`);
  for (const r of out.relations?.dangling ?? []) lines.push(`  dangling relation: ${r.id} (${r.from_id} -> ${r.to_id})`);
  if (out.temp_files.length) {
    const shown = out.temp_files.slice(0, 5).join(", ") + (out.temp_files.length > 5 ? ", ..." : "");
    lines.push(`temp files left by interrupted writes: ${out.temp_files.length} (the files they were meant to replace are intact; the next write removes those over 5 minutes old): ${shown}`);
  }
  return { stdout: `${lines.join("\n")}\n`, stderr: exitCode ? `memsync: ${out.reasons[0] ?? "store unavailable"}\n` : "", exitCode };
}

export async function reindexCmd(flags: Flags): Promise<CommandResult> {
  const out = await call<ReindexOutcome>("reindex", flags, {});
  return { stdout: flags.json ? json(out) : `reindexed ${out.memories} memories and ${out.relations} relations in ${out.millis} ms${out.problems ? `; ${out.problems} problem file(s), see memsync status` : ""}\n` };
}

export async function repackCmd(flags: Flags): Promise<CommandResult> {
  const out = await call<RepackOutcome>("repack", flags, { all: flags.all === true });
  if (flags.json) return { stdout: json(out) };
  if (!out.pack) return { stdout: "nothing to repack\n" };
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  return { stdout: `repacked ${out.objects} objects into ${out.pack} (${out.loose_removed} loose, ${out.packs_replaced} packs replaced; ${mib(out.bytes_before)} -> ${mib(out.bytes_after)})\n` };
}

export async function doctor(flags: Flags): Promise<CommandResult> {
  const out = await call<DoctorOutcome>("doctor", flags, { repair: flags.repair === true });
  // objects that cannot be restored from anywhere: corrupt (7); anything else still wrong: unavailable (6)
  const exitCode = out.ok ? 0 : out.lost.length ? corrupt("").exitCode : unavailable("").exitCode;
  if (flags.json) return { stdout: json(out), exitCode };
  const lines = out.checks.map((c) => `${c.ok ? "ok  " : "FAIL"}  ${c.check}: ${c.detail}`);
  for (const [side, r] of Object.entries(out.repair ?? {})) {
    if (!r) continue;
    const what = [`${r.restored} object${r.restored === 1 ? "" : "s"} restored from ${r.source}`];
    if (r.packs_moved.length) what.push(`unusable pack files moved to .git/memsync-broken-packs: ${r.packs_moved.join(", ")}`);
    if (r.damaged_moved.length) what.push(`${r.damaged_moved.length} damaged object file(s) moved to .git/memsync-damaged-objects`);
    if (r.leftovers_removed) what.push(`${r.leftovers_removed} temporary file(s) of interrupted transfers removed`);
    if (r.tracking_removed) what.push("the remote-tracking ref named commits the remote no longer has: removed (the next sync fetches it again)");
    lines.push(`repair (${side === "local" ? "this store" : "the remote"}): ${what.join("; ")}`);
  }
  return { stdout: `${lines.join("\n")}\n`, stderr: out.ok ? "" : `memsync: ${out.checks.find((c) => !c.ok)?.detail}\n`, exitCode };
}

export async function commitCmd(flags: Flags): Promise<CommandResult> {
  const out = await call<CommitOutcome>("commit", flags, {});
  const bad = skippedReport(out.skipped);
  if (flags.json) return { stdout: json(out), ...bad };
  const lines = out.commits.length === 0 ? ["nothing to commit"] : out.commits.map((c) => `${c.oid.slice(0, 8)}  ${c.message}`);
  for (const s of out.skipped) lines.push(`not committed (corrupt): ${s.path}: ${s.problem}`);
  return { stdout: `${lines.join("\n")}\n`, ...bad };
}

/**
 * Record files a commit left out because they do not parse or validate: everything else was
 * done, and the exit code (7, corrupt) tells scripts so.
 */
function skippedReport(skipped: readonly { path: string; problem: string }[]): { stderr?: string; exitCode?: number } {
  if (skipped.length === 0) return {};
  const names = skipped.map((s) => s.path);
  return {
    stderr: `memsync: ${names.length} corrupt record file${names.length === 1 ? "" : "s"} not committed (history keeps the last good version; fix or remove, or restore with git checkout -- FILE): ${names.join(", ")}\n`,
    exitCode: corrupt("").exitCode,
  };
}

export async function remoteCmd(action: string, url: string | undefined, flags: Flags): Promise<CommandResult> {
  if (action !== "set" || !url) throw usageError("usage: memsync remote set <url or path to a bare repository> [--insecure-http]");
  const { setRemoteOp } = await import("../../../ops/sync.ts");
  const remote = await withStore(opsEnv(flags), (store) => setRemoteOp(store, url, cwd(), { insecureHttp: flags.insecureHttp === true }));
  return { stdout: flags.json ? json(remote) : `remote: ${remote.kind === "http" ? remote.url : remote.gitdir}\n` };
}

/** A progress bar for the sync layer's reports, while fn runs (see progress-bar.ts). */
async function withProgress<T>(flags: Flags, fn: (progress: ProgressListener) => Promise<T>): Promise<T> {
  const { progressBar } = await import("../progress-bar.ts");
  const bar = await progressBar(flags.json === true);
  try {
    return await fn((phase, done, total) => bar.update(phase, done, total));
  } finally {
    bar.stop();
  }
}

export async function exchangeCmd(what: "pull" | "push" | "sync", flags: Flags): Promise<CommandResult> {
  type Sync = Awaited<ReturnType<typeof import("../../../ops/sync.ts").syncOp>>;
  type Out = { commit: Sync["commit"]; pull?: Sync["pull"]; push?: Sync["push"]; repaired_objects?: number; joined?: true };
  const out = await withProgress(flags, (progress) => call<Out>("sync", flags, { direction: what }, { progress }));
  const bad = skippedReport(out.commit.skipped);
  if (flags.json) return { stdout: json(out), ...bad };
  const lines: string[] = [];
  if (out.joined) lines.push(`joined a ${what === "sync" ? "" : "sync or "}${what} that began after this one was asked and succeeded meanwhile; what it did:`);
  if (out.repaired_objects) lines.push(`repaired: ${out.repaired_objects} missing git object${out.repaired_objects === 1 ? "" : "s"} restored from the other side (see memsync doctor)`);
  if (out.commit.commits.length) lines.push(`committed ${out.commit.commits.length}`);
  for (const s of out.commit.skipped) lines.push(`not committed (corrupt): ${s.path}: ${s.problem}`);
  const kept = [...(out.pull?.skipped ?? []), ...(out.push?.pulled.flatMap((p) => p.skipped) ?? [])];
  if (kept.length) lines.push(`left as they are (corrupt, not updated from the remote): ${[...new Set(kept)].join(", ")}`);
  const p = out.pull;
  if (p) lines.push(`pull: ${p.mode}${p.mode === "merge" || p.mode === "fast-forward" ? ` (${p.memories_added} added, ${p.memories_changed} changed, ${p.memories_removed} removed, ${p.conflicts_resolved} merged)` : ""}`);
  if (p?.text_conflicts.length) lines.push(`files merged as text with conflict markers: ${p.text_conflicts.join(", ")}`);
  const local = [...(p?.kept_local ?? []), ...(out.push?.pulled.flatMap((q) => q.kept_local) ?? [])];
  if (local.length) lines.push(`kept local (the remote had brought back, removed from the shared files again): ${[...new Set(local)].join(", ")}`);
  const pushed = out.push;
  if (pushed) lines.push(pushed.pushed ? `push: ${pushed.commits_out} commit${pushed.commits_out === 1 ? "" : "s"} (${pushed.attempts} attempt${pushed.attempts === 1 ? "" : "s"})` : "push: up to date");
  return { stdout: `${lines.join("\n")}\n`, ...bad };
}

export async function cloneCmd(url: string, dir: string | undefined, flags: Flags): Promise<CommandResult> {
  const { cloneOp } = await import("../../../ops/sync.ts");
  const root = dir ? path.resolve(cwd(), dir) : storeRoot(flags);
  const out = await withProgress(flags, (progress) => cloneOp(opsEnv(flags, root), url, cwd(), { insecureHttp: flags.insecureHttp === true }, progress));
  if (flags.json) return { stdout: json(out) };
  return { stdout: out.store_created ? `cloned an empty remote: new store at ${out.root}; sync fills the remote\n` : `cloned ${out.files} files into ${out.root}\n` };
}
