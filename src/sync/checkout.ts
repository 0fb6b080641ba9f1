import fs from "node:fs";
import path from "node:path";
import { carryUsage, type JsonObject, parseObject, usageBesideSuccessors } from "../core/merge/record-merge.ts";
import { parseJsonText } from "../core/model/validate.ts";
import { writeAtomic } from "../store/atomic-write.ts";
import { bootId } from "../store/boot.ts";
import { CHECKOUT_INTENT } from "../store/fixed-paths.ts";
import { loadSyncAll } from "../store/fs-port.ts";
import { appendJournal, DELETE_KEEPING_RELATIONS, readJournal } from "../store/journal.ts";
import { allCandidatePaths, idFromFileName, LOCAL_DIR } from "../store/layout.ts";
import type { Codec } from "../store/codec.ts";
import type { Store } from "../store/store.ts";
import { writeCommitState } from "./commit-state.ts";
import { faultPoint } from "./fault.ts";
import { updateGitIndex } from "./git-index.ts";
import { hashObject } from "./loose-objects.ts";
import { kindOfPath, mergeFileTexts } from "./merge-file.ts";
import { changedBeyondUsage, SUCCESSION } from "./merge-tree.ts";
import { readBlobText, readTreeEntries, treeOf } from "./objects.ts";
import { progress } from "./progress.ts";
import { writeRefAtomic } from "./refs.ts";
import { heartbeat } from "../store/lock-heartbeat.ts";

// Bringing the working files, git's index and the branch to a new commit (a pull's fast-forward
// or merge) so that a kill at any instant loses nothing. Before the first file is written, an
// intent record (.memsync/checkout.json, machine-local) names the branch's old and new commit and
// every path with its old and new blob. Then: the files, git's index, the branch, the commit
// state, and the record is removed. The next sync, pull, push or commit finishes an interrupted
// checkout before anything else (one stat when there is none), path by path and idempotently:
// a file still at its old blob gets the new one; a file a write changed after the kill keeps that
// write: as it is when the write found the new version (its refresh journaled the file as an
// outside edit first), merged three-way with the new version when it found the old one. So
// neither the pull nor the write is lost, and writers need not look for the record. Without it, a
// kill between the files and the branch would leave merged files on the old branch, and the next
// commit would record the merge as a local edit (counting the remote's usage twice on the next
// merge) or, the other way round, revert it.
//
// Durability as git's checkout: the files are written without an fsync each (a temp file renamed
// over the old one, so a killed process leaves the old file or the new one, whole), then made
// durable at one point (syncfs, else an fsync per file) before git's index and the branch move.
// Only a crash of the machine before that point can leave a file torn or empty; the intent record
// (fsynced, with the boot it was written in) survives it, and the next command, seeing another
// boot, writes the new version over any file of the checkout that does not parse: nothing anyone
// was told was written is there to lose, as the pull had not finished.

const INTENT_FILE = CHECKOUT_INTENT;
// Written once every file of the checkout is durable (its text: the record's old and new commit):
// a file the checkout added that is absent while this is there was removed since, by hand
const WRITTEN_FILE = `${LOCAL_DIR}/checkout-written`;
const writtenMark = (plan: CheckoutPlan) => `${plan.from ?? ""} ${plan.head}\n`;
// Before that mark, the checkout's progress: a header (the record's commits and boot), then the
// path of each file once its rename is done, one a line, no fsync. Believed only in the boot the
// checkout began in (the record's boot, this machine's now): within one boot the page cache is the
// one view of every file, so a line there means its file's new version was written, and a SIGKILL
// loses none of it; after a restart (a crash, a power loss) a line may have reached the disk while
// its file did not, so the whole file is ignored, and a file gone is taken for one not written
// (written back: never a deletion guessed). Where the boot cannot be told (not Linux), ignored too.
const PROGRESS_FILE = `${LOCAL_DIR}/checkout-progress`;
const progressHeader = (plan: CheckoutPlan, boot: string) => `${plan.from ?? ""} ${plan.head} ${boot}\n`;

