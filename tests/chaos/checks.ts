import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Clone, OpKind, OpRecord } from "./harness.ts";

// The checks after a chaos run, once every clone has synced until nothing changes. Each compares
// what the log says was acknowledged (exit 0) with the files on every clone:
//  1. use_count of a memory no delete ever named = its acknowledged touches, exactly;
//  2. every acknowledged content (save, update --content) is the file's content or one of its
//     content_conflicts, unless a later edit or delete that could have seen it replaced it;
//  3. a memory whose delete was acknowledged is absent, unless a use or edit on another clone
//     (gc --archive's archive included, and a use of a memory it succeeded, which the merge carries
//     into it) happened that the deleting clone had provably not seen (the rule: a delete loses to a
//     concurrent use; a killed delete may or may not have happened, so it is not checked);
//  4. every acknowledged save (memory), relate (relation) and archive (status) is present;
//  5. all clones byte-identical in memories/, relations/, .meta.json, one HEAD = the remote's,
//     working trees clean against it;
//  6. `git fsck --strict` clean on every clone and on the remote;
//  7. `memsync status --json` healthy on every clone.
// With the main build's maintenance in the mix (consolidate --apply, split, gc, gc --archive on the
// first clone), the succession rules (DESIGN.md 4, sync/merge-tree.ts, checkout.ts recoverCheckout):
//  8. an acknowledged save is gone (never deleted) only where (a) a consolidated_from / split_from
//     relation on the clone (or the acknowledged consolidate / split output) names it and a
//     successor it names is there (or is itself gone by 8, or by a delete attempt: a successor's
//     delete takes its lineage relations along),
//     or (b) gc pruned it: it was made faded (unused for 90 days), no touch of it (nor of a memory
//     it succeeded) was ever acknowledged, and a gc without --archive ran that listed it in its
//     output or was not acknowledged (killed: it may have committed);
//  9. an acknowledged edit (content, label, status) of a memory gone by 8 was seen by a
//     maintenance command that may have removed it (one that listed it, or one not acknowledged):
//     an edit the remover had not seen brings the memory back (editwins, editwins2); likewise a
//     label (tag) or archive missing from a memory that is there is excused only by a succession
//     that had seen it (a restored memory is the editing side's version);
//  1. (extended) use_count counts each acknowledged touch of X once, wherever it lives: X's own
//     streams and a successor's streams qualified "X/<stream>" (core/counters.ts) are the same
//     count (the larger of the two per stream: a split copies them to every part, a restored
//     memory keeps them beside its successor), and that count is between the touches that surely
//     left and all acknowledged ones on every clone, whether X is there or gone by succession;
//  4. (extended) an acknowledged relation is missing only where a memory it names is gone (by a
//     delete attempt, as before, or by 8: consolidate moves relations under the same id, split
//     copies them under new ids, gc removes them with the memory), or where one of them was
//     succeeded once (and is back, restored by an edit) and a relation of its type joins the two
//     memories' heirs (moved, then copied by a split of the successor) or they share an heir
//     (consolidated together: a self-relation is dropped).
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

