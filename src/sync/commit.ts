import { traced } from "./sync-trace.ts";
import fs from "node:fs";
import git from "isomorphic-git";
import { unavailable } from "../core/errors.ts";
import { parseJsonText } from "../core/model/validate.ts";
import type { Codec } from "../store/codec.ts";
import { recordFilePaths } from "../store/load-all.ts";
import { appendJournal, dropJournal, readJournalText, RESCAN_NO_RECORDS } from "../store/journal.ts";
import { loadSyncAll } from "../store/fs-port.ts";
import { settleRedo } from "../store/redo.ts";
import { idFromFileName, KIND_DIR, META_FILE } from "../store/layout.ts";
import type { Store } from "../store/store.ts";
import { recoverCheckout, syncGitIndex } from "./checkout.ts";
import { headBranch, readRef } from "./connectivity.ts";
import { readCommitState, writeCommitState } from "./commit-state.ts";
import { commitContent, treeContent, writeLooseObject } from "./loose-objects.ts";
import { type PackInput, type PackObjectType, PackWriter } from "./pack-write.ts";
import { objectId } from "./sha1.ts";
import { faultPoint } from "./fault.ts";
import { forgetCorruptBases, mergeWithBranch, readCorruptBases } from "./corrupt-bases.ts";
import { writeAtomic } from "../store/atomic-write.ts";
import { kindOfPath } from "./merge-file.ts";
import { refuseNativeOperation } from "./native-state.ts";
import { readTreeEntries, treeOf } from "./objects.ts";
import { writeRefAtomic } from "./refs.ts";
import type { Author } from "./repo-init.ts";
import { heartbeat } from "../store/lock-heartbeat.ts";

// Turning the pending-change journal into commits, built from the paths memsync knows changed:
// blobs for those files, new trees for the folders above them, a commit, the branch moved. The
// working tree is never scanned against git (with 10,000 files, isomorphic-git's statusMatrix
// costs about a second and `add .` several). One journal entry (one operation, however many
// files it touched) is one commit, in order, and each commit's tree is the store as that
// operation left it: an entry carries the text it left at each path, and those texts are
// applied one entry after another. An entry that changed nothing (its texts are what history
// already holds) makes no commit. Entries without texts (an older memsync's journal), and every
// entry when the branch is not where memsync left it, take the files as they are now.

export interface CommitOutcome {
  commits: { oid: string; message: string; paths: string[] }[];
  head: string | null;
  /** True when every file was compared with git, not only the journaled ones (after a rescan). */
  full_compare: boolean;
  /**
   * Record files that do not parse or validate, left out of history (which keeps their last good
   * version) and left as they are on disk.
   */
  skipped: { path: string; problem: string }[];
}

const TRACKED_TOP = [META_FILE, ".gitattributes", ".gitignore"];

/**
 * Whether a path may enter history: the store's top files and the record folders, nothing else.
 * The one place commit decides it: journal entries and the full compare both pass through here,
 * so a path outside these (machine-local state, a folder kept out of git) never reaches a commit.
 */
export function committablePath(path: string): boolean {
  if (TRACKED_TOP.includes(path)) return true;
  const parts = path.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) return false;
  return parts.length > 1 && (parts[0] === KIND_DIR.memory || parts[0] === KIND_DIR.relation);
}

const editMessage = (n: number) => `edit: ${n} file${n === 1 ? "" : "s"} changed outside memsync`;

/** One commit to make: an operation's paths and, when known, what it left at each of them. */
interface Step {
  message: string;
  paths: string[];
  files?: Record<string, string | null>;
  /** Leave out the paths an earlier step took (see RESCAN_NO_RECORDS). */
  untouchedOnly?: boolean;
  /** Its texts were checked and written by this process (an import's): not parsed again. */
  trusted?: boolean;
}

/** A view of the tree at HEAD plus the changes made so far, read lazily folder by folder. */
export class TreeModel {
  private readonly dirs = new Map<string, Map<string, { mode: string; oid: string; type: "blob" | "tree" | "commit" }>>();

  private currentRoot: string | null;

  constructor(
    private readonly dir: string,
    private readonly rootOid: string | null,
    /** Where new tree objects go (loose files by default; a commit of many objects packs them). */
    private readonly objects: ObjectSink = looseSink(`${dir}/.git`),
  ) {
    this.currentRoot = rootOid;
  }

