import fs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import { isMemsyncError, unavailable } from "../core/errors.ts";
import { msKnob } from "../runtime/ms-knob.ts";
import { candidatePaths, idFromFileName, isMachineLocalPath, LOCAL_RECORDS } from "../store/layout.ts";
import type { Store } from "../store/store.ts";
import { applyCheckout, syncGitIndex } from "./checkout.ts";
import { currentBranchRef, TreeModel, writeCommitState } from "./commit.ts";
import { writeCommitObject, writeLooseObject } from "./loose-objects.ts";
import { writeRefAtomic } from "./refs.ts";
import { kindOfPath } from "./merge-file.ts";
import { mergeTrees, SUCCESSION, type Versions } from "./merge-tree.ts";
import { descendsFrom, mergeBases } from "./commit-graph.ts";
import { basicAuth, commitsOnlyFrom, sendPack } from "./http-push.ts";
import { copyObjects, objectsOnlyFrom } from "./push-objects.ts";
import { copyReachable, diffTrees, readBlobText, resolve as resolveThroughGit, treeOf } from "./objects.ts";
import { readRef } from "./connectivity.ts";
import type { Author } from "./repo-init.ts";
import { type Credentials, tokenFor } from "./credentials.ts";
import type { HttpClient } from "./http-client.ts";
import { fetchFs } from "./fetch-fs.ts";
import { withAdvertisedHead } from "./advertised-head.ts";
import { rememberCorruptBases } from "./corrupt-bases.ts";
import { progress } from "./progress.ts";
import { traced, traceNote } from "./sync-trace.ts";
import { getRemote, type Remote, type RemoteOptions } from "./remote.ts";

// pull and push. pull = fetch, then a fast-forward or memsync's merge (merge-tree.ts), then the
// working files; push = send, and on a remote that moved, pull and try again (bounded, with
// jitter). A remote on a local path is reached by copying objects between the object stores
// and moving its branch with git's own lock-file protocol, so it stays safe with native git and
// with other memsync processes pushing at the same time. HTTP remotes are the next step.

export interface PullResult {
  mode: "up-to-date" | "fast-forward" | "merge" | "empty-remote";
  /** Commits of the remote's branch the local branch did not have (0 when up to date). */
  commits_in: number;
  memories_added: number;
  memories_changed: number;
  memories_removed: number;
  conflicts_resolved: number;
  text_conflicts: string[];
  /** Corrupt local files not committed: the merge's version is in history, the file is left as it is. */
  skipped: string[];
  /**
   * Records of scope local here that the pull brought back into the shared folders (another
   * machine used them while this one made them local): the shared copies were removed again.
   */
  kept_local: string[];
  head: string | null;
}

export interface PushResult {
  pushed: boolean;
  /** Commits the remote did not have. */
  commits_out: number;
  attempts: number;
  head: string | null;
  pulled: PullResult[];
}

const TRACKING = "refs/remotes/origin/main";

/** memsync's own HTTP client (http-client.ts): redirects never carry the token to another origin. */
async function httpClient(creds: Credentials) {
  return (await import("./http-client.ts")).httpClient(creds.httpIdleMs);
}