/** The paths the checkout of this plan wrote before a kill, when that can be trusted (same boot), else none. */
function readProgress(root: string, plan: CheckoutPlan): Set<string> {
  const boot = bootId();
  if (plan.boot === undefined || boot === null || plan.boot !== boot) return new Set();
  const text = readText(`${root}/${PROGRESS_FILE}`);
  const header = progressHeader(plan, boot);
  if (text === null || !text.startsWith(header)) return new Set();
  const lines = text.slice(header.length).split("\n");
  lines.pop(); // the text after the last newline: empty, or a line cut short
  return new Set(lines);
}

export interface CheckoutPath {
  path: string;
  before: string | null;
  after: string | null;
  /** Leave the working file alone (an uncommitted corrupt file): only git's index moves. */
  keep?: boolean;
}

export interface CheckoutPlan {
  ref: string;
  from: string | null;
  head: string;
  paths: CheckoutPath[];
  /** The machine's boot when the checkout began (Linux; absent elsewhere). */
  boot?: string;
}


function writeIntent(root: string, plan: CheckoutPlan): void {
  fs.mkdirSync(`${root}/${LOCAL_DIR}`, { recursive: true });
  const tmp = `${root}/${INTENT_FILE}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, "w");
  try {
    fs.writeSync(fd, `${JSON.stringify(plan)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, `${root}/${INTENT_FILE}`);
  try {
    const dfd = fs.openSync(`${root}/${LOCAL_DIR}`, "r");
    try {
      fs.fsyncSync(dfd);
    } finally {
      fs.closeSync(dfd);
    }
  } catch {
    // a folder fsync is not possible everywhere (Windows)
  }
}

function readIntent(root: string): CheckoutPlan | null {
  let text: string;
  try {
    text = fs.readFileSync(`${root}/${INTENT_FILE}`, "utf8");
  } catch {
    return null;
  }
  try {
    const v = JSON.parse(text) as CheckoutPlan;
    if (typeof v.ref === "string" && typeof v.head === "string" && Array.isArray(v.paths)) return v;
  } catch {
    // torn: it is written with a rename, so this is not ours; drop it below
  }
  fs.rmSync(`${root}/${INTENT_FILE}`, { force: true });
  return null;
}

/** Write one working file from a blob (null: remove it); `durable: false` leaves the fsync to the caller. */
async function writeFile(store: Store, gitdir: string, rel: string, oid: string | null, durable = true): Promise<void> {
  const abs = `${store.root}/${rel}`;
  if (oid === null) {
    fs.rmSync(abs, { force: true });
    return;
  }
  writeText(store, rel, (await readBlobText(gitdir, oid))!, durable);
}

function writeText(store: Store, rel: string, text: string, durable = true): void {
  const abs = `${store.root}/${rel}`;
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  writeAtomic(store.fs, path.dirname(abs), path.basename(abs), text, durable);
}

/**
 * The checkout's one durable point: every file written (and removed) so far, flushed together
 * (syncfs), or, where that cannot be done, each file and each folder fsynced.
 */
async function makeDurable(store: Store, paths: readonly CheckoutPath[]): Promise<void> {
  await loadSyncAll();
  if (store.fs.syncAll(store.root)) return;
  const dirs = new Set<string>();
  for (const p of paths) {
    heartbeat();
    if (p.after !== null) {
      try {
        store.fs.fsyncFile(`${store.root}/${p.path}`);
      } catch {
        // gone since (a writer removed it): nothing of ours to flush
      }
    }
    dirs.add(path.dirname(`${store.root}/${p.path}`));
  }
  for (const d of dirs) store.fs.fsyncDir(d);
}

/**
 * Keep git's own index in step with what memsync committed or checked out (path -> blob, null:
 * gone), so native `git status` in the store is clean. One atomic rewrite for all the paths.
 */
export async function syncGitIndex(root: string, paths: Map<string, string | null>): Promise<void> {
  const changes = new Map<string, { oid: string; size: number } | null>();
  for (const [p, oid] of paths) {
    heartbeat();
    const st = oid === null ? null : fs.statSync(`${root}/${p}`, { throwIfNoEntry: false });
    changes.set(p, oid === null ? null : { oid, size: st?.size ?? 0 });
  }
  await updateGitIndex(`${root}/.git`, changes);
}