  private async entries(path: string): Promise<Map<string, { mode: string; oid: string; type: "blob" | "tree" | "commit" }>> {
    const known = this.dirs.get(path);
    if (known) return known;
    let oid: string | null = null;
    if (path === "") oid = this.rootOid;
    else {
      const parentPath = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
      const parent = await this.entries(parentPath);
      const e = parent.get(path.slice(path.lastIndexOf("/") + 1));
      oid = e?.type === "tree" ? e.oid : null;
    }
    const map = new Map<string, { mode: string; oid: string; type: "blob" | "tree" | "commit" }>();
    if (oid) for (const e of await readTreeEntries(`${this.dir}/.git`, oid)) map.set(e.path, { mode: e.mode, oid: e.oid, type: e.type });
    this.dirs.set(path, map);
    return map;
  }

  async blobOid(path: string): Promise<string | null> {
    const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
    const e = (await this.entries(folder)).get(path.slice(path.lastIndexOf("/") + 1));
    return e?.type === "blob" ? e.oid : null;
  }

  /** Every blob path under a folder of HEAD's tree (for a full compare). */
  async pathsUnder(folder: string): Promise<string[]> {
    const out: string[] = [];
    for (const [name, e] of await this.entries(folder)) {
      const p = folder ? `${folder}/${name}` : name;
      if (e.type === "tree") out.push(...(await this.pathsUnder(p)));
      else out.push(p);
    }
    return out;
  }

  async set(path: string, oid: string | null): Promise<void> {
    const parts = path.split("/");
    const name = parts.pop()!;
    const folder = parts.join("/");
    // load every folder on the way down, so write() knows each one
    for (let i = 0; i <= parts.length; i++) await this.entries(parts.slice(0, i).join("/"));
    const map = await this.entries(folder);
    if (oid === null) map.delete(name);
    else map.set(name, { mode: "100644", oid, type: "blob" });
    this.dirty.add(folder);
  }

  private readonly dirty = new Set<string>();

  /** Write the changed folders bottom-up; returns the root tree (unchanged when nothing changed). */
  async write(): Promise<string> {
    if (this.dirty.size === 0) {
      if (this.currentRoot) return this.currentRoot;
      return this.objects.put("tree", treeContent([]));
    }
    const depth = (p: string) => (p === "" ? 0 : p.split("/").length);
    const pending = new Set<string>();
    for (const d of this.dirty) {
      const parts = d === "" ? [] : d.split("/");
      for (let i = parts.length; i >= 0; i--) pending.add(parts.slice(0, i).join("/"));
    }
    let root = "";
    // every folder involved is loaded first (pending holds each one's parents too), so the
    // writes below only change maps already known; then deepest first, one depth at a time
    // (the folders of one depth are independent, so they are written together)
    for (const folder of pending) await this.entries(folder);
    const levels = new Map<number, string[]>();
    for (const folder of pending) levels.set(depth(folder), [...(levels.get(depth(folder)) ?? []), folder]);
    for (const level of [...levels.keys()].sort((a, b) => b - a)) {
      await Promise.all(
        levels.get(level)!.map(async (folder) => {
          const map = await this.entries(folder);
          const tree = [...map].map(([path, e]) => ({ mode: e.mode, path, oid: e.oid, type: e.type }));
          const name = folder.slice(folder.lastIndexOf("/") + 1);
          const parentPath = folder.includes("/") ? folder.slice(0, folder.lastIndexOf("/")) : "";
          if (folder !== "" && tree.length === 0) {
            (await this.entries(parentPath)).delete(name);
            return;
          }
          const oid = await this.objects.put("tree", treeContent(tree));
          if (folder === "") root = oid;
          else (await this.entries(parentPath)).set(name, { mode: "040000", oid, type: "tree" });
        }),
      );
    }
    this.dirty.clear();
    this.currentRoot = root;
    return root;
  }
}

/** Where a commit's new objects are written; put returns the object's id. */
export interface ObjectSink {
  put(type: PackObjectType, content: Uint8Array): Promise<string>;
}

/** Each object a loose file at once (the usual few). */
export function looseSink(gitdir: string): ObjectSink {
  return { put: (type, content) => writeLooseObject(gitdir, type, content) };
}

