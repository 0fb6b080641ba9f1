import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Clone, OpRecord } from "./harness.ts";

// The checks after a chaos run, once every clone has synced until nothing changes. Each compares
// what the log says was acknowledged (exit 0) with the files on every clone:
//  1. use_count of a memory no delete ever named = its acknowledged touches, exactly;
//  2. every acknowledged content (save, update --content) is the file's content or one of its
//     content_conflicts, unless a later edit or delete that could have seen it replaced it;
//  3. a memory whose delete was acknowledged is absent, unless a use or edit on another clone
//     happened that the deleting clone had provably not seen (the rule: a delete loses to a
//     concurrent use; a killed delete may or may not have happened, so it is not checked);
//  4. every acknowledged save (memory), relate (relation) and archive (status) is present;
//  5. all clones byte-identical in memories/, relations/, .meta.json, one HEAD = the remote's,
//     working trees clean against it;
//  6. `git fsck --strict` clean on every clone and on the remote;
//  7. `memsync status --json` healthy on every clone.
// Where the log cannot tell whether a clone had seen an edit before replacing it (process timing
// is only known to the millisecond of spawn and exit), it counts as seen: a false alarm would make
// the chaos test worthless. Where the log proves it had not seen it, nothing is excused.

export interface Failure {
  check: string;
  message: string;
  /** A lost acknowledged effect (as opposed to a broken invariant such as fsck or identity). */
  lost?: number;
}

export interface ChaosLog {
  clones: Clone[];
  records: OpRecord[];
  remoteDir: string;
  bin: string;
  env: Record<string, string>;
  shared: string[];
}

/** The records a clone holds: memory and relation id -> parsed file (null: does not parse). */
export interface CloneRecords {
  memories: Map<string, any>;
  relations: Map<string, any>;
}

interface CloneState extends CloneRecords {
  files: Map<string, string>;
  head: string;
}

const CHECKS = ["use_count", "content", "deleted", "saved", "related", "archived", "identical", "fsck", "status"] as const;
export const CHECK_TITLES: Record<string, string> = {
  use_count: "use_count = acknowledged touches",
  content: "acknowledged content edits kept",
  deleted: "no deleted memory back without a concurrent use",
  saved: "acknowledged saves present",
  related: "acknowledged relations present",
  archived: "acknowledged archives kept",
  identical: "clones byte-identical, one HEAD",
  fsck: "git fsck --strict clean",
  status: "status healthy",
};
export const ALL_CHECKS: readonly string[] = CHECKS;

export function readState(dir: string): CloneState {
  const files = new Map<string, string>();
  const memories = new Map<string, any>();
  const relations = new Map<string, any>();
  const walk = (rel: string) => {
    const abs = path.join(dir, rel);
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(r);
      else if (e.isFile() && e.name.endsWith(".json") && !e.name.startsWith(".")) {
        const text = fs.readFileSync(path.join(dir, r), "utf8");
        files.set(r, text);
        let value: any = null;
        try {
          value = JSON.parse(text);
        } catch {
          // reported by status as corrupt
        }
        (rel.startsWith("memories") ? memories : relations).set(e.name.slice(0, -5), value);
      }
    }
  };
  walk("memories");
  walk("relations");
  const meta = path.join(dir, ".meta.json");
  if (fs.existsSync(meta)) files.set(".meta.json", fs.readFileSync(meta, "utf8"));
  const head = spawnSync("git", ["rev-parse", "-q", "--verify", "HEAD"], { cwd: dir, encoding: "utf8" }).stdout.trim();
  return { files, memories, relations, head };
}

const short = (s: string | undefined, n = 60) => (s === undefined ? "(none)" : JSON.stringify(s.length > n ? `${s.slice(0, n)}…` : s));
const at = (ms: number) => `${(ms / 1000).toFixed(3)} s`;

/** Every check on the clones as they are on disk after the final syncs. */
export function checkRun(log: ChaosLog): Failure[] {
  const states = log.clones.map((c) => readState(c.dir));
  // a clone whose last final sync failed is reported as such; the effects are judged on the others
  const broken = new Set(log.clones.filter((c) => log.records.filter((r) => r.phase === "final" && r.clone === c.index).at(-1)?.code !== 0).map((c) => c.index));
  return [...checkEffects(log.clones.map((c) => c.name), states, log.records, broken), ...checkRepositories(log, states, broken)];
}

/**
 * Checks 1-4: the acknowledged effects against the records each clone holds (no I/O). `broken`:
 * clones that could not sync at the end (a failure of its own): their files are not judged, and
 * what they acknowledged after their last good sync began may never have left them, so it is not
 * expected elsewhere (a count may then lie between the touches that surely left and all of them).
 */