/** The end of a checkout: git's index, then the branch (an index behind the branch would make a native commit delete files), then the state. */
async function finish(store: Store, plan: CheckoutPlan): Promise<void> {
  const gitdir = `${store.root}/.git`;
  await syncGitIndex(store.root, new Map(plan.paths.map((p) => [p.path, p.after] as const)));
  faultPoint("checkout-index");
  writeRefAtomic(gitdir, plan.ref, plan.head);
  faultPoint("checkout-ref");
  writeCommitState(store.root, plan.head);
  // the mark before the record: a mark left alone would speak for the next checkout's files
  fs.rmSync(`${store.root}/${WRITTEN_FILE}`, { force: true });
  fs.rmSync(`${store.root}/${PROGRESS_FILE}`, { force: true });
  fs.rmSync(`${store.root}/${INTENT_FILE}`, { force: true });
}

/** Check out a new commit (the caller holds the store's write lock). */
export async function applyCheckout(store: Store, plan: CheckoutPlan): Promise<void> {
  const gitdir = `${store.root}/.git`;
  const boot = bootId() ?? undefined;
  // a progress file a finished checkout left (killed between its removal and the record's) is not
  // this one's: its header would not match, but it goes before the record names a new checkout
  fs.rmSync(`${store.root}/${PROGRESS_FILE}`, { force: true });
  writeIntent(store.root, boot ? { ...plan, boot } : plan);
  faultPoint("checkout-intent");
  const files = plan.paths.filter((p) => !p.keep);
  let done = 0;
  // the progress file only where the boot can be told (nothing would believe it elsewhere)
  const log = boot ? fs.openSync(`${store.root}/${PROGRESS_FILE}`, "w") : null;
  try {
    if (log !== null) fs.writeSync(log, progressHeader(plan, boot!));
    for (const p of files) {
      heartbeat(); // (a file can take long under load: a beat per file, not per 100)
      if (done++ % 100 === 0 && files.length >= 500) progress("updating files", done - 1, files.length);
      await writeFile(store, gitdir, p.path, p.after, false);
      // after the rename (or removal): a line never names a file not yet at its new version
      if (log !== null) fs.writeSync(log, `${p.path}\n`);
      faultPoint("checkout-file");
    }
  } finally {
    if (log !== null) fs.closeSync(log);
  }
  if (files.length >= 500) progress("updating files", files.length, files.length);
  await makeDurable(store, files);
  // no fsync: lost in a crash, the finish only writes back files it could have kept removed
  fs.writeFileSync(`${store.root}/${WRITTEN_FILE}`, writtenMark(plan));
  faultPoint("checkout-durable");
  await finish(store, plan);
}

function readText(abs: string): string | null {
  try {
    return fs.readFileSync(abs, "utf8");
  } catch {
    return null;
  }
}

async function fileOid(abs: string): Promise<{ text: string; oid: string } | null> {
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(abs);
  } catch {
    return null;
  }
  return { text: new TextDecoder().decode(bytes), oid: await hashObject("blob", bytes) };
}

/**
 * Finish a checkout a killed process left (the caller holds the store's write lock). Returns
 * whether there was one. Files a writer changed since the kill keep that change.
 */