const CHECKS = ["use_count", "content", "deleted", "saved", "related", "archived", "labels", "succession", "identical", "fsck", "status"] as const;
export const CHECK_TITLES: Record<string, string> = {
  use_count: "use_count = acknowledged touches",
  content: "acknowledged content edits kept",
  deleted: "no deleted memory back without a concurrent use",
  saved: "acknowledged saves present or succeeded (lineage + successor) or pruned faded",
  related: "acknowledged relations present",
  archived: "acknowledged archives kept",
  labels: "acknowledged tags kept",
  succession: "edits before a consolidation, split or gc kept",
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
export function checkRun(log: ChaosLog, notes: string[] = []): Failure[] {
  const states = log.clones.map((c) => readState(c.dir));
  // a clone whose last final sync failed is reported as such; the effects are judged on the others
  const broken = new Set(log.clones.filter((c) => log.records.filter((r) => r.phase === "final" && r.clone === c.index).at(-1)?.code !== 0).map((c) => c.index));
  return [...checkEffects(log.clones.map((c) => c.name), states, log.records, broken, notes), ...checkRepositories(log, states, broken)];
}

/**
 * Checks 1-4: the acknowledged effects against the records each clone holds (no I/O). `broken`:
 * clones that could not sync at the end (a failure of its own): their files are not judged, and
 * what they acknowledged after their last good sync began may never have left them, so it is not
 * expected elsewhere (a count may then lie between the touches that surely left and all of them).
 */
export function checkEffects(names: readonly string[], states: readonly CloneRecords[], records: readonly OpRecord[], broken: ReadonlySet<number> = new Set(), notes: string[] = []): Failure[] {
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
    // nothing that began at or after t2 can have been fetched by t2 (long run e6: a sync of each
    // clone ran across both the gc's end and a later touch, and the touch was counted as seen)
    if (pushedFrom >= t2) return false;
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
  // successors an acknowledged consolidate or split made: their own touches are counted too
  for (const r of acked) for (const m of r.made ?? []) if (r.kind !== "gc") savedIds.add(m);

  const spread = (values: (string | number | undefined)[]) => spreadOf(names, values);

  // ---- succession and gc (checks 8, 9): lineage from the relations the clones hold, the maintenance log
  const { successorsOf, sourcesOf } = lineageOf(states.filter((_, i) => checked(i)));
  // and as acknowledged maintenance said it (a successor deleted since took its lineage relations along)
  for (const r of acked) {
    for (const [src, succ] of Object.entries(r.successors ?? {})) {
      for (const x of succ) {
        (successorsOf.get(src) ?? successorsOf.set(src, new Set()).get(src)!).add(x);
        (sourcesOf.get(x) ?? sourcesOf.set(x, new Set()).get(x)!).add(src);
      }
    }
  }
  const maintenance = activity.filter((r) => r.kind === "consolidate" || r.kind === "split" || r.kind === "gc");
  /** The maintenance commands that may have removed memory id: those whose output lists it, and those not acknowledged (gc --archive removes nothing). */
  const removers = (id: string, kinds: readonly OpKind[]) =>
    maintenance.filter((r) => kinds.includes(r.kind) && !(r.kind === "gc" && r.args.includes("--archive")) && (r.code !== 0 || (r.removed ?? []).includes(id)));
  const ackedTouches = acked.filter((r) => r.kind === "touch" && r.memory);
  const touched = new Set(ackedTouches.map((r) => r.memory!));
  const fadedSaves = new Set(acked.filter((r) => r.kind === "save" && r.faded && r.memory).map((r) => r.memory!));
  /**
   * Faded and never used: saved faded and never touched, or the successor of only such memories.
   * Given `gc`, a touch of a source that gc could not have seen (a use made later on a clone that
   * had not yet seen the succession: long chaos run e6) does not make the successor's prune a
   * loss: that use brings its own memory back, not the successor's other sources. Any touch of
   * the memory itself counts (a concurrent use must bring it back).
   */
  const fadedUnused = (id: string, gc?: OpRecord, seen = new Set<string>()): boolean => {
    const top = seen.size === 0;
    if (seen.has(id) || ackedTouches.some((t) => t.memory === id && (top || !gc || couldHaveSeen(t, gc.clone, gc.end)))) return false;
    seen.add(id);
    if (fadedSaves.has(id)) return true;
    const src = [...(sourcesOf.get(id) ?? [])];
    return src.length > 0 && src.every((x) => fadedUnused(x, gc, seen));
  };
  /** Why memory id may be missing on clone i (check 8): a successor there (or gone in turn), a gc prune; else null. */
  const goneBy = (id: string, i: number, seen = new Set<string>()): "succession" | "gc" | "delete" | null => {
    if (seen.has(id)) return null;
    seen.add(id);
    if (deleteAttempts(id).length) return "delete";
    for (const s of successorsOf.get(id) ?? []) if (states[i]!.memories.has(s) || goneBy(s, i, seen) !== null) return "succession";
    if (removers(id, ["gc"]).some((r) => fadedUnused(id, r))) return "gc";
    return null;
  };
  /** Every successor of id, and theirs in turn (lineage from the clones and the acknowledged output). */
  const heirsOf = (id: string, seen = new Set<string>()): Set<string> => {
    for (const s of successorsOf.get(id) ?? []) if (!seen.has(s)) (seen.add(s), heirsOf(s, seen));
    return seen;
  };
  /** Whether a successor of id (or of its successors) is there on clone i: where its uses now live. */
  const heirThere = (id: string, i: number, seen = new Set<string>()): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    return [...(successorsOf.get(id) ?? [])].some((s) => states[i]!.memories.has(s) || heirThere(s, i, seen));
  };
  const lineageNote = (id: string) => {
    const succ = [...(successorsOf.get(id) ?? [])];
    const rs = removers(id, ["consolidate", "split", "gc"]);
    return `${succ.length ? `successors named by lineage: ${succ.join(", ")} (none there)` : "no consolidated_from / split_from names it"}; ${fadedSaves.has(id) ? `saved faded${touched.has(id) ? ", touched since" : ""}` : "not saved faded"}; maintenance that may have removed it: ${rs.length ? rs.map((r) => `${r.kind} #${r.seq}${r.code === 0 ? "" : ` (exit ${r.code ?? r.signal})`}`).join(", ") : "none"}`;
  };
  /** Each memory's uses, wherever counted (check 1): per clone, memory id -> stream -> count. */
  const usesOn = states.map((s, i) => (checked(i) ? usesByOrigin(s) : new Map<string, Map<string, number>>()));
  const usesOf = (i: number, id: string) => [...(usesOn[i]!.get(id)?.values() ?? [])].reduce((a, b) => a + b, 0);
  // memories whose uses another memory there holds too ("X/..." keys): taking part in a succession
  const carriedOn = states.map((s, i) => (checked(i) ? carriedOrigins(s) : new Set<string>()));
  let overCounted = 0;
  let overUses = 0;

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
      // a touch that may have moved into a successor before a delete of that successor went with it
      // (a successor's delete takes the uses it carries; a memory back later by an edit cannot get
      // them from it): the count may lack it
      const droppedSuccessors = [...heirsOf(id)].flatMap((s) => deleteAttempts(s));
      const least = ackedTouches.filter((t) => !stranded(t) && !droppedSuccessors.some((d) => couldHaveSeen(t, d.clone, d.end))).length;
      // judged where the memory is, or where it is gone by succession to a successor there (its
      // uses then live in it; a successor deleted since took them along)
      const judged = states.map((s, i) => checked(i) && (present[i] || (goneBy(id, i) === "succession" && heirThere(id, i))));
      const found = recs.map((m, i) => (judged[i] && (!present[i] || (m && typeof m.use_count === "number")) ? usesOf(i, id) : undefined));
      // above the acknowledged touches where a succession took part: a consolidation used to sum a
      // stream two sources both hold (a split's parts, a memory restored beside its successor); it
      // now takes the larger (core/counters.ts inheritedStreams), so an excess here is unexpected,
      // yet no loss: said in a note. Where no succession took part, the count is exact, as before.
      const involved = (i: number) => !present[i] || carriedOn[i]!.has(id) || successorsOf.has(id) || sourcesOf.has(id);
      const over = found.map((f, i) => judged[i] && f !== undefined && f > want && involved(i));
      if (over.some(Boolean)) {
        overCounted++;
        overUses += Math.max(...found.map((f, i) => (over[i] ? f! - want : 0)));
      }
      if (found.some((f, i) => judged[i] && !over[i] && !(f !== undefined && f >= least && f <= want))) {
        const refused = touches.filter((r) => r.code !== 0);
        const codes = [...new Set(refused.map((r) => r.code ?? r.signal))].join(",");
        const lost = Math.max(0, least - Math.min(...found.map((f, i) => (judged[i] ? (f ?? 0) : least))));
        const burst = ackedTouches.filter((r) => r.burst).length;
        const perClone = names.map((n, i) => `${n} ${ackedTouches.filter((r) => r.clone === i).length}`).join(", ");
        failures.push({
          check: "use_count",
          lost,
          message: `memory ${id}: use_count expected ${least === want ? want : `${least}..${want}`} (acknowledged touches: ${perClone}; ${burst} in same-instant bursts), found ${spread(found.map((f, i) => (checked(i) ? f : "not judged")))}${present.some((p, i) => judged[i] && !p) ? ` (gone by succession on ${present.map((p, i) => (judged[i] && !p ? name(i) : "")).filter(Boolean).join(", ")}: counted in its successors)` : ""}${refused.length ? `; ${refused.length} touches not acknowledged (exit ${codes})` : ""}${brokenNote}`,
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
    // (gc --archive is a status edit too: one that listed it, or one not acknowledged)
    const archivedByGc = maintenance.filter((r) => r.kind === "gc" && r.args.includes("--archive") && (r.code !== 0 || (r.removed ?? []).includes(id)));
    // (and a use of a memory it succeeded: the merge carries that into it, a change the delete loses to)
    const ancestors = new Set<string>();
    const up = (x: string) => {
      for (const a of sourcesOf.get(x) ?? []) if (!ancestors.has(a)) (ancestors.add(a), up(a));
    };
    up(id);
    const sourceUses = [...ancestors].flatMap((a) => (byMemory.get(a) ?? []).filter((r) => r.memory === a && (r.kind === "touch" || r.kind === "update" || r.kind === "archive") && r.code !== 3));
    const uses = [...ops.filter((r) => (r.kind === "touch" || r.kind === "update" || r.kind === "archive") && r.code !== 3), ...archivedByGc, ...sourceUses];
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
    const gone = states.map((_, i) => (checked(i) && !present[i] ? goneBy(id, i) : null));
    // a succession that may have seen edit e (or an edit that could have seen it) took it along
    const successionRemovers = removers(id, ["consolidate", "split"]);
    const editsTaken = (e: OpRecord, rs: readonly OpRecord[]) =>
      rs.some((r) => couldHaveSeen(e, r.clone, r.end)) || ops.some((e2) => e2 !== e && e2.code === 0 && (e2.kind === "update" || e2.kind === "archive") && couldHaveSeen(e, e2.clone, e2.end) && rs.some((r) => couldHaveSeen(e2, r.clone, r.end)));

    // 9. edits before the memory went by a succession or gc: the remover had seen them
    if (gone.some((g) => g === "succession" || g === "gc")) {
      // a memory back beside an earlier successor can still be pruned by gc (faded, never used)
      const rs = removers(id, gone.includes("succession") ? ["consolidate", "split", ...(fadedUnused(id) ? (["gc"] as const) : [])] : ["gc"]);
      for (const e of ops.filter((r) => r.code === 0 && !stranded(r) && (r.kind === "update" || r.kind === "archive"))) {
        if (editsTaken(e, rs)) continue;
        failures.push({
          check: "succession",
          lost: 1,
          message: `memory ${id}: ${e.kind}${e.tag ? ` --add-tag ${e.tag}` : e.content !== undefined ? ` --content ${short(e.content)}` : ""} #${e.seq} on ${name(e.clone)} acknowledged at ${at(e.end)}; the memory is gone by ${gone.find(Boolean)} on ${gone.map((g, i) => (g ? name(i) : "")).filter(Boolean).join(", ")}, and no maintenance command that may have removed it could have seen the edit (${rs.length ? rs.map((r) => `${r.kind} #${r.seq} on ${name(r.clone)} ${at(r.start)}-${at(r.end)}${r.code === 0 ? "" : ` exit ${r.code ?? r.signal}`}`).join(", ") : "none"}): it should have come back beside its successors`,
        });
      }
    }

    // 4. (8.) saves, archives; tags
    const save = ops.find((r) => r.kind === "save" && r.code === 0);
    const missing = present.map((p, i) => checked(i) && !p && gone[i] === null);
    if (save && !stranded(save) && missing.some(Boolean)) {
      failures.push({ check: "saved", lost: 1, message: `memory ${id}: saved (#${save.seq} on ${name(save.clone)}, acknowledged at ${at(save.end)}), never deleted, missing on ${missing.map((x, i) => (x ? name(i) : "")).filter(Boolean).join(", ")} (${lineageNote(id)})${brokenNote}` });
    }
    const archive = ops.find((r) => r.kind === "archive" && r.code === 0 && !stranded(r) && !editsTaken(r, successionRemovers));
    if (archive && recs.some((m, i) => present[i] && m?.status !== "archived")) {
      failures.push({ check: "archived", lost: 1, message: `memory ${id}: archive #${archive.seq} on ${name(archive.clone)} acknowledged at ${at(archive.end)}; status found ${spread(recs.map((m, i) => (checked(i) ? m?.status : "not judged")))}` });
    }
    for (const e of ops.filter((r) => r.kind === "update" && r.tag && r.code === 0 && !stranded(r))) {
      // a restored memory is the editing side's version: a tag a succession had seen went with it to the successors
      if (editsTaken(e, successionRemovers)) continue;
      const without = recs.map((m, i) => present[i] && !tagsOf(m).includes(e.tag!));
      if (without.some(Boolean)) failures.push({ check: "labels", lost: 1, message: `memory ${id}: update --add-tag ${e.tag} #${e.seq} on ${name(e.clone)} acknowledged at ${at(e.end)}; the tag is missing on ${without.map((x, i) => (x ? name(i) : "")).filter(Boolean).join(", ")} (tags there: ${JSON.stringify(tagsOf(recs[without.indexOf(true)]))})` });
    }
  }

  if (overCounted) notes.push(`uses counted more than once after a succession (unexpected since consolidation takes the larger count of a stream two sources hold; no loss): ${overCounted} memories, ${overUses} uses over the acknowledged touches; none lost`);

  // 4. relations
  for (const r of acked.filter((x) => x.kind === "relate" && x.relation && !stranded(x))) {
    // a memory it names gone (check 8 judges why): consolidate moved it under the same id, split copied it, gc removed it
    const heirs = (id: string) => {
      const out = new Set([id]);
      const walk = (x: string) => {
        for (const y of successorsOf.get(x) ?? []) if (!out.has(y)) (out.add(y), walk(y));
      };
      walk(id);
      return out;
    };
    // a delete of either memory, or of a successor the relation had moved to (a delete takes the
    // memory's relations along, the moved one too, even where its source was restored beside it)
    if ([...heirs(r.memory!), ...heirs(r.to!)].some((x) => deleteAttempts(x).length)) continue;
    // the type as the acknowledged answer gave it (a CLI `relate --type T` and POST /v1/relate alike)
    const relType = (x: OpRecord): string | undefined => {
      // (read by pattern: ops.jsonl keeps an answer's first 300 characters, and a recheck reads those)
      const t = /"relation_type":"([^"]+)"/.exec(x.stdout)?.[1];
      if (t) return t;
      const at = x.args.indexOf("--type");
      return at >= 0 ? x.args[at + 1] : undefined;
    };
    // both there, one of them succeeded once (and restored since): its relations went to the
    // successor, under the same id (consolidate) and then perhaps copied under new ids (a split of
    // it) or dropped as a duplicate or a self-relation: a relation of the type between their heirs,
    // or heirs in common, accounts for it
    const carried = (s: CloneRecords) => {
      if (!successorsOf.has(r.memory!) && !successorsOf.has(r.to!)) return false;
      const from = heirs(r.memory!);
      const to = heirs(r.to!);
      if ([...from].some((x) => to.has(x))) return true;
      return [...s.relations.values()].some((x) => x && from.has(String(x.from_memory_id)) && to.has(String(x.to_memory_id)) && String(x.relation_type) === relType(r));
    };
    const missing = states.map((s, i) => (s.relations.has(r.relation!) || !checked(i) || !s.memories.has(r.memory!) || !s.memories.has(r.to!) || carried(s) ? "" : name(i))).filter(Boolean);
    if (missing.length) failures.push({ check: "related", lost: 1, message: `relation ${r.relation} (${r.memory} -> ${r.to}, #${r.seq} on ${name(r.clone)}, acknowledged at ${at(r.end)}): neither memory was ever deleted, missing on ${missing.join(", ")}` });
  }

  return failures;
}