/**
 * A commit writing at least this many objects puts them in one pack: a loose file each (create,
 * write, rename) cost seconds for an import of 10,000 records; fewer stay loose (no pile of
 * small packs from everyday commits).
 */
export const PACK_THRESHOLD = 256;

/**
 * Objects written before any ref moves: the first PACK_THRESHOLD are held in memory; a commit
 * that reaches that many streams them, and every later one, into one pack as they come (only ids
 * and offsets stay in memory: an import of 50,000 records held its whole pack before); fewer are
 * written by flush as loose files in the order they came (children first). Each id once.
 */
class BatchSink implements ObjectSink {
  private readonly held = new Map<string, PackInput>();
  private readonly seen = new Set<string>();
  private pack: PackWriter | null = null;
  constructor(private readonly gitdir: string) {}
  put(type: PackObjectType, content: Uint8Array): Promise<string> {
    const oid = objectId(type, content);
    if (this.seen.has(oid)) return Promise.resolve(oid);
    this.seen.add(oid);
    if (this.pack) this.pack.add(oid, type, content);
    else {
      this.held.set(oid, { oid, type, content });
      if (this.held.size >= PACK_THRESHOLD) {
        this.pack = new PackWriter(this.gitdir);
        for (const o of this.held.values()) this.pack.add(o.oid, o.type, o.content);
        this.held.clear();
      }
    }
    return Promise.resolve(oid);
  }
  async flush(): Promise<void> {
    if (this.pack) this.pack.finish();
    else for (const o of this.held.values()) await writeLooseObject(this.gitdir, o.type, o.content);
    this.held.clear();
    this.pack = null;
  }
  /** Drop what was not flushed (the temp pack, if any). */
  abort(): void {
    this.pack?.abort();
    this.pack = null;
  }
}

export { writeCommitState } from "./commit-state.ts";
export { syncGitIndex } from "./checkout.ts";

/** The branch HEAD names (read from the file, as git does; isomorphic-git's resolveRef cost ~1 ms a call); refs/heads/main when detached or unset. */
export async function currentBranchRef(dir: string): Promise<string> {
  return headBranch(`${dir}/.git`) ?? "refs/heads/main";
}

const dec = new TextDecoder();

/**
 * Why a file memsync would commit is not a valid record (it does not parse or validate), or null.
 * Files that are not records (.gitattributes, a file name that is not an id) are not judged.
 */
function problemOf(codec: Codec, path: string, content: Uint8Array): string | null {
  const kind = kindOfPath(path);
  if (kind === null) return null;
  const text = dec.decode(content);
  if (kind === "meta") {
    if (path !== META_FILE) return null;
    const json = parseJsonText(text);
    if (!json.ok) return json.problem;
    const checked = codec.validate("meta", json.value);
    return checked.ok ? null : `invalid store metadata: ${checked.problem}`;
  }
  const id = idFromFileName(path.slice(path.lastIndexOf("/") + 1));
  if (!id) return null;
  const r = codec.parseRecordText(kind, text, id);
  if (!r.ok) return r.problem;
  // a memory marked local by hand in a shared folder: its text must not leave the machine
  if (kind === "memory" && (r.record as { scope?: string }).scope === "local") return `scope local in a shared folder (memsync update ${id} --scope local moves it out of git)`;
  return null;
}

/**
 * Commit what the journal (and, after a rescan, a full compare) says changed. Refuses (exit 5)
 * while native git is in the middle of a merge, rebase or cherry-pick.
 */
export async function commitPending(store: Store, author: Author, nowSeconds: number): Promise<CommitOutcome> {
  const dir = store.root;
  if (!fs.existsSync(`${dir}/.git`)) throw unavailable(`${dir} is not a git repository (run: memsync init)`);
  return store.exclusive(() => commitLocked(store, author, nowSeconds, { full: true }));
}

export interface CommitOptions {
  /** Stat every record file (the commit command), not only the folders whose mtime moved. */
  full?: boolean;
  /**
   * The texts of the `fill` journal entry this process wrote and holds in memory (an import
   * committing itself, journal-fill.ts): its commit is made from them, unchecked (the import
   * validated every record it wrote).
   */
  fillTexts?: Map<string, string | null>;
}