export async function recoverCheckout(store: Store): Promise<boolean> {
  const plan = readIntent(store.root);
  if (!plan) return false;
  const gitdir = `${store.root}/.git`;
  const { resolve } = await import("./objects.ts");
  const branch = await resolve(gitdir, plan.ref);
  if (branch !== plan.from && branch !== plan.head) {
    // the branch moved elsewhere since (native git): this record no longer describes anything
    fs.rmSync(`${store.root}/${INTENT_FILE}`, { force: true });
    return false;
  }
  const codec = await store.codec();
  const firstSeen = firstJournalOps(store);
  const lastSeen = lastJournalOps(store);
  const goneSince = memoriesRemovedSince(store, firstSeen);
  const deferred: CheckoutPath[] = [];
  // relations this checkout removes (with a memory it removes, or on their own), decided after the loop
  const removals: CheckoutPath[] = [];
  const broughtBack: string[] = [];
  // memories the pull only used that a consolidation or split of the old version removed since:
  // their pulled use moves to the successors, as the merge moves it (merge-tree.ts carryUsage)
  const usedThenSucceeded: { id: string; before: string | null; after: string | null }[] = [];
  // memories the pull edited that a consolidation or split removed since: back beside the successors
  const besideSuccessors: { id: string; path: string }[] = [];
  // the machine restarted since the checkout began: its files may not all have reached the disk
  const crashed = plan.boot !== undefined && plan.boot !== (bootId() ?? undefined);
  const allWritten = readText(`${store.root}/${WRITTEN_FILE}`) === writtenMark(plan);
  // files the checkout wrote: all of them (the mark), or those its progress names (same boot only)
  const progressed = allWritten ? new Set<string>() : readProgress(store.root, plan);
  const wrote = (rel: string) => allWritten || progressed.has(rel);
  const removedByHand: string[] = [];
  for (const p of plan.paths) {
    if (p.keep) continue;
    const now = await fileOid(`${store.root}/${p.path}`);
    const nowOid = now?.oid ?? null;
    if (nowOid === p.after) {
      if (p.after === null && p.before !== null && kindOfPath(p.path) === "relation") removals.push(p);
      continue;
    }
    // a file this checkout added (no old blob) that a write since removed: gone looks like "not
    // written yet", but a write can only remove a file it found, so the journal names the path
    // (the new file journaled as an outside edit, then its delete): the delete stands. So does a
    // removal by hand (no journal entry: the index never knew the file) once every file was
    // written (the mark); it is journaled as the outside edit it is, for the commit.
    if (p.before === null && now === null && (firstSeen.has(p.path) || wrote(p.path))) {
      if (!firstSeen.has(p.path)) removedByHand.push(p.path);
      continue;
    }
    if (nowOid === p.before || (crashed && now !== null && p.after !== null && !parseJsonText(now.text).ok)) {
      // a relation this checkout adds, not written before the kill, to a memory a write removed
      // since: it goes, as the merge drops a relation whose memory is gone (merge-tree.ts), and its
      // removal is journaled for the commit (the branch gets it with the checkout); decided after
      // the loop, as a memory the loop brings back (a delete that lost to the pull's edit) is not gone
      if (p.before === null && p.after !== null && goneSince.size > 0 && kindOfPath(p.path) === "relation" && namesAny(await readBlobText(gitdir, p.after), goneSince)) {
        deferred.push(p);
        continue;
      }
      if (p.after === null && kindOfPath(p.path) === "relation") {
        removals.push(p);
        continue;
      }
      // (after a crash, a file that does not parse is this checkout's write cut short: every
      // other writer's is durable before it is acknowledged)
      await writeFile(store, gitdir, p.path, p.after);
      continue;
    }
    // changed after the kill. A write that found the new version already there first journaled
    // it as an outside edit (the index still knew the old one): its file already holds the pull
    // and the write. A write that found the old version is merged with the new one.
    // So does a file no write named (an edit by hand) once every file was written (the mark): it
    // was edited on top of the new version, as after a finished pull.
    if (firstSeen.get(p.path) === "edit" || (wrote(p.path) && now !== null && !firstSeen.has(p.path))) continue;
    // removed by a plain delete that found the old version (no outside edit journaled first) of a
    // memory the pull changed: a delete concurrent with the other side's use or edit, which the
    // merge (merge-tree.ts) would have lost to it, so the pulled version comes back, as without
    // the kill (not when the memory is at another path now: moved to the other place)
    // A consolidation or split of the old version is such a delete too when the pull changed the
    // memory beyond usage (content, labels, status: the merge keeps such an edit over a removal
    // with successors: merge-tree.ts changedBeyondUsage); for a use only, it stands.
    // The removal is the last write journaled for the path: uses of the old version before it (a
    // touch) do not make it anything but a removal of what the pull changed.
    if (!now && p.before !== null && p.after !== null && kindOfPath(p.path) === "memory" && !elsewhere(store.root, p.path)) {
      const op = lastSeen.get(p.path);
      const before = isSuccession(op) ? await readBlobText(gitdir, p.before) : null;
      const after = isSuccession(op) ? await readBlobText(gitdir, p.after) : null;
      if (isDelete(op) || (isSuccession(op) && changedBeyondUsage(before, after))) {
        await writeFile(store, gitdir, p.path, p.after);
        broughtBack.push(p.path);
        const id = idFromFileName(path.basename(p.path));
        if (isSuccession(op) && id) besideSuccessors.push({ id, path: p.path });
        continue;
      }
      const id = idFromFileName(path.basename(p.path));
      if (isSuccession(op) && id) {
        usedThenSucceeded.push({ id, before, after });
        continue;
      }
    }
    if (now && p.after !== null) {
      const merged = await mergeFileTexts(codec, kindOfPath(p.path), await readBlobText(gitdir, p.before), now.text, (await readBlobText(gitdir, p.after))!);
      if (merged.clean && merged.text !== now.text) writeText(store, p.path, merged.text);
    }
    // else: removed by a write since, or unreadable: left as it is, for the next commit to judge
  }
  // the relations the delete of a memory brought back removed with it come back too (as the merge
  // has them: "deleted along with a memory that came back returns"), from the checkout's commit
  if (broughtBack.length > 0) await relationsBack(store, plan, broughtBack);
  if (usedThenSucceeded.length > 0) usageToSuccessors(store, codec, usedThenSucceeded);
  if (besideSuccessors.length > 0) usageFromSuccessors(store, codec, besideSuccessors);
  const stillGone = new Set([...goneSince].filter((id) => !memoryOnDisk(store.root, id)));
  const keptBy = deletesKeepingPulled(store, plan, firstSeen);
  const dropped: string[] = [];
  // the successors of memories still gone, read from the journal once, when a relation needs them
  let heirsOfGone: Map<string, Set<string>> | undefined;
  for (const p of deferred) {
    const text = await readBlobText(gitdir, p.after!);
    const ends = relationEnds(text);
    // a delete that kept relations, of the version this checkout brought (its file new here, or
    // the pull's version found on disk), came after the pull: its relations are kept, these too
    const gone = ends.filter((id) => stillGone.has(id) && !keptBy.has(id));
    if (gone.length === 0) await writeFile(store, gitdir, p.path, p.after);
    else {
      // a memory merged away since into one other moves the relation there, as the merge does
      heirsOfGone ??= journaledSuccessors(store, stillGone);
      const moved = movedToHeir(store, codec, parseObject(text), gone, heirsOfGone);
      if (moved !== null) writeText(store, p.path, moved);
      else dropped.push(p.path);
    }
  }
  // a relation this checkout removes with a memory that a write since kept (a use or an edit of
  // it, which wins over the delete): the merge brings the relation back with the memory ("deleted
  // along with a memory that came back returns"), so it stays, unless a write since named it (a
  // "relate" naming it is this finish's own entry, from a run killed before it ended)
  const removedMemories = new Set(plan.paths.filter((p) => p.after === null && kindOfPath(p.path) === "memory").map((p) => idFromFileName(path.basename(p.path))).filter((id): id is string => id !== null));
  const kept: Record<string, string> = {};
  for (const p of removals) {
    const text = await readBlobText(gitdir, p.before);
    const ends = relationEnds(text);
    const stays = (firstSeen.get(p.path) ?? "relate") === "relate" && ends.length === 2 && ends.some((id) => removedMemories.has(id)) && ends.every((id) => memoryOnDisk(store.root, id));
    if (stays) {
      // journaled: the commit after the checkout takes the journal's paths, and the branch has it removed
      if (!fs.existsSync(`${store.root}/${p.path}`)) writeText(store, p.path, text!);
      kept[p.path] = text!;
    } else if (fs.existsSync(`${store.root}/${p.path}`)) {
      await writeFile(store, gitdir, p.path, null); // still at its old blob (the loop saw it so): the checkout's removal
    }
  }
  // a relation a write made since the kill (relate, consolidate --link, ...) to a memory this
  // checkout removed (and no write kept): the merge drops a relation whose memory is gone
  // (merge-tree.ts); so does the finish
  const planned = new Set(plan.paths.map((p) => p.path));
  for (const rel of firstSeen.keys()) {
    if (kindOfPath(rel) !== "relation" || planned.has(rel)) continue;
    let text: string | null = null;
    try {
      text = fs.readFileSync(`${store.root}/${rel}`, "utf8");
    } catch {
      continue; // removed again since
    }
    if (relationEnds(text).some((id) => removedMemories.has(id) && !memoryOnDisk(store.root, id))) {
      fs.rmSync(`${store.root}/${rel}`, { force: true });
      dropped.push(rel);
    }
  }
  if (removedByHand.length > 0) {
    const n = removedByHand.length;
    appendJournal(store.fs, store.root, {
      op: "edit",
      message: `edit: ${n} file${n === 1 ? "" : "s"} an unfinished pull wrote, removed outside memsync`,
      paths: removedByHand,
      files: Object.fromEntries(removedByHand.map((p) => [p, null])),
      at: Math.floor(Date.now() / 1000),
    });
  }
  const keptPaths = Object.keys(kept);
  if (keptPaths.length > 0) {
    const n = keptPaths.length;
    appendJournal(store.fs, store.root, {
      op: "relate",
      message: `relate: ${n} relation${n === 1 ? "" : "s"} kept with a memory used or edited while a pull deleting it was unfinished`,
      paths: keptPaths,
      files: kept,
      at: Math.floor(Date.now() / 1000),
    });
  }
  if (dropped.length > 0) {
    const n = dropped.length;
    appendJournal(store.fs, store.root, {
      op: "delete",
      message: `delete: ${n} relation${n === 1 ? "" : "s"} to a memory deleted while a pull was unfinished`,
      paths: dropped,
      files: Object.fromEntries(dropped.map((p) => [p, null])),
      at: Math.floor(Date.now() / 1000),
    });
  }
  await finish(store, plan);
  return true;
}