function branchName(ref: string): string {
  return ref.replace(/^refs\/heads\//, "");
}

function httpAuth(remote: Remote & { kind: "http" }, creds: Credentials) {
  const token = tokenFor(remote.url, creds);
  return {
    onProgress: (e: { phase: string; loaded: number; total?: number }) => progress(e.phase, e.loaded, e.total),
    // only ever for the remote's own origin (isomorphic-git asks with the remote's URL)
    onAuth: (url: string) => (token && new URL(url).origin === new URL(remote.url).origin ? { username: "x-access-token", password: token } : { cancel: true }),
    onAuthFailure: () => ({ cancel: true }),
  };
}

/** Network trouble of any kind is "unavailable": nothing local is lost, sync again later. */
function networkError(e: unknown, url: string, http: HttpClient): never {
  if (isMemsyncError(e)) throw e;
  const stall = http.stallError();
  if (stall) throw stall; // (isomorphic-git wraps what a response body throws)
  const code = (e as { code?: string }).code ?? "";
  const msg = e instanceof Error ? e.message : String(e);
  if (/HttpError|UserCanceled/.test(code) || /401|403/.test(msg)) throw unavailable(`the remote refused access (${url}): set MEMSYNC_GIT_TOKEN or a credentials file`);
  throw unavailable(`the remote cannot be reached (${url}): ${msg.split("\n")[0]}`);
}

/** Bring the remote's branch into the local object store; returns its commit (null: empty). */
async function fetchTheirs(dir: string, remote: Remote, ref: string, creds: Credentials): Promise<{ theirs: string | null }> {
  if (remote.kind === "local") {
    const theirs = await resolve(remote.gitdir, ref);
    if (!theirs) return { theirs: null };
    await copyReachable(remote.gitdir, `${dir}/.git`, theirs);
    // (unchanged, the usual case of a push's sync: no rewrite and fsync of the same id)
    if ((await resolve(`${dir}/.git`, TRACKING)) !== theirs) writeRefAtomic(`${dir}/.git`, TRACKING, theirs);
    return { theirs };
  }
  const http = withAdvertisedHead(await httpClient(creds), ref);
  try {
    const before = await resolve(`${dir}/.git`, TRACKING);
    // isomorphic-git tells the server it "has" the commit of `ref` only (no history walk). The
    // local branch is often a commit the server has never seen (a local commit, a merge not yet
    // pushed), and then the server sends the whole history, every time, growing with it; the
    // tracking ref is what the server last had, so it receives only what is new since.
    const have = before ? TRACKING : branchName(ref);
    const r = await git.fetch({ fs: fetchFs(`${dir}/.git`), http, dir, url: remote.url, ref: have, remoteRef: branchName(ref), singleBranch: true, tags: false, ...httpAuth(remote, creds) });
    const stall = http.stallError();
    if (stall) throw stall; // the tracking ref never names a fetch cut short
    const theirs = r.fetchHead ?? null;
    if (theirs) writeRefAtomic(`${dir}/.git`, TRACKING, theirs);
    return { theirs };
  } catch (e) {
    // (an empty repository is not an error: fetchHead comes back null)
    if ((e as { code?: string }).code === "NotFoundError" && /HEAD/.test(String(e))) {
      throw unavailable(`the remote's HEAD names no branch (${remote.url}): make main its default branch`);
    }
    networkError(e, remote.url, http);
  }
}

/** The commit a ref names: its file or packed-refs read here, anything else (a symbolic ref) through isomorphic-git. */
async function resolve(gitdir: string, ref: string): Promise<string | null> {
  return readRef(gitdir, ref) ?? resolveThroughGit(gitdir, ref);
}

function countChanges(result: PullResult, changes: Map<string, { before: string | null; after: string | null }>): void {
  for (const [p, c] of changes) {
    if (kindOfPath(p) !== "memory") continue;
    if (c.before === null && c.after !== null) result.memories_added++;
    else if (c.before !== null && c.after === null) result.memories_removed++;
    else if (c.before !== c.after) result.memories_changed++;
  }
}

/**
 * What runs under the store's write lock right before a merge, in the same hold: the commit of
 * every pending change. It returns the paths whose files must be left alone (corrupt files it
 * did not commit).
 */
export type LocalStep = () => Promise<{ keep: readonly string[] }>;

/**
 * Fetch from the remote (outside the store's write lock: writers are not held up by the network),
 * then, under one hold of the lock, commit what is pending (`local`) and merge: anything written
 * before the hold is committed and merged, anything after it waits for the hold to end.
 */
export async function pull(store: Store, author: Author, nowSeconds: number, creds: Credentials, local: LocalStep): Promise<PullResult> {
  const remote = await getRemote(store.root);
  const ref = await currentBranchRef(store.root);
  const { theirs } = await traced("pull.fetch", () => fetchTheirs(store.root, remote, ref, creds));
  const asked = performance.now();
  return store.exclusive(async () => {
    traceNote("pull.lock-wait", `wall=${(performance.now() - asked).toFixed(0)}`);
    for (let attempt = 1; ; attempt++) {
      const { keep } = await traced("pull.commit", local);
      const r = await traced("pull.integrate", () => integrate(store, ref, theirs, author, nowSeconds, new Set(keep), attempt < EDIT_CHECKS));
      if (r !== "edited") return r;
    }
  });
}

/** How many times a pull commits edits found in place under the files it is about to write, and merges again. */
const EDIT_CHECKS = 3;

/**
 * Merge a fetched commit into the branch and the files (the caller holds the write lock and
 * committed first). "edited": `checkEdits` found files the checkout would overwrite edited in
 * place since the index saw them (the commit's quick refresh looks only into folders whose mtime
 * moved); they are journaled, and the caller commits and merges again.
 */
async function integrate(store: Store, ref: string, theirs: string | null, author: Author, nowSeconds: number, keep: Set<string>, checkEdits: boolean): Promise<PullResult | "edited"> {
  const dir = store.root;
  const gitdir = `${dir}/.git`;
  const result: PullResult = { mode: "up-to-date", commits_in: 0, memories_added: 0, memories_changed: 0, memories_removed: 0, conflicts_resolved: 0, text_conflicts: [], skipped: [], kept_local: [], head: null };
  const ours = await resolve(gitdir, ref);
  result.head = ours;
  if (!theirs) {
    result.mode = "empty-remote";
    return result;
  }
  // one walk near the tips tells all three cases apart: theirs is in our history (nothing to do),
  // ours in theirs (fast-forward), or neither (merge on the base)
  const bases = ours && ours !== theirs ? await traced("integrate.merge-bases", () => mergeBases(gitdir, ours, theirs)) : [];
  if (ours === theirs || (bases.length === 1 && bases[0] === theirs)) return result;
  // the commits this pull brings into the branch: theirs not in our history (the same count
  // whatever the transport, and however many objects it copied)
  result.commits_in = (await traced("integrate.count-in", () => commitsOnlyFrom(gitdir, theirs, ours))).commits.length;

  const changes = new Map<string, { before: string | null; after: string | null }>();
  let head: string;
  if (!ours || (bases.length === 1 && bases[0] === ours)) {
    result.mode = "fast-forward";
    const diff = await traced("integrate.diff", async () => diffTrees(gitdir, await treeOf(gitdir, ours), await treeOf(gitdir, theirs)));
    for (const [p, c] of diff) changes.set(p, { before: c.a, after: c.b });
    head = theirs;
  } else {
    result.mode = "merge";
    const [base] = bases;
    const baseTree = await treeOf(gitdir, base ?? null);
    const oursTree = await treeOf(gitdir, ours);
    const dOurs = await traced("integrate.diff", () => diffTrees(gitdir, baseTree, oursTree));
    const dTheirs = await traced("integrate.diff", async () => diffTrees(gitdir, baseTree, await treeOf(gitdir, theirs)));
    const versions = new Map<string, Versions>();
    const oids = new Map<string, { ours: string | null }>();
    await traced("integrate.read-versions", async () => {
      for (const p of new Set([...dOurs.keys(), ...dTheirs.keys()])) {
        const baseOid = (dOurs.get(p) ?? dTheirs.get(p))!.a;
        const oursOid = dOurs.has(p) ? dOurs.get(p)!.b : baseOid;
        const theirsOid = dTheirs.has(p) ? dTheirs.get(p)!.b : baseOid;
        versions.set(p, { base: await readBlobText(gitdir, baseOid), ours: await readBlobText(gitdir, oursOid), theirs: await readBlobText(gitdir, theirsOid) });
        oids.set(p, { ours: oursOid });
      }
    });
    const model = new TreeModel(dir, oursTree);
    const codec = await store.codec();
    const merged = await traced("integrate.merge", () => mergeTrees(codec, {
      changed: versions,
      unchangedMemoryExists: async (id) => {
        for (const p of candidatePaths("memory", id)) if (await model.blobOid(p)) return true;
        return false;
      },
      successionsTo: (ids) => store.relationsOfTypesTo([...SUCCESSION], ids),
      unchangedMemoryText: async (id) => {
        for (const p of candidatePaths("memory", id)) {
          const oid = await model.blobOid(p);
          if (oid) return readBlobText(gitdir, oid);
        }
        return null;
      },
    }));
    await traced("integrate.write-merged", async () => {
      for (const [p, r] of merged) {
        if (r.how === "merged" || r.how === "restored" || r.how === "kept-deleted") result.conflicts_resolved++;
        if (!r.clean) result.text_conflicts.push(p);
        const before = oids.get(p)!.ours;
        const after = r.text === null ? null : await writeLooseObject(gitdir, "blob", new TextEncoder().encode(r.text));
        if (before === after) continue;
        await model.set(p, after);
        changes.set(p, { before, after });
      }
    });
    const tree = await traced("integrate.write-trees", () => model.write());
    const n = changes.size;
    head = await writeCommitObject(gitdir, { tree, parents: [ours, theirs], author: { ...author, timestamp: nowSeconds }, message: `merge: ${n} change${n === 1 ? "" : "s"} from the remote` });
  }
  const paths = [...changes].map(([p, c]) => ({ path: p, before: c.before, after: c.after, ...(keep.has(p) ? { keep: true } : {}) }));
  result.skipped = paths.filter((p) => p.keep).map((p) => p.path);
  const written = paths.filter((p) => !p.keep).map((p) => p.path);
  // a stat of only the files about to be written (no stat of every record file on every sync)
  if (checkEdits && (await traced("integrate.refresh-paths", () => store.refreshPaths(written))).length) return "edited";
  // corrupt files left alone while the branch moves their path: what they were written on
  const keptMoved = paths.filter((p) => p.keep && p.before !== p.after);
  if (keptMoved.length) rememberCorruptBases(dir, keptMoved);
  await traced("integrate.checkout", () => applyCheckout(store, { ref, from: ours, head, paths }));
  await traced("integrate.absorb", () => store.absorb(written));
  result.kept_local = await traced("integrate.keep-local", () => keepLocalRecords(store, [...changes].filter(([, c]) => c.after !== null).map(([p]) => p)));
  countChanges(result, changes);
  result.head = head;
  return result;
}

/**
 * After a pull: a record the pull wrote to the shared folders that this machine keeps local (the
 * merge restored it: another machine used it while this one made it local) loses its shared
 * copy again, and a shared relation naming a local memory becomes local. One change, committed
 * by the next commit (sync commits it before it pushes). Nothing to do on a store that has no
 * local record (one stat).
 */
async function keepLocalRecords(store: Store, paths: string[]): Promise<string[]> {
  if (!fs.existsSync(`${store.root}/${LOCAL_RECORDS}`)) return [];
  const records = paths.flatMap((p) => {
    const kind = kindOfPath(p);
    const id = idFromFileName(p.slice(p.lastIndexOf("/") + 1));
    return (kind === "memory" || kind === "relation") && id && !isMachineLocalPath(p) ? [{ kind, id }] : [];
  });
  // a memory is kept local only where it has a local copy (a stat or two each): without one, no
  // write (whose refresh would look at every record folder of the store) is needed for it
  const candidates = records.filter((r) => r.kind === "relation" || candidatePaths("memory", r.id, "local").some((p) => fs.existsSync(`${store.root}/${p}`)));
  if (candidates.length === 0) return [];
  return store.write((tx) => {
    const kept = candidates.filter((r) => tx.keepLocal(r.kind, r.id)).map((r) => r.id);
    const n = kept.length;
    const message = `update: ${n} record${n === 1 ? "" : "s"} kept on this machine only (scope local; the remote had brought ${n === 1 ? "it" : "them"} back)`;
    tx.note("update", message, message);
    return kept;
  });
}

/** A push's pull: local records it brought back lose their shared copy in a commit of their own, pushed next. */
async function pullAndKeepLocal(store: Store, author: Author, nowSeconds: number, creds: Credentials, local: LocalStep): Promise<PullResult> {
  const pulled = await pull(store, author, nowSeconds, creds, local);
  if (pulled.kept_local.length) await store.exclusive(local);
  return pulled;
}

const STALE_LOCK_MS = 10_000;

/**
 * A ref is locked for milliseconds: a lock older than STALE_LOCK_MS was left by a process that was
 * killed, and would refuse every push for ever. It is moved aside and dropped, unless what was
 * moved is not the stale file (another process took a fresh lock meanwhile): that goes back.
 */
function removeStaleLock(lock: string): void {
  const st = fs.statSync(lock, { throwIfNoEntry: false });
  if (!st || Date.now() - st.mtimeMs <= STALE_LOCK_MS) return;
  const aside = `${lock}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    fs.renameSync(lock, aside);
  } catch {
    return; // gone already
  }
  if (fs.statSync(aside).ino !== st.ino) {
    try {
      fs.linkSync(aside, lock);
    } catch {
      // a third process holds the lock now; the one we moved will find its lock gone and fail, not corrupt
    }
  }
  fs.rmSync(aside, { force: true });
}

/**
 * Move the remote's branch from `expected` to `value`, the way git does: take `<ref>.lock` with an
 * exclusive create, check the branch is still where we saw it, write, rename over. false: it moved.
 */
function casRef(gitdir: string, ref: string, expected: string | null, value: string, current: (gitdir: string) => Promise<string | null>): Promise<boolean> {
  const file = `${gitdir}/${ref}`;
  const lock = `${file}.lock`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return (async () => {
    let fd: number | undefined;
    for (let i = 0; i < 200 && fd === undefined; i++) {
      try {
        fd = fs.openSync(lock, "wx");
      } catch (e) {
        if ((e as { code?: string }).code !== "EEXIST") throw e;
        removeStaleLock(lock);
        await new Promise((r) => setTimeout(r, 10 + Math.random() * 20));
      }
    }
    if (fd === undefined) return false;
    try {
      if ((await current(gitdir)) !== expected) {
        fs.closeSync(fd);
        fd = undefined;
        fs.unlinkSync(lock);
        return false;
      }
      fs.writeSync(fd, `${value}\n`);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fd = undefined;
      fs.renameSync(lock, file);
      return true;
    } catch (e) {
      if (fd !== undefined) fs.closeSync(fd);
      try {
        fs.unlinkSync(lock);
      } catch {
        // gone already
      }
      throw e;
    }
  })();
}

/**
 * How long a push keeps retrying against a remote that keeps moving: no new attempt starts after
 * this (besides the count of attempts), so a sync that keeps losing the race to faster machines
 * ends on a loaded one too, with its commits kept for the next sync. It counts from when the sync
 * was asked, its wait for another sync of the store and its pull included: a sync queued behind
 * others in a burst (each of them retrying for up to this long) used to start a whole budget of
 * its own after its wait, and ran past five minutes. (MEMSYNC_PUSH_RETRY_BUDGET_MS: for tests; a
 * value that is not a whole number of milliseconds is refused, as the sync's callers read it first.)
 */
export function pushRetryBudgetMs(): number {
  return msKnob("MEMSYNC_PUSH_RETRY_BUDGET_MS", 120_000);
}

export interface PushOptions {
  maxAttempts?: number;
  /** When the sync was asked (Date.now()): the retry budget counts from then. Default: when the push began. */
  askedAt?: number;
  /** The retry budget (ms); default pushRetryBudgetMs(). */
  budgetMs?: number;
}

/** The attempts of one push: whether another may start (within the count and the time budget), and how it gave up. */
class Attempts {
  readonly began = Date.now();
  readonly asked: number;
  constructor(readonly max: number, askedAt: number | undefined, readonly budgetMs: number) {
    this.asked = Math.min(askedAt ?? this.began, this.began);
  }

  mayStart(attempt: number): boolean {
    return attempt <= this.max && (attempt === 1 || Date.now() - this.asked < this.budgetMs);
  }

  gaveUp(attempts: number): never {
    const secs = (ms: number) => Math.round(ms / 1000);
    const before = this.began - this.asked;
    const waited = before >= 1000 ? ` (the sync had run ${secs(before)} s before its push: a wait for another sync of this store, its pull)` : "";
    throw unavailable(`push gave up after ${attempts} attempt${attempts === 1 ? "" : "s"} in ${secs(Date.now() - this.asked)} s${waited}: the remote kept moving; nothing is lost, run sync again`);
  }
}

/**
 * Send local commits (outside the store's write lock); when the remote moved on, pull (commit
 * pending changes and merge, under one hold of the lock) and try again.
 */
export async function push(store: Store, author: Author, nowSeconds: number, creds: Credentials, local: LocalStep, opts: PushOptions = {}): Promise<PushResult> {
  const remote = await getRemote(store.root);
  const tries: Attempts = new Attempts(opts.maxAttempts ?? 8, opts.askedAt, opts.budgetMs ?? pushRetryBudgetMs());
  if (remote.kind === "http") return pushHttp(store, remote, author, nowSeconds, creds, local, tries);
  const remoteDir = remote.gitdir;
  const dir = store.root;
  const gitdir = `${dir}/.git`;
  const ref = await currentBranchRef(dir);
  const out: PushResult = { pushed: false, commits_out: 0, attempts: 0, head: null, pulled: [] };
  for (let attempt = 1; tries.mayStart(attempt); attempt++) {
    out.attempts = attempt;
    const mine = await resolve(gitdir, ref);
    out.head = mine;
    if (!mine) return out;
    const remoteHead = await resolve(remoteDir, ref);
    if (remoteHead === mine) return out;
    if (remoteHead && !(await traced("push.descends", () => descendsFrom(gitdir, mine, remoteHead)).catch(() => false))) {
      traceNote("push.behind", `attempt=${attempt}`);
      out.pulled.push(await traced("push.pull", () => pullAndKeepLocal(store, author, nowSeconds, creds, local)));
      continue;
    }
    // only the commits the remote lacks, and of their trees only what differs from their parents'
    const { commits } = await traced("push.walk-commits", () => commitsOnlyFrom(gitdir, mine, remoteHead));
    out.commits_out = commits.length;
    const objects = await traced("push.walk-objects", () => objectsOnlyFrom(gitdir, commits));
    await traced("push.copy", () => copyObjects(gitdir, remoteDir, objects));
    if (await traced("push.cas", () => casRef(remoteDir, ref, remoteHead, mine, (g) => resolve(g, ref)))) {
      // a first push names the branch the remote's HEAD points at, so a clone checks it out
      if (!remoteHead) fs.writeFileSync(`${remoteDir}/HEAD`, `ref: ${ref}\n`);
      writeRefAtomic(gitdir, TRACKING, mine);
      out.pushed = true;
      const { repackRemoteIfDue } = await import("./repack.ts");
      await traced("push.repack-remote", () => repackRemoteIfDue(remoteDir));
      traceNote("push.won", `attempt=${attempt}`);
      return out;
    }
    traceNote("push.lost", `attempt=${attempt}`);
    await new Promise((r) => setTimeout(r, Math.random() * 100 * attempt));
  }
  tries.gaveUp(out.attempts);
}

async function pushHttp(store: Store, remote: Remote & { kind: "http" }, author: Author, nowSeconds: number, creds: Credentials, local: LocalStep, tries: Attempts): Promise<PushResult> {
  const http = await httpClient(creds);
  const dir = store.root;
  const ref = await currentBranchRef(dir);
  const out: PushResult = { pushed: false, commits_out: 0, attempts: 0, head: null, pulled: [] };
  for (let attempt = 1; tries.mayStart(attempt); attempt++) {
    out.attempts = attempt;
    const mine = await resolve(`${dir}/.git`, ref);
    out.head = mine;
    if (!mine) return out;
    if (mine === (await resolve(`${dir}/.git`, TRACKING))) return out;
    out.commits_out = (await traced("push.count-out", () => commitsAhead(dir))) ?? 0;
    let sent;
    try {
      sent = await traced("push.send", () => sendPack(http, { gitdir: `${dir}/.git`, url: remote.url, ref, mine, headers: basicAuth(tokenFor(remote.url, creds)) }));
    } catch (e) {
      networkError(e, remote.url, http);
    }
    if (sent.kind === "sent" || sent.kind === "up-to-date") {
      writeRefAtomic(`${dir}/.git`, TRACKING, mine);
      out.pushed = true; // (up-to-date: an earlier push, killed before it moved the tracking ref, had landed)
      return out;
    }
    if (sent.kind === "refused") throw unavailable(`the remote refused the push (${remote.url}): ${sent.reason.split("\n")[0]}; your commits are kept locally`);
    // the remote moved on: merge it in, then try again
    traceNote("push.lost", `attempt=${attempt}`);
    out.pulled.push(await traced("push.pull", () => pullAndKeepLocal(store, author, nowSeconds, creds, local)));
    await new Promise((r) => setTimeout(r, Math.random() * 100 * attempt));
  }
  tries.gaveUp(out.attempts);
}

/** Commits the remote has not got yet (for status: work waiting to be pushed). */
export async function commitsAhead(dir: string): Promise<number | null> {
  const ref = await currentBranchRef(dir);
  const local = await resolve(`${dir}/.git`, ref);
  const tracked = await resolve(`${dir}/.git`, TRACKING);
  if (!local) return 0;
  if (local === tracked) return 0;
  // (each commit once: isomorphic-git's log listed a commit reached through both sides of a merge twice)
  return (await commitsOnlyFrom(`${dir}/.git`, local, tracked)).commits.length;
}

/**
 * Make a new store from a remote: the repository, its files, git's index, the merge driver.
 * An empty remote gets a new store (the first sync pushes it).
 */
export async function cloneStore(root: string, url: string, cwd: string, creds: Credentials, driverCommand: string, opts: RemoteOptions = {}): Promise<{ head: string | null; files: number }> {
  const { classifyRemote } = await import("./remote.ts");
  const remote = classifyRemote(url, cwd, opts);
  if (fs.existsSync(root) && fs.readdirSync(root).length > 0) throw unavailable(`${root} exists and is not empty`);
  // a clone that fails (remote unreachable, not a store) takes away what it made, as git's clone
  // does: left behind, the half-made folder refused the next clone ("not empty") and every command
  const made = firstMissing(root);
  try {
    return await cloneInto(root, url, remote, creds, driverCommand, cwd, opts);
  } catch (e) {
    if (made !== null) fs.rmSync(made, { recursive: true, force: true });
    else for (const name of fs.readdirSync(root)) fs.rmSync(path.join(root, name), { recursive: true, force: true });
    throw e;
  }
}

/** The outermost folder of `dir` that does not exist yet (null: `dir` exists). */
function firstMissing(dir: string): string | null {
  let missing: string | null = null;
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) {
    missing = d;
    if (path.dirname(d) === d) break;
  }
  return missing;
}

async function cloneInto(root: string, url: string, remote: Remote, creds: Credentials, driverCommand: string, cwd: string, opts: RemoteOptions): Promise<{ head: string | null; files: number }> {
  const { setRemote } = await import("./remote.ts");
  fs.mkdirSync(root, { recursive: true });
  await git.init({ fs, dir: root, defaultBranch: "main" });
  await setRemote(root, url, cwd, opts);
  const { registerMergeDriver } = await import("./repo-init.ts");
  await registerMergeDriver(root, driverCommand);
  const ref = "refs/heads/main";
  const { theirs } = await fetchTheirs(root, remote, ref, creds);
  if (!theirs) return { head: null, files: 0 };
  const files = await diffTrees(`${root}/.git`, null, await treeOf(`${root}/.git`, theirs));
  let written = 0;
  for (const [p, c] of files) {
    if (written++ % 100 === 0) progress("writing files", written - 1, files.size);
    const { blob } = await git.readBlob({ fs, dir: root, oid: c.b! });
    fs.mkdirSync(path.dirname(`${root}/${p}`), { recursive: true });
    fs.writeFileSync(`${root}/${p}`, blob);
  }
  progress("writing files", files.size, files.size);
  await syncGitIndex(root, new Map([...files].map(([p, c]) => [p, c.b] as const)));
  writeRefAtomic(`${root}/.git`, ref, theirs);
  writeCommitState(root, theirs);
  if (!fs.existsSync(`${root}/.meta.json`)) throw unavailable(`${url} holds a git repository but not a memsync store (no .meta.json)`);
  return { head: theirs, files: files.size };
}

/**
 * Fetch the remote's branch into another (bare, empty) repository: doctor --repair takes the
 * objects a damaged store lacks from such a fresh copy of an HTTP remote.
 */
export async function fetchBranchInto(gitdir: string, remote: Remote & { kind: "http" }, ref: string, creds: Credentials): Promise<string | null> {
  const http = withAdvertisedHead(await httpClient(creds), ref);
  try {
    const r = await git.fetch({ fs: fetchFs(gitdir), http, gitdir, url: remote.url, ref: branchName(ref), remoteRef: branchName(ref), singleBranch: true, tags: false, ...httpAuth(remote, creds) });
    const stall = http.stallError();
    if (stall) throw stall;
    return r.fetchHead ?? null;
  } catch (e) {
    networkError(e, remote.url, http);
  }
}