/**
 * The commit itself; the caller holds the store's write lock (a sync commits and merges under
 * one hold, so nothing written in between can be overwritten by the merge). A checkout a killed
 * pull left is finished first. Record files that do not parse or validate are left out: history
 * keeps their last good version, the file stays as it is, and the outcome lists it (skipped).
 */
export async function commitLocked(store: Store, author: Author, nowSeconds: number, opts: CommitOptions = {}): Promise<CommitOutcome> {
  const dir = store.root;
  const gitdir = `${dir}/.git`;
  if (!fs.existsSync(gitdir)) throw unavailable(`${dir} is not a git repository (run: memsync init)`);
  refuseNativeOperation(dir);
  const recovered = await traced("commit.recover-checkout", () => recoverCheckout(store));
  // `full` (the commit command, like `git commit -a`): a stat of every record file, which is what
  // finds an edit an editor saved in place (its folder's mtime stays as it was). A sync's commit
  // looks only into folders whose mtime moved (git's racily-clean rule): an edit in place is
  // committed once a status or a commit command has seen it, and a pull first stats the files it
  // is about to write (exchange.ts), so it never overwrites one
  await traced("commit.refresh", () => store.refresh(opts.full === true));
  const codec = await store.codec();
  const journal = readJournalText(store.fs, dir);
  const entries = journal.entries;
  const branch = await currentBranchRef(dir);
  let head: string | null = null;
  try {
    head = readRef(gitdir, branch) ?? (await git.resolveRef({ fs, dir, ref: branch }));
  } catch {
    head = null;
  }
  const rootTree = await treeOf(gitdir, head);
  const objects = new BatchSink(gitdir);
  try {
    const model = new TreeModel(dir, rootTree, objects);
    const state = readCommitState(dir);
    const moved = state === null || state.head !== head;
    const rescans = entries.filter((e) => e.op === "rescan");
    const full = rescans.length > 0 || moved;
    // the texts an entry carries were left on top of the history memsync knew; when native git
    // moved the branch, or a pull's checkout was finished just now (it may have merged into files
    // written since), they describe a different base: take the files as they are instead
    const useTexts = !moved && !recovered;

    const steps: Step[] = entries
      .filter((e) => e.op !== "rescan")
      .map((e): Step => {
        if (useTexts && e.fill && opts.fillTexts) return { message: e.message, paths: e.paths, files: { ...e.files, ...Object.fromEntries(opts.fillTexts) }, trusted: true };
        return { message: e.message, paths: e.paths, ...(useTexts && e.files ? { files: e.files } : {}) };
      });
    if (full) {
      // after every entry, everything else: each file compared with what history then holds
      const everything = new Set<string>([
        ...TRACKED_TOP.filter((p) => fs.existsSync(`${dir}/${p}`)),
        ...recordFilePaths(store.fs, dir, "memory"),
        ...recordFilePaths(store.fs, dir, "relation"),
        ...(await model.pathsUnder(KIND_DIR.memory)),
        ...(await model.pathsUnder(KIND_DIR.relation)),
      ]);
      // an index made over empty record folders: what an entry took is what it left on disk
      const untouchedOnly = useTexts && rescans.length > 0 && rescans.every((e) => e.message === RESCAN_NO_RECORDS);
      steps.push({ message: "", paths: [...everything].sort(), untouchedOnly });
    } else {
      // the store's top files lie outside the record folders a refresh looks into: a change no
      // entry names (.meta.json edited by hand, or left by a maintenance command killed after it
      // recorded its maintainer and before its entry: chaos seed 1251454907, a clone's .meta.json
      // never committed) is found by comparing the three small files with history every commit
      steps.push({ message: "", paths: TRACKED_TOP, untouchedOnly: true });
    }

    const commits: CommitOutcome["commits"] = [];
    const bases = readCorruptBases(dir);
    const basesDone: string[] = [];
    const rewritten: string[] = [];
    const skipped = new Map<string, string>();
    const touchedPaths = new Map<string, string | null>();
    for (const step of steps) {
      const changed: string[] = [];
      for (const path of [...new Set(step.paths)].sort()) {
        heartbeat(); // (a full compare reads and parses every record file, under the store's lock)
        if (!committablePath(path)) continue;
        if (step.untouchedOnly && touchedPaths.has(path)) continue;
        // (a corrupt file a pull left alone, corrupt-bases.ts: only edits by hand changed it since,
        // and the file itself is what gets merged, once)
        const kept = Object.hasOwn(bases, path);
        const given = !kept && step.files !== undefined && Object.hasOwn(step.files, path);
        let content = given ? textBytes(step.files![path]!) : readWorkingFile(dir, path);
        const before = touchedPaths.has(path) ? touchedPaths.get(path)! : await model.blobOid(path);
        let now = content === null ? null : objectId("blob", content);
        if (now === before) {
          // as history has it: a file skipped by an earlier step (a corrupt text an older entry
          // carried) was restored since, e.g. with git checkout -- FILE, and is not reported again
          skipped.delete(path);
          if (kept && !basesDone.includes(path)) basesDone.push(path);
          continue;
        }
        const problem = content === null || (given && step.trusted) ? null : problemOf(codec, path, content);
        if (problem !== null) {
          skipped.set(path, problem);
          continue;
        }
        if (kept && !basesDone.includes(path)) {
          // a corrupt file a pull left alone is good again: merged with what the branch took
          // meanwhile, never committed over it (corrupt-bases.ts)
          basesDone.push(path);
          const text = content === null ? null : dec.decode(content);
          const merged = text === null ? null : await mergeWithBranch(codec, gitdir, path, bases[path]!, text, before);
          if (text !== null && merged !== null && merged !== text) {
            const slash = path.lastIndexOf("/");
            writeAtomic(store.fs, slash < 0 ? dir : `${dir}/${path.slice(0, slash)}`, path.slice(slash + 1), merged);
            rewritten.push(path);
            content = enc.encode(merged);
            now = objectId("blob", content);
            if (now === before) {
              skipped.delete(path);
              continue;
            }
          }
        }
        if (content !== null) await objects.put("blob", content);
        await model.set(path, now);
        touchedPaths.set(path, now);
        skipped.delete(path); // a later state of a file skipped before is good again
        changed.push(path);
      }
      if (changed.length === 0) continue;
      const tree = await model.write();
      const message = step.message || editMessage(changed.length);
      head = await objects.put("commit", commitContent({ tree, parents: head ? [head] : [], author: { ...author, timestamp: nowSeconds }, message }));
      commits.push({ oid: head, message, paths: changed });
    }

    if (commits.length && head) {
      await objects.flush();
      // git's index first: an index ahead of the branch shows staged changes equal to the files,
      // one behind it would make a native `git commit` delete what the index lacks
      await syncGitIndex(dir, touchedPaths);
      faultPoint("commit-index");
      writeRefAtomic(gitdir, branch, head);
      faultPoint("commit-ref");
    }
    // the files of the entries about to go are made durable first: until now their lines were
    // their only durable copy (store/redo.ts)
    await loadSyncAll();
    settleRedo(store.fs, dir, entries);
    dropJournal(store.fs, dir, entries.length, journal.text);
    // a skipped file is looked at again by every commit (and reported) until it is fixed or
    // removed: journaled without a text, so the next commit reads it from disk
    if (skipped.size) {
      const paths = [...skipped.keys()].sort();
      appendJournal(store.fs, dir, { op: "edit", message: editMessage(paths.length), paths, at: nowSeconds });
    }
    writeCommitState(dir, head);
    if (basesDone.length) forgetCorruptBases(dir, basesDone);
    // the merged files this commit wrote are committed: the index takes them as they are
    if (rewritten.length) await store.absorb(rewritten);
    return { commits, head, full_compare: full, skipped: [...skipped].sort(([a], [b]) => (a < b ? -1 : 1)).map(([path, problem]) => ({ path, problem })) };
  } finally {
    // a commit that failed before its flush leaves no temp pack behind
    objects.abort();
  }
}

const enc = new TextEncoder();

function textBytes(text: string | null): Uint8Array | null {
  return text === null ? null : enc.encode(text);
}

/** A working file's bytes, or null when there is none (gc removes thousands: a look costs less than a failed read). */
function readWorkingFile(dir: string, path: string): Uint8Array | null {
  if (!fs.existsSync(`${dir}/${path}`)) return null;
  try {
    return fs.readFileSync(`${dir}/${path}`);
  } catch {
    return null;
  }
}