/** Whether the memory whose file is `rel` has a file at another of its possible paths. */
function elsewhere(root: string, rel: string): boolean {
  const id = idFromFileName(rel.slice(rel.lastIndexOf("/") + 1));
  return id !== null && memoryOnDisk(root, id, rel);
}

/**
 * Ids of the memories the journal names with no file left at any of their paths (a move between
 * flat and sharded folders leaves one): removed by a write since the kill.
 */
function memoriesRemovedSince(store: Store, firstSeen: ReadonlyMap<string, string>): Set<string> {
  const out = new Set<string>();
  for (const p of firstSeen.keys()) {
    if (kindOfPath(p) !== "memory" || fs.existsSync(`${store.root}/${p}`)) continue;
    const id = idFromFileName(path.basename(p));
    if (id && !memoryOnDisk(store.root, id)) out.add(id);
  }
  return out;
}

/**
 * Write back the relations that the journal's deletes of these memories removed, as the commit the
 * checkout moves to has them: only those absent now, whose two memories both have a file, and not
 * removed again by a later entry.
 */
async function relationsBack(store: Store, plan: CheckoutPlan, memories: readonly string[]): Promise<void> {
  const gitdir = `${store.root}/.git`;
  const back = new Set(memories);
  const candidates = new Set<string>();
  const entries = readJournal(store.fs, store.root);
  entries.forEach((e, i) => {
    if (!(isDelete(e.op) || isSuccession(e.op)) || !e.paths.some((p) => back.has(p))) return;
    for (const p of e.paths) {
      // a later entry naming the relation (removed again, or made anew) decides it instead
      if (kindOfPath(p) === "relation" && !entries.slice(i + 1).some((later) => later.paths.includes(p))) candidates.add(p);
    }
  });
  for (const p of candidates) {
    if (fs.existsSync(`${store.root}/${p}`)) continue;
    const oid = await blobAt(gitdir, plan.head, p);
    const ends = relationEnds(await readBlobText(gitdir, oid));
    if (oid !== null && ends.length === 2 && ends.every((id) => memoryOnDisk(store.root, id))) await writeFile(store, gitdir, p, oid);
  }
}