const SUCCESSION = new Set(["consolidated_from", "split_from"]);

/** Lineage from the relations the clones hold: memory -> the successors that name it, successor -> its sources. */
export function lineageOf(states: readonly CloneRecords[]): { successorsOf: Map<string, Set<string>>; sourcesOf: Map<string, Set<string>> } {
  const successorsOf = new Map<string, Set<string>>();
  const sourcesOf = new Map<string, Set<string>>();
  const add = (m: Map<string, Set<string>>, k: string, v: string) => (m.get(k) ?? m.set(k, new Set()).get(k)!).add(v);
  for (const s of states) {
    for (const rel of s.relations.values()) {
      if (!rel || !SUCCESSION.has(String(rel.relation_type))) continue;
      add(successorsOf, String(rel.to_memory_id), String(rel.from_memory_id));
      add(sourcesOf, String(rel.from_memory_id), String(rel.to_memory_id));
    }
  }
  return { successorsOf, sourcesOf };
}

/**
 * Every memory's uses as one clone holds them, by the memory they were made on: a memory's own
 * streams (counters.use_count keys without "/", and what its total holds beyond its map, "~")
 * are its own; a key "X/<stream>" is X's stream carried by a consolidation or split. One stream
 * held in several places (a split's parts, a memory restored beside its successor) counts once,
 * at its largest: memory id -> stream -> count.
 */
