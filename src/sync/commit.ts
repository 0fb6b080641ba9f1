import fs from "node:fs";
import git from "isomorphic-git";
import { unavailable } from "../core/errors.ts";
import { recordFilePaths } from "../store/load-all.ts";
import { dropJournal, type JournalEntry, readJournal } from "../store/journal.ts";
import { LOCAL_DIR, META_FILE } from "../store/layout.ts";
import type { Store } from "../store/store.ts";
import { patchGitIndex } from "./git-index.ts";
import { writeLooseObject, writeTreeObject } from "./loose-objects.ts";
import { readTreeEntries } from "./objects.ts";
import { cacheFor } from "./objects.ts";
import type { Author } from "./repo-init.ts";

// Turning the pending-change journal into commits, built from the paths memsync knows changed:
// blobs for those files, new trees for the folders above them, a commit, the branch moved. The
// working tree is never scanned against git (with 10,000 files, isomorphic-git's statusMatrix
// costs about a second and `add .` several). One journal entry (one operation, however many
// files it touched) is one commit; runs of touches, archives and outside edits are one commit
// each. A commit holds the files as they are now, so an entry whose files a later entry changed
// again carries the later state, and one left with no change is skipped.

export interface CommitOutcome {
  commits: { oid: string; message: string; paths: string[] }[];
  head: string | null;
  /** True when every file was compared with git, not only the journaled ones (after a rescan). */
  full_compare: boolean;
}

const STATE_FILE = `${LOCAL_DIR}/committed.json`;
const TRACKED_TOP = [META_FILE, ".gitattributes", ".gitignore"];
const MERGEABLE = new Set(["touch", "archive", "edit"]);

interface Group {
  op: string;
  messages: string[];
  paths: string[];
}

/** Consecutive touches (archives, outside edits) make one commit; every other entry its own. */
function groupEntries(entries: JournalEntry[]): Group[] {
  const groups: Group[] = [];
  for (const e of entries) {
    if (e.op === "rescan") continue;
    const last = groups[groups.length - 1];
    if (last && last.op === e.op && MERGEABLE.has(e.op)) {
      last.messages.push(e.message);
      last.paths.push(...e.paths);
    } else {
      groups.push({ op: e.op, messages: [e.message], paths: [...e.paths] });
    }
  }
  return groups;
}

function groupMessage(g: Group, changed: string[]): string {
  if (g.messages.length === 1) return g.messages[0]!;
  const records = new Set(changed.map((p) => p.slice(p.lastIndexOf("/") + 1))).size;
  const noun = g.op === "edit" ? (records === 1 ? "file" : "files") : records === 1 ? "memory" : "memories";
  return g.op === "edit" ? `edit: ${records} ${noun} changed outside memsync` : `${g.op}: ${records} ${noun}`;
}

/** A view of the tree at HEAD plus the changes made so far, read lazily folder by folder. */
export class TreeModel {
  private readonly dirs = new Map<string, Map<string, { mode: string; oid: string; type: "blob" | "tree" | "commit" }>>();

  private currentRoot: string | null;