/**
 * Move a pulled use of memories a consolidation or split removed since the kill to their
 * successors (the memories a journaled consolidated_from / split_from relation names as replacing
 * them), as the merge does (merge-tree.ts: carryUsage, the source's streams qualified by its id;
 * idempotent, so a finish killed again and redone counts nothing twice). The successors' files
 * are journaled by that write, so the commit takes the change.
 */
function usageToSuccessors(store: Store, codec: Codec, used: readonly { id: string; before: string | null; after: string | null }[]): void {
  const byId = new Map(used.map((u) => [u.id, u] as const));
  for (const [id, succ] of journaledSuccessors(store, new Set(byId.keys()))) {
    const u = byId.get(id)!;
    const base = parseObject(u.before);
    const kept = parseObject(u.after);
    if (!kept) continue;
    for (const s of succ) {
      const found = memoryFile(store, s);
      if (!found) continue;
      const checked = codec.validate("memory", carryUsage(found.record, id, base, kept));
      if (checked.ok && checked.text !== found.text) writeText(store, found.rel, checked.text);
    }
  }
}

/**
 * A pulled edit brought back beside the successors a consolidation or split since the kill made
 * of the old version: its streams raised to what they carry of it (record-merge.ts
 * usageBesideSuccessors, as the merge does), so a use they took meanwhile is not counted anew.
 */