export function checkEffects(names: readonly string[], states: readonly CloneRecords[], records: readonly OpRecord[], broken: ReadonlySet<number> = new Set()): Failure[] {
  const clones = names.map((n, index) => ({ name: n, index }));
  const name = (i: number) => names[i] ?? "setup";
  const failures: Failure[] = [];
  const activity = records.filter((r) => r.phase !== "final");
  const acked = activity.filter((r) => r.code === 0);

  // syncs of each clone during the run, any outcome: a killed or failed sync may have pushed or pulled
  const syncsOf = clones.map((c) => activity.filter((r) => r.clone === c.index && r.kind === "sync").sort((a, b) => a.start - b.start));
  const okSyncsOf = syncsOf.map((list) => list.filter((r) => r.code === 0));
  const checked = (i: number) => !broken.has(i);
  const lastGoodStart = okSyncsOf.map((list) => list.reduce((m, r) => Math.max(m, r.start), Number.NEGATIVE_INFINITY));
  const stranded = (r: OpRecord) => r.phase !== "setup" && broken.has(r.clone) && r.end > lastGoodStart[r.clone]!;
  const brokenNote = broken.size ? ` (${[...broken].map((i) => names[i]).join(", ")} not judged: final syncs failed)` : "";

  /** Could clone c2, by time t2, have had the effect of e (lenient: when unsure, yes)? */
  const couldHaveSeen = (e: OpRecord, c2: number, t2: number): boolean => {
    if (e.phase === "setup") return true;
    if (e.clone === c2) return t2 > e.end;
    // e reaches the remote no earlier than the start of a sync of its clone that ends after it began
    const s1 = syncsOf[e.clone]!.find((s) => s.end > e.start && s.start < t2);
    if (!s1) return false;
    const pushedFrom = Math.max(s1.start, e.start);
    return syncsOf[c2]!.some((s) => s.end > pushedFrom && s.start < t2);
  };
  /** Had clone c2 provably got the effect of e before time t2 (strict: both syncs succeeded, in order)? */
  const provablySeen = (e: OpRecord, c2: number, t2: number): boolean => {
    if (e.phase === "setup") return true;
    if (e.clone === c2) return e.end < t2;
    const pushed = okSyncsOf[e.clone]!.filter((s) => s.start > e.end).reduce((m, s) => Math.min(m, s.end), Number.POSITIVE_INFINITY);
    return okSyncsOf[c2]!.some((s) => s.start > pushed && s.end < t2);
  };

  const byMemory = new Map<string, OpRecord[]>();
  for (const r of activity) {
    for (const id of [r.memory, r.kind === "relate" ? r.to : undefined]) {
      if (!id) continue;
      if (!byMemory.has(id)) byMemory.set(id, []);
      byMemory.get(id)!.push(r);
    }
  }
  const deleteAttempts = (id: string) => (byMemory.get(id) ?? []).filter((r) => r.kind === "delete" && r.memory === id);
  const savedIds = new Set(acked.filter((r) => r.kind === "save" && r.memory).map((r) => r.memory!));

  const spread = (values: (string | number | undefined)[]) => spreadOf(names, values);

  for (const id of byMemory.keys()) {
    const ops = byMemory.get(id)!.filter((r) => r.memory === id);
    const deletes = deleteAttempts(id);
    const present = states.map((s, i) => checked(i) && s.memories.has(id));
    const recs = states.map((s) => s.memories.get(id));

    // 1. use_count
    if (deletes.length === 0 && savedIds.has(id)) {
      const touches = ops.filter((r) => r.kind === "touch");
      const ackedTouches = touches.filter((r) => r.code === 0);
      // a touch whose answer a server kill lost (serve-clone.ts) may have counted too
      const want = ackedTouches.length + touches.filter((r) => r.unknown).length;
      const least = ackedTouches.length - ackedTouches.filter(stranded).length;
      const found = recs.map((m, i) => (checked(i) && m && typeof m.use_count === "number" ? m.use_count : undefined));
      if (found.some((f, i) => present[i] && !(f !== undefined && f >= least && f <= want))) {
        const refused = touches.filter((r) => r.code !== 0);
        const codes = [...new Set(refused.map((r) => r.code ?? r.signal))].join(",");
        const lost = Math.max(0, least - Math.min(...found.filter((f): f is number => f !== undefined)));
        const burst = ackedTouches.filter((r) => r.burst).length;
        const perClone = names.map((n, i) => `${n} ${ackedTouches.filter((r) => r.clone === i).length}`).join(", ");
        failures.push({
          check: "use_count",
          lost,
          message: `memory ${id}: use_count expected ${least === want ? want : `${least}..${want}`} (acknowledged touches: ${perClone}; ${burst} in same-instant bursts), found ${spread(found.map((f, i) => (checked(i) ? f : "not judged")))}${refused.length ? `; ${refused.length} touches not acknowledged (exit ${codes})` : ""}${brokenNote}`,
        });
      }
    }

    // 2. content edits
    const edits = ops.filter((r) => (r.kind === "save" || r.kind === "update") && r.code === 0 && r.content !== undefined);
    // an edit whose answer a server kill lost may have replaced one too
    const replacers = [...edits, ...ops.filter((r) => r.kind === "update" && r.unknown)];
    for (const e of edits) {
      if (stranded(e)) continue;
      const replaced =
        // on its own clone an edit that overlapped it may have come after it (a server runs
        // concurrent requests' writes one after another, in an order the log cannot tell)
        replacers.some((e2) => e2 !== e && (e2.clone === e.clone ? e2.end > e.start : couldHaveSeen(e, e2.clone, e2.end))) ||
        deletes.some((d) => couldHaveSeen(e, d.clone, d.end));
      if (replaced) continue;
      const missing: number[] = [];
      states.forEach((s, i) => {
        const m = s.memories.get(id);
        if (!m || !checked(i)) return; // absence is check 3 or 4
        const conflicts = Array.isArray(m.content_conflicts) ? m.content_conflicts.map((c: any) => c?.content) : [];
        if (m.content !== e.content && !conflicts.includes(e.content)) missing.push(i);
      });
      if (missing.length) {
        const m = states[missing[0]!]!.memories.get(id);
        failures.push({
          check: "content",
          lost: 1,
          message: `memory ${id}: ${e.kind} #${e.seq} on ${name(e.clone)} (acknowledged at ${at(e.end)}) content ${short(e.content)} is neither the content nor a content_conflict on ${missing.map(name).join(", ")} (found ${short(m?.content)}, ${Array.isArray(m?.content_conflicts) ? m.content_conflicts.length : 0} conflicts); no later edit or delete could have seen it`,
        });
      }
    }

    // 3. acknowledged deletes stay deleted unless a use the deleting clone had not seen came in
    const uses = ops.filter((r) => (r.kind === "touch" || r.kind === "update" || r.kind === "archive") && r.code !== 3);
    for (const d of deletes.filter((r) => r.code === 0 && !stranded(r))) {
      if (!present.some(Boolean)) break;
      const excuse = uses.find((u) => u.clone !== d.clone && !provablySeen(u, d.clone, d.start));
      if (!excuse) {
        const lastUse = uses.filter((u) => u.clone !== d.clone).at(-1);
        failures.push({
          check: "deleted",
          lost: 1,
          message: `memory ${id}: delete #${d.seq} on ${name(d.clone)} acknowledged at ${at(d.end)}, yet the memory is present on ${present.map((p, i) => (p ? name(i) : "")).filter(Boolean).join(", ")}; ${lastUse ? `every use or edit on another clone (last: ${lastUse.kind} #${lastUse.seq} on ${name(lastUse.clone)}) had reached ${name(d.clone)} by successful syncs before it deleted` : "no other clone used or edited it"}`,
        });
      }
    }

    if (deletes.length > 0) continue;
    // 4. saves, archives
    const save = ops.find((r) => r.kind === "save" && r.code === 0);
    if (save && !stranded(save) && present.some((p, i) => checked(i) && !p)) {
      failures.push({ check: "saved", lost: 1, message: `memory ${id}: saved (#${save.seq} on ${name(save.clone)}, acknowledged at ${at(save.end)}), never deleted, missing on ${present.map((p, i) => (p || !checked(i) ? "" : name(i))).filter(Boolean).join(", ")}${brokenNote}` });
    }
    const archive = ops.find((r) => r.kind === "archive" && r.code === 0 && !stranded(r));
    if (archive && recs.some((m, i) => present[i] && m?.status !== "archived")) {
      failures.push({ check: "archived", lost: 1, message: `memory ${id}: archive #${archive.seq} on ${name(archive.clone)} acknowledged at ${at(archive.end)}; status found ${spread(recs.map((m, i) => (checked(i) ? m?.status : "not judged")))}` });
    }
  }

  // 4. relations
  for (const r of acked.filter((x) => x.kind === "relate" && x.relation && !stranded(x))) {
    if (deleteAttempts(r.memory!).length || deleteAttempts(r.to!).length) continue;
    const missing = states.map((s, i) => (s.relations.has(r.relation!) || !checked(i) ? "" : name(i))).filter(Boolean);
    if (missing.length) failures.push({ check: "related", lost: 1, message: `relation ${r.relation} (${r.memory} -> ${r.to}, #${r.seq} on ${name(r.clone)}, acknowledged at ${at(r.end)}): neither memory was ever deleted, missing on ${missing.join(", ")}` });
  }

  return failures;
}

/** Checks 5-7: identical clones on one HEAD, fsck, status. */
function checkRepositories(log: ChaosLog, allStates: readonly CloneState[], broken: ReadonlySet<number>): Failure[] {
  // a clone that could not sync at the end differs, of course: compare the others
  const clones = log.clones.filter((c) => !broken.has(c.index));
  const states = allStates.filter((_, i) => !broken.has(i));
  const failures: Failure[] = [];
  const spread = (values: (string | undefined)[]) => spreadOf(clones.map((c) => c.name), values);
  // 5. identical clones, one HEAD, the remote's
  const remote = spawnSync("git", ["rev-parse", "-q", "--verify", "refs/heads/main"], { cwd: log.remoteDir, encoding: "utf8" }).stdout.trim();
  const heads = states.map((s) => s.head);
  if (heads.some((h) => h !== remote)) failures.push({ check: "identical", message: `HEAD differs: remote ${remote.slice(0, 10)}; ${spread(heads.map((h) => h.slice(0, 10)))}` });
  const paths = new Set(states.flatMap((s) => [...s.files.keys()]));
  const differing = [...paths].filter((p) => states.some((s) => s.files.get(p) !== states[0]!.files.get(p))).sort();
  for (const p of differing.slice(0, 10)) {
    failures.push({ check: "identical", message: `${p} differs between clones: ${spread(states.map((s) => (s.files.has(p) ? `${s.files.get(p)!.length} bytes, ${hash(s.files.get(p)!)}` : undefined)))}` });
  }
  if (differing.length > 10) failures.push({ check: "identical", message: `... and ${differing.length - 10} more files differ` });
  for (const c of clones) {
    const st = spawnSync("git", ["status", "--porcelain", "--untracked-files=all", "--", "memories", "relations", ".meta.json"], { cwd: c.dir, encoding: "utf8" });
    const lines = st.stdout.trim() ? st.stdout.trim().split("\n") : [];
    if (st.status !== 0 || lines.length) failures.push({ check: "identical", message: `${c.name}: the working tree differs from HEAD after the final syncs (git status: ${lines.slice(0, 5).join(" | ")}${lines.length > 5 ? ` | ... ${lines.length} entries` : ""}${st.status !== 0 ? st.stderr.trim() : ""})` });
  }

  // 6. fsck
  for (const [who, dir] of [...log.clones.map((c) => [c.name, c.dir] as const), ["remote", log.remoteDir] as const]) {
    const r = spawnSync("git", ["fsck", "--strict", "--no-dangling", "--no-progress"], { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) {
      const lines = `${r.stdout}${r.stderr}`.trim().split("\n");
      failures.push({ check: "fsck", message: `${who}: git fsck --strict exited ${r.status}: ${lines.slice(0, 4).join(" | ")}${lines.length > 4 ? ` | ... ${lines.length} lines` : ""}` });
    }
  }

  // 7. status
  for (const c of log.clones) {
    const r = spawnSync(log.bin, ["--store", c.dir, "status", "--json"], { encoding: "utf8", env: { ...log.env, MEMSYNC_MACHINE: c.machine } });
    let s: any = null;
    try {
      s = JSON.parse(r.stdout);
    } catch {
      // below
    }
    if (!s || s.health !== "healthy" || (s.problems ?? []).length || (s.relations?.dangling ?? []).length) {
      failures.push({ check: "status", message: `${c.name}: status exited ${r.status}, health ${s?.health ?? "?"}${s?.reasons?.length ? ` (${s.reasons.join("; ")})` : ""}${s?.relations?.dangling?.length ? `; dangling: ${s.relations.dangling.slice(0, 3).map((d: any) => d.id).join(", ")}` : ""}${s ? "" : `: ${r.stderr.trim()}`}` });
    }
  }
  return failures;
}

/** Which clones hold which value: "local-0, local-1: 5; http-2: 4". */
function spreadOf(names: readonly string[], values: (string | number | undefined)[]): string {
  const groups = new Map<string, string[]>();
  values.forEach((v, i) => {
    const k = v === undefined ? "missing" : String(v);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(names[i] ?? "?");
  });
  return [...groups].map(([v, who]) => `${who.join(", ")}: ${v}`).join("; ");
}

function hash(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(16).padStart(8, "0");
}