  constructor(
    private readonly dir: string,
    private readonly rootOid: string | null,
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
      return writeTreeObject(`${this.dir}/.git`, []);
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
          const oid = await writeTreeObject(`${this.dir}/.git`, tree);
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

function readState(root: string): { head: string | null } | null {
  try {
    const v = JSON.parse(fs.readFileSync(`${root}/${STATE_FILE}`, "utf8")) as { head?: unknown };
    return { head: typeof v.head === "string" ? v.head : null };
  } catch {
    return null;
  }
}

export function writeCommitState(root: string, head: string | null): void {
  fs.mkdirSync(`${root}/${LOCAL_DIR}`, { recursive: true });
  const tmp = `${root}/${STATE_FILE}.${Date.now()}-${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify({ head }, null, 2)}\n`);
  fs.renameSync(tmp, `${root}/${STATE_FILE}`);
}

/**
 * Keep git's own index in step with what memsync committed or checked out, so native
 * `git status` in the store is clean. Each call rewrites the whole index file, so many paths go
 * in one add (one rewrite).
 */
export async function syncGitIndex(dir: string, paths: Map<string, string | null>): Promise<void> {
  const changes = new Map<string, { oid: string; size: number } | null>();
  for (const [p, oid] of paths) {
    const st = oid === null ? null : fs.statSync(`${dir}/${p}`, { throwIfNoEntry: false });
    changes.set(p, oid === null ? null : { oid, size: st?.size ?? 0 });
  }
  if (await patchGitIndex(`${dir}/.git`, changes)) return;
  const present = [...paths].filter(([, oid]) => oid !== null).map(([p]) => p);
  if (present.length > 8) await git.add({ fs, dir, filepath: present });
  else for (const filepath of present) await git.updateIndex({ fs, dir, filepath, oid: paths.get(filepath)!, add: true });
  for (const [filepath, oid] of paths) if (oid === null) await git.remove({ fs, dir, filepath });
}

export async function currentBranchRef(dir: string): Promise<string> {
  try {
    const ref = await git.resolveRef({ fs, dir, ref: "HEAD", depth: 1 });
    return ref.startsWith("refs/") ? ref : "refs/heads/main";
  } catch {
    return "refs/heads/main";
  }
}

/** Commit what the journal (and, after a rescan, a full compare) says changed. */
export async function commitPending(store: Store, author: Author, nowSeconds: number): Promise<CommitOutcome> {
  const dir = store.root;
  if (!fs.existsSync(`${dir}/.git`)) throw unavailable(`${dir} is not a git repository (run: memsync init)`);
  // a full refresh: an editor that saves in place leaves its folder's mtime as it was, and only a
  // stat of every record file finds that (about 30 ms for 10,000 files; every other command
  // looks only at folders whose mtime moved)
  await store.refresh(true);
  return store.exclusive(async () => {
    const entries = readJournal(store.fs, dir);
    const branch = await currentBranchRef(dir);
    let head: string | null = null;
    try {
      head = await git.resolveRef({ fs, dir, ref: branch });
    } catch {
      head = null;
    }
    const rootTree = head ? (await git.readCommit({ fs, dir, oid: head })).commit.tree : null;
    const model = new TreeModel(dir, rootTree);
    const state = readState(dir);
    const full = entries.some((e) => e.op === "rescan") || state === null || state.head !== head;

    const groups = groupEntries(entries);
    if (full) {
      const journaled = new Set(groups.flatMap((g) => g.paths));
      const everything = new Set<string>([
        ...TRACKED_TOP.filter((p) => fs.existsSync(`${dir}/${p}`)),
        ...recordFilePaths(store.fs, dir, "memory"),
        ...recordFilePaths(store.fs, dir, "relation"),
        ...(await model.pathsUnder("memories")),
        ...(await model.pathsUnder("relations")),
      ]);
      const rest = [...everything].filter((p) => !journaled.has(p)).sort();
      if (rest.length) groups.push({ op: "edit", messages: [], paths: rest });
    }

    const commits: CommitOutcome["commits"] = [];
    const touchedPaths = new Map<string, string | null>();
    for (const g of groups) {
      const changed: string[] = [];
      for (const path of [...new Set(g.paths)].sort()) {
        let content: Uint8Array | null = null;
        // a removed file (gc removes thousands): a failed read costs an exception, a look does not
        if (fs.existsSync(`${dir}/${path}`)) {
          try {
            content = fs.readFileSync(`${dir}/${path}`);
          } catch {
            content = null;
          }
        }
        const before = touchedPaths.has(path) ? touchedPaths.get(path)! : await model.blobOid(path);
        const now = content === null ? null : (await git.hashBlob({ object: content })).oid;
        if (now === before) continue;
        if (content !== null) await writeLooseObject(`${dir}/.git`, "blob", content);
        await model.set(path, now);
        touchedPaths.set(path, now);
        changed.push(path);
      }
      if (changed.length === 0) continue;
      const tree = await model.write();
      const message = g.messages.length ? groupMessage(g, changed) : `edit: ${changed.length} file${changed.length === 1 ? "" : "s"} changed outside memsync`;
      const who = { name: author.name, email: author.email, timestamp: nowSeconds, timezoneOffset: 0 };
      head = await git.writeCommit({
        fs,
        dir,
        commit: { message: `${message}\n`, tree, parent: head ? [head] : [], author: who, committer: who },
      });
      commits.push({ oid: head, message, paths: changed });
    }

    if (commits.length && head) {
      await git.writeRef({ fs, dir, ref: branch, value: head, force: true });
      await syncGitIndex(dir, touchedPaths);
    }
    dropJournal(store.fs, dir, entries.length);
    writeCommitState(dir, head);
    return { commits, head, full_compare: full };
  });
}