function usageFromSuccessors(store: Store, codec: Codec, back: readonly { id: string; path: string }[]): void {
  const pathOf = new Map(back.map((b) => [b.id, b.path] as const));
  for (const [id, succ] of journaledSuccessors(store, new Set(pathOf.keys()))) {
    const rel = pathOf.get(id)!;
    const text = readText(`${store.root}/${rel}`);
    const record = parseObject(text);
    const records = [...succ].map((s) => memoryFile(store, s)?.record).filter((r): r is JsonObject => r !== undefined);
    if (!record || records.length === 0) continue;
    const checked = codec.validate("memory", usageBesideSuccessors(record, id, records));
    if (checked.ok && checked.text !== text) writeText(store, rel, checked.text);
  }
}

/**
 * A relation whose `gone` ends a consolidation since merged each into one memory on disk (`heirs`:
 * journaledSuccessors), moved there under its id (merge-tree.ts does the same, as consolidate does): its text, or null when an
 * end has no single heir, the relation is provenance, or both ends meet in one memory.
 */
function movedToHeir(store: Store, codec: Codec, rel: JsonObject | null, gone: readonly string[], heirs: ReadonlyMap<string, ReadonlySet<string>>): string | null {
  if (!rel || SUCCESSION.has(String(rel.relation_type))) return null;
  const ends = { from_memory_id: String(rel.from_memory_id), to_memory_id: String(rel.to_memory_id) };
  for (const end of ["from_memory_id", "to_memory_id"] as const) {
    if (!gone.includes(ends[end])) continue;
    const one = [...(heirs.get(ends[end]) ?? [])];
    if (one.length !== 1 || !memoryOnDisk(store.root, one[0]!)) return null;
    ends[end] = one[0]!;
  }
  if (ends.from_memory_id === ends.to_memory_id) return null;
  const checked = codec.validate("relation", { ...rel, ...ends });
  return checked.ok ? checked.text : null;
}

/** For each of `ids`, the memories a journaled consolidated_from / split_from relation names as replacing it. */
function journaledSuccessors(store: Store, ids: ReadonlySet<string>): Map<string, Set<string>> {
  const successors = new Map<string, Set<string>>();
  for (const e of readJournal(store.fs, store.root)) {
    if (!isSuccession(e.op)) continue;
    for (const p of e.paths) {
      if (kindOfPath(p) !== "relation") continue;
      const text = readText(`${store.root}/${p}`);
      const rel = parseObject(text);
      if (!rel || !SUCCESSION.has(String(rel.relation_type)) || typeof rel.to_memory_id !== "string" || typeof rel.from_memory_id !== "string" || !ids.has(rel.to_memory_id)) continue;
      (successors.get(rel.to_memory_id) ?? successors.set(rel.to_memory_id, new Set()).get(rel.to_memory_id)!).add(rel.from_memory_id);
    }
  }
  return successors;
}