export function usesByOrigin(state: CloneRecords): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  const put = (origin: string, stream: string, n: number) => {
    if (!(n > 0)) return;
    const m = out.get(origin) ?? out.set(origin, new Map()).get(origin)!;
    m.set(stream, Math.max(m.get(stream) ?? 0, n));
  };
  for (const [id, m] of state.memories) {
    if (!m) continue;
    const map = m.counters && typeof m.counters === "object" && m.counters.use_count && typeof m.counters.use_count === "object" ? (m.counters.use_count as Record<string, number>) : {};
    let named = 0;
    for (const [k, v] of Object.entries(map)) {
      if (typeof v !== "number") continue;
      const slash = k.indexOf("/");
      if (slash > 0) put(k.slice(0, slash), k.slice(slash + 1), v);
      else put(id, k, v);
      if (k !== "~") named += v;
    }
    const total = typeof m.use_count === "number" ? m.use_count : 0;
    if (total - named > (map["~"] ?? 0)) put(id, "~", total - named);
  }
  return out;
}

/** The memories whose streams another memory holds ("X/<stream>" keys in a memory other than X). */
export function carriedOrigins(state: CloneRecords): Set<string> {
  const out = new Set<string>();
  for (const [id, m] of state.memories) {
    const map = m?.counters?.use_count;
    if (!map || typeof map !== "object") continue;
    for (const k of Object.keys(map)) {
      const slash = k.indexOf("/");
      if (slash > 0 && k.slice(0, slash) !== id) out.add(k.slice(0, slash));
    }
  }
  return out;
}