/** A memory's file as it is on disk: where, its text, its record (none if absent or unreadable). */
function memoryFile(store: Store, id: string): { rel: string; text: string; record: JsonObject } | null {
  const rel = allCandidatePaths("memory", id).find((c) => fs.existsSync(`${store.root}/${c}`));
  const text = rel ? readText(`${store.root}/${rel}`) : null;
  const record = parseObject(text);
  return rel && text !== null && record ? { rel, text, record } : null;
}

/** The blob at a path of a commit's tree, or null. */
async function blobAt(gitdir: string, commit: string, rel: string): Promise<string | null> {
  let tree = await treeOf(gitdir, commit);
  const parts = rel.split("/");
  for (let i = 0; tree !== null && i < parts.length; i++) {
    const entry = (await readTreeEntries(gitdir, tree)).find((e) => e.path === parts[i]);
    if (!entry) return null;
    if (i === parts.length - 1) return entry.type === "blob" ? entry.oid : null;
    tree = entry.type === "tree" ? entry.oid : null;
  }
  return null;
}

/** Whether a relation's text names one of these memories (either end). */
function namesAny(text: string | null, ids: ReadonlySet<string>): boolean {
  return relationEnds(text).some((id) => ids.has(id));
}

/** A relation text's two memory ids (fewer when it does not parse or lacks one). */
function relationEnds(text: string | null): string[] {
  if (text === null) return [];
  try {
    const r = JSON.parse(text) as { from_memory_id?: unknown; to_memory_id?: unknown };
    return [r.from_memory_id, r.to_memory_id].filter((id): id is string => typeof id === "string");
  } catch {
    return [];
  }
}

// the ops whose removal of a memory is a plain delete to the merge (merge-tree.ts): it loses to a
// concurrent use or edit (gc's prune too); a consolidation's or split's has a successor and stays
const isDelete = (op: string | undefined): boolean => op === "delete" || op === DELETE_KEEPING_RELATIONS || op === "gc";
// the ops that remove a memory with successors (consolidate --apply, split): a removal that loses
// only to a concurrent content edit
const isSuccession = (op: string | undefined): boolean => op === "consolidate" || op === "split";

/**
 * Ids of the memories a delete keeping their relations removed after finding the version this
 * checkout brought: a file the checkout created (nothing else to find), or one whose first
 * journal entry is the outside edit a write journals when it finds the pulled version on disk.
 */
function deletesKeepingPulled(store: Store, plan: CheckoutPlan, firstSeen: ReadonlyMap<string, string>): Set<string> {
  const inPlan = new Map(plan.paths.map((p) => [p.path, p] as const));
  const out = new Set<string>();
  for (const e of readJournal(store.fs, store.root)) {
    if (e.op !== DELETE_KEEPING_RELATIONS) continue;
    for (const p of e.paths) {
      const step = inPlan.get(p);
      const id = idFromFileName(path.basename(p));
      if (id && kindOfPath(p) === "memory" && step && step.after !== null && (step.before === null || firstSeen.get(p) === "edit")) out.add(id);
    }
  }
  return out;
}

/** Whether a memory has a file at one of its possible paths (other than `except`). */
function memoryOnDisk(root: string, id: string, except?: string): boolean {
  return allCandidatePaths("memory", id).some((c) => c !== except && fs.existsSync(`${root}/${c}`));
}

/**
 * The kind of the first journal entry naming each path. The journal was empty when the checkout
 * began (its commit, under the same hold of the lock, took every entry), so these are all changes
 * made after the kill.
 */
function firstJournalOps(store: Store): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readJournal(store.fs, store.root)) for (const p of e.paths) if (!out.has(p)) out.set(p, e.op);
  return out;
}

/** The last journaled op per path since the last commit. */
function lastJournalOps(store: Store): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readJournal(store.fs, store.root)) for (const p of e.paths) out.set(p, e.op);
  return out;
}