/**
 * Uses counted twice (a note, not a loss): a memory there beside a successor that also holds its
 * streams (a memory restored after an edit raced its consolidation keeps the uses the successor
 * summed). Per clone, the first judged: how many memories, how many uses over.
 */
export function doubleCounted(state: CloneRecords): { memories: number; uses: number; ids: string[] } {
  let memories = 0;
  let uses = 0;
  const ids: string[] = [];
  const own = new Map<string, Map<string, number>>();
  for (const [id, m] of state.memories) {
    const map = m?.counters?.use_count;
    const streams = new Map<string, number>();
    if (map && typeof map === "object") for (const [k, v] of Object.entries(map)) if (!k.includes("/") && typeof v === "number") streams.set(k, v);
    own.set(id, streams);
  }
  const inSuccessors = new Map<string, Map<string, number>>();
  for (const [id, m] of state.memories) {
    const map = m?.counters?.use_count;
    if (!map || typeof map !== "object") continue;
    for (const [k, v] of Object.entries(map)) {
      const slash = k.indexOf("/");
      if (slash <= 0 || typeof v !== "number") continue;
      const origin = k.slice(0, slash);
      if (origin === id || !state.memories.has(origin)) continue;
      const s = inSuccessors.get(origin) ?? inSuccessors.set(origin, new Map()).get(origin)!;
      s.set(k.slice(slash + 1), Math.max(s.get(k.slice(slash + 1)) ?? 0, v));
    }
  }
  for (const [origin, streams] of inSuccessors) {
    let over = 0;
    for (const [k, v] of streams) over += Math.min(v, own.get(origin)?.get(k) ?? 0);
    if (over > 0) {
      memories++;
      uses += over;
      ids.push(origin);
    }
  }
  return { memories, uses, ids };
}

function tagsOf(m: any): string[] {
  const t = m?.meta?.tags ?? m?.tags;
  return Array.isArray(t) ? t.map(String) : [];
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
