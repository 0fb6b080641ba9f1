import fs from "node:fs";
import git from "isomorphic-git";
import { corrupt } from "../core/errors.ts";
import { faultPoint } from "./fault.ts";
import { heartbeat } from "../store/lock-heartbeat.ts";
import { oidAt } from "./object-ref.ts";
import { cacheFor, forgetPacks } from "./objects.ts";
import { type Version, writeNearest } from "./delta-write.ts";
import { packFolderNames, packIndexLooksWhole, readObjectNative } from "./pack-index.ts";
import { entryHeader, hexToBytes, type PackObjectType, PackWriter, TYPE_CODE } from "./pack-write.ts";
import { objectId } from "./sha1.ts";
import { crc32, zlibInflate } from "./zlib.ts";

// Repacking, as git's `gc --auto` does: past a number of loose objects (git's gc.auto, 6,700) the
// loose objects and the small packs are combined into one new pack; past a number of packs (git's
// gc.autoPackLimit, 50: every HTTP fetch leaves one, and isomorphic-git looks through each for
// every object it reads) every pack is. Both limits are read from the repository's git config
// under git's own names (0 turns the automatic repack off).
//
// Packed entries are copied as they are, deltas included (an offset delta becomes a delta naming
// its base by id, since offsets change); loose objects are inflated, checked against their id and
// stored whole. Kill safety: the new pack and its index are written under temporary names,
// fsynced and renamed (PackWriter); only then are the packs and loose files it holds removed, an
// index before its pack. A kill at any point leaves every object in a whole pack or a loose file.
//
// Objects stored whole (loose ones, and whole entries of the packs repacked) are stored as deltas
// where that pays (writeByPath below): each version of a file or folder, newest first, against
// one of the few versions of the same path written just before it, in chains of at most
// MAX_DEPTH, as git's repack does (a commit writes a new version of every folder it touches, so
// whole folder versions were most of a busy store's history). Entries already deltas are copied
// as before. No chain can loop: a new delta's base is always an object written before it in the
// same walk, and never one of the copied deltas.
//
// Which copy of an object that is in several places is kept: a loose one, else one stored whole,
// else the one in the first pack (in the order packs are read). Packs are never thin (isomorphic-
// git does not ask for thin packs, git's index-pack completes them), so a delta's base is in its own
// pack; with that rule a chain of deltas only ever moves to earlier packs, so it cannot loop.

const DEFAULT_LOOSE_LIMIT = 6700;
const DEFAULT_PACK_LIMIT = 50;

export interface RepackOutcome {
  /** Objects in the new pack (0: nothing was worth doing). */
  objects: number;
  pack: string | null;
  loose_removed: number;
  packs_replaced: number;
  bytes_before: number;
  bytes_after: number;
}

interface PackFile {
  base: string; // objects/pack/pack-<sha> without the extension, absolute
  size: number;
  oids: string[];
  offsets: number[];
  crcs: number[] | null;
}

type Source = { kind: "loose"; file: string; type: PackObjectType } | { kind: "pack"; pack: number; offset: number; len: number; crc: number | null; delta: boolean | null };

async function configNumber(gitdir: string, key: string, fallback: number): Promise<number> {
  try {
    const v = await git.getConfig({ fs, gitdir, path: key });
    if (v === undefined || v === null || v === "") return fallback;
    const n = Number(v);
    return Number.isFinite(n) ? n : fallback;
  } catch {
    return fallback;
  }
}

const HEX2 = /^[0-9a-f]{2}$/;
const HEX38 = /^[0-9a-f]{38}$/;

/** Loose object files: [oid, path] (git's layout, objects/ab/cdef...). */
function looseFiles(gitdir: string): [string, string][] {
  const out: [string, string][] = [];
  let dirs: string[];
  try {
    dirs = fs.readdirSync(`${gitdir}/objects`);
  } catch {
    return out;
  }
  for (const d of dirs) {
    if (!HEX2.test(d)) continue;
    let names: string[];
    try {
      names = fs.readdirSync(`${gitdir}/objects/${d}`);
    } catch {
      continue;
    }
    for (const n of names) if (HEX38.test(n)) out.push([d + n, `${gitdir}/objects/${d}/${n}`]);
  }
  return out;
}

/** The packs a repack may replace: whole, indexed, not kept (.keep) nor a promisor's. */
function packsOf(gitdir: string): string[] {
  const names = packFolderNames(gitdir);
  const have = new Set(names);
  return names
    .filter((n) => n.startsWith("pack-") && n.endsWith(".idx"))
    .map((n) => n.slice(0, -4))
    .filter((b) => have.has(`${b}.pack`) && !have.has(`${b}.keep`) && !have.has(`${b}.promisor`));
}

/**
 * Whether a repack is due, and why (cheap: one folder listing each, like git's own estimate):
 * "packs" when there are more than gc.autoPackLimit (then every pack is combined, as git's
 * `gc --auto` does with -A), "loose" when the loose objects in objects/17 times 256 pass gc.auto.
 * A small gc.auto (tests) counts every loose object instead of estimating.
 */
export async function repackDue(gitdir: string): Promise<"packs" | "loose" | null> {
  const looseLimit = await configNumber(gitdir, "gc.auto", DEFAULT_LOOSE_LIMIT);
  if (looseLimit <= 0) return null;
  const packLimit = await configNumber(gitdir, "gc.autoPackLimit", DEFAULT_PACK_LIMIT);
  if (packLimit > 0 && packsOf(gitdir).length > packLimit) return "packs";
  if (looseLimit < 256 * 16) return looseFiles(gitdir).length > looseLimit ? "loose" : null;
  let n = 0;
  try {
    n = fs.readdirSync(`${gitdir}/objects/17`).filter((x) => HEX38.test(x)).length;
  } catch {
    return null;
  }
  return n > Math.ceil(looseLimit / 256) ? "loose" : null;
}

const REMOTE_LOCK = "memsync-repack.lock";
// a repack killed midway leaves its lock: past this age it is another machine's turn (two repacks
// at once are safe, only wasteful; the long chaos run's hub waited out a 10-minute bound unpacked)
const REMOTE_LOCK_STALE_MS = 2 * 60_000;

/**
 * A path remote (a bare repository on a disk or share that every machine writes loose objects
 * into) repacked when due, as a hosted remote's `git gc --auto` after a push would: nothing else
 * ever packs it (a chaos run's hub held 42,019 loose objects, 374 MB). Called by a push that
 * landed; one repack at a time across machines (a lock file in the remote, stale after two
 * minutes). Never the cause of a failure: the push stands, a later one tries again. A reader of
 * the remote that misses a loose file packed meanwhile finds it in the new pack (objects.ts readObjectFrom).
 */
export async function repackRemoteIfDue(remoteGitdir: string): Promise<RepackOutcome | null> {
  const lock = `${remoteGitdir}/${REMOTE_LOCK}`;
  let fd: number | null = null;
  try {
    const due = await repackDue(remoteGitdir);
    if (!due) return null;
    const st = fs.statSync(lock, { throwIfNoEntry: false });
    if (st && Date.now() - st.mtimeMs > REMOTE_LOCK_STALE_MS) fs.rmSync(lock, { force: true });
    fd = fs.openSync(lock, "wx");
    return await repack(remoteGitdir, { all: due === "packs" });
  } catch {
    return null;
  } finally {
    if (fd !== null) {
      fs.closeSync(fd);
      fs.rmSync(lock, { force: true });
    }
  }
}

/** A pack index's ids, offsets and CRCs (version 2; version 1 has no CRCs). */
function readIndex(file: string): { oids: string[]; offsets: number[]; crcs: number[] | null } | null {
  const idx = fs.readFileSync(file);
  if (!packIndexLooksWhole(idx)) return null;
  const v = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
  const v2 = v.getUint32(0) === 0xff744f63;
  const fan = v2 ? 8 : 0;
  const n = v.getUint32(fan + 255 * 4);
  const oids: string[] = new Array(n);
  const offsets: number[] = new Array(n);
  const crcs: number[] | null = v2 ? new Array(n) : null;
  const hex = idx.toString("hex");
  if (v2) {
    const ids = 8 + 1024;
    const crcAt = ids + n * 20;
    const offAt = crcAt + n * 4;
    const bigAt = offAt + n * 4;
    for (let i = 0; i < n; i++) {
      oids[i] = hex.slice((ids + i * 20) * 2, (ids + i * 20 + 20) * 2);
      crcs![i] = v.getUint32(crcAt + i * 4);
      const o = v.getUint32(offAt + i * 4);
      offsets[i] = o & 0x80000000 ? Number(v.getBigUint64(bigAt + (o & 0x7fffffff) * 8)) : o;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const at = 1024 + i * 24;
      offsets[i] = v.getUint32(at);
      oids[i] = hex.slice((at + 4) * 2, (at + 24) * 2);
    }
  }
  return { oids, offsets, crcs };
}

/** A pack entry's type code and where its header (size varint) ends. */
function entryHead(bytes: Uint8Array): { code: number; size: number; end: number } {
  let b = bytes[0]!;
  const code = (b >> 4) & 7;
  let size = b & 0x0f;
  let shift = 16;
  let i = 1;
  while (b & 0x80) {
    b = bytes[i++]!;
    size += (b & 0x7f) * shift;
    shift *= 128;
  }
  return { code, size, end: i };
}

function readAt(fd: number, offset: number, len: number): Uint8Array {
  const buf = new Uint8Array(len);
  let got = 0;
  while (got < len) {
    const n = fs.readSync(fd, buf, got, len - got, offset + got);
    if (n <= 0) break;
    got += n;
  }
  return got === len ? buf : buf.subarray(0, got);
}

const TYPES: Record<string, PackObjectType> = { commit: "commit", tree: "tree", blob: "blob", tag: "tag" };
const dec = new TextDecoder();

/** A loose file's type and content, checked against its id; null when it is damaged. */
function readLoose(file: string, oid: string): { type: PackObjectType; content: Uint8Array } | null {
  try {
    const raw = zlibInflate(fs.readFileSync(file));
    const nul = raw.indexOf(0);
    const [t, size] = dec.decode(raw.subarray(0, nul)).split(" ");
    const type = TYPES[t ?? ""];
    const content = raw.subarray(nul + 1);
    if (!type || Number(size) !== content.length || objectId(type, content) !== oid) return null;
    return { type, content };
  } catch {
    return null;
  }
}

function sizeOf(file: string): number {
  return fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}

export interface RepackOptions {
  /** Every pack (git's -A); otherwise the loose objects and the packs small beside them. */
  all?: boolean;
}

/**
 * Combine loose objects and packs into one new pack, then remove what it holds. The caller holds
 * the store's locks (no memsync process writes or reads objects meanwhile); native git running at
 * the same time keeps working (nothing is removed before its copy is durable in the new pack).
 */
export async function repack(gitdir: string, opts: RepackOptions = {}): Promise<RepackOutcome> {
  const loose = looseFiles(gitdir);
  let bases = packsOf(gitdir);
  const looseBytes = loose.reduce((s, [, f]) => s + sizeOf(f), 0);
  const sized = bases.map((b) => ({ b, size: sizeOf(`${gitdir}/objects/pack/${b}.pack`) })).sort((x, y) => x.size - y.size);
  if (!opts.all) {
    // geometric, like git's --geometric=2: take packs from the smallest while each is under
    // twice what is taken so far; a large pack (an import) is left until the rest grow near it
    let taken = looseBytes;
    const chosen: string[] = [];
    for (const p of sized) {
      if (p.size >= 2 * taken && chosen.length + (loose.length ? 1 : 0) >= 1) break;
      chosen.push(p.b);
      taken += p.size;
    }
    bases = chosen;
  } else bases = sized.map((p) => p.b);
  const empty: RepackOutcome = { objects: 0, pack: null, loose_removed: 0, packs_replaced: 0, bytes_before: 0, bytes_after: 0 };
  if (loose.length === 0 && bases.length <= 1) return empty;

  const dir = `${gitdir}/objects/pack`;
  const packs: PackFile[] = [];
  for (const b of bases) {
    const ix = readIndex(`${dir}/${b}.idx`);
    if (!ix) continue;
    packs.push({ base: `${dir}/${b}`, size: sizeOf(`${dir}/${b}.pack`), ...ix });
  }

  // which copy of each object goes in: loose (checked now), else whole, else the first pack's
  const chosen = new Map<string, Source>();
  const looseOk: string[] = [];
  for (const [oid, file] of loose) {
    heartbeat();
    const o = readLoose(file, oid);
    if (!o) continue; // damaged: left where it is, not removed
    looseOk.push(file);
    if (!chosen.has(oid)) chosen.set(oid, { kind: "loose", file, type: o.type });
  }
  const fds = packs.map((p) => fs.openSync(`${p.base}.pack`, "r"));
  try {
    const order: { pack: number; offset: number; len: number; oid: string; crc: number | null }[][] = [];
    packs.forEach((p, pi) => {
      const byOffset = p.offsets.map((offset, i) => ({ offset, i })).sort((a, b) => a.offset - b.offset);
      const list = byOffset.map(({ offset, i }, k) => ({
        pack: pi,
        offset,
        len: (k + 1 < byOffset.length ? byOffset[k + 1]!.offset : p.size - 20) - offset,
        oid: p.oids[i]!,
        crc: p.crcs ? p.crcs[i]! : null,
      }));
      order.push(list);
      for (const e of list) {
        const had = chosen.get(e.oid);
        if (!had) {
          chosen.set(e.oid, { kind: "pack", pack: pi, offset: e.offset, len: e.len, crc: e.crc, delta: null });
          continue;
        }
        if (had.kind === "loose") continue;
        // a second copy: keep one stored whole if either is
        const isDelta = (s: { pack: number; offset: number }) => entryHead(readAt(fds[s.pack]!, s.offset, 16)).code >= 6;
        had.delta ??= isDelta(had);
        if (had.delta && !isDelta(e)) chosen.set(e.oid, { kind: "pack", pack: pi, offset: e.offset, len: e.len, crc: e.crc, delta: false });
      }
    });
    const offsetToOid = packs.map((p) => {
      const m = new Map<number, string>();
      p.offsets.forEach((o, i) => m.set(o, p.oids[i]!));
      return m;
    });

    // the whole objects deltas may replace: their paths from the commits being repacked
    const whole = new Set<string>();
    const commits: string[] = [];
    for (const [oid, c] of chosen) {
      const code = c.kind === "loose" ? TYPE_CODE[c.type] : entryHead(readAt(fds[c.pack]!, c.offset, 16)).code;
      if (c.kind === "pack") c.delta ??= code >= 6;
      if (code < 6) whole.add(oid);
      if (code === 1) commits.push(oid);
    }
    const w = new PackWriter(gitdir, chosen.size);
    let name: string;
    try {
      const written = await writeByPath(gitdir, w, commits, chosen, whole);
      for (const list of order) {
        for (const e of list) {
          heartbeat();
          const c = chosen.get(e.oid)!;
          if (c.kind !== "pack" || c.pack !== e.pack || c.offset !== e.offset || written.has(e.oid)) continue;
          const bytes = readAt(fds[e.pack]!, e.offset, e.len);
          if (bytes.length !== e.len || (e.crc !== null && crc32(bytes) !== e.crc)) {
            throw corrupt(`git pack ${packs[e.pack]!.base}.pack is damaged at object ${e.oid} (run: memsync doctor --repair)`);
          }
          const h = entryHead(bytes);
          if (h.code === 6) {
            // an offset delta: name its base by id instead (offsets differ in the new pack)
            let i = h.end;
            let c8 = bytes[i++]!;
            let back = c8 & 0x7f;
            while (c8 & 0x80) {
              c8 = bytes[i++]!;
              back = (back + 1) * 128 + (c8 & 0x7f);
            }
            const baseOid = offsetToOid[e.pack]!.get(e.offset - back);
            if (!baseOid || !chosen.has(baseOid)) throw corrupt(`git pack ${packs[e.pack]!.base}.pack: the delta ${e.oid} names a base it does not hold`);
            w.addEntry(e.oid, [entryHeader(7, h.size), hexToBytes(baseOid), bytes.subarray(i)]);
          } else if (h.code === 7) {
            const baseOid = Buffer.from(bytes.subarray(h.end, h.end + 20)).toString("hex");
            if (chosen.has(baseOid)) w.addEntry(e.oid, [bytes]);
            else {
              // a base that is not in what is repacked (a thin pack's): store the object whole
              const r = (await git.readObject({ fs, gitdir, oid: e.oid, format: "content", cache: cacheFor(gitdir) })) as { type: PackObjectType; object: Uint8Array };
              w.add(e.oid, r.type, r.object);
            }
          } else w.addEntry(e.oid, [bytes]);
        }
      }
      for (const [oid, c] of chosen) {
        if (c.kind !== "loose" || written.has(oid)) continue;
        heartbeat();
        const o = readLoose(c.file, oid);
        if (!o) throw corrupt(`loose git object ${oid} changed while it was repacked`);
        w.add(oid, o.type, o.content);
      }
      name = w.finish();
    } finally {
      w.abort();
    }
    faultPoint("repack-written");

    // only now, with every object in a durable pack: remove what it replaces
    for (const fd of fds.splice(0)) fs.closeSync(fd);
    let packsReplaced = 0;
    for (const p of packs) {
      if (p.base.endsWith(`/${name}`)) continue;
      fs.rmSync(`${p.base}.idx`, { force: true });
      faultPoint("repack-delete");
      for (const ext of [".pack", ".rev", ".bitmap", ".mtimes"]) fs.rmSync(`${p.base}${ext}`, { force: true });
      packsReplaced++;
    }
    // native git's index over several packs would name packs that are gone (git builds it again when asked)
    if (packsReplaced) fs.rmSync(`${dir}/multi-pack-index`, { force: true });
    let looseRemoved = 0;
    const folders = new Set<string>();
    for (const file of looseOk) {
      fs.rmSync(file, { force: true });
      faultPoint("repack-delete");
      folders.add(file.slice(0, file.lastIndexOf("/")));
      looseRemoved++;
    }
    for (const f of folders) {
      try {
        fs.rmdirSync(f);
      } catch {
        // not empty (a damaged file left, or a new object written meanwhile)
      }
    }
    forgetPacks(gitdir);
    return {
      objects: chosen.size,
      pack: name,
      loose_removed: looseRemoved,
      packs_replaced: packsReplaced,
      bytes_before: looseBytes + packs.reduce((s, p) => s + p.size, 0),
      bytes_after: sizeOf(`${dir}/${name}.pack`) + sizeOf(`${dir}/${name}.idx`),
    };
  } finally {
    for (const fd of fds) fs.closeSync(fd);
  }
}

/**
 * How many earlier versions of a path a delta is tried against (a folder's; a file's, fewer: a
 * store holds one path per record, and each one's versions are kept until the walk ends), and a
 * delta small enough to stop at.
 */
const WINDOW = 8;
const FILE_WINDOW = 3;
/** zlib's level for what a repack writes (git's default): it runs off the write path. */
const REPACK_LEVEL = 6;

/**
 * Write the objects stored whole (`whole`) that the repacked commits reach, walking them newest
 * first (by committer time): each commit's tree, and the trees and files below it that are
 * repacked too. Each is stored as the smallest delta found against the last few versions of the
 * same path written before it (a path's first version: the last two of its kind), when that delta
 * is at most half its size, checked by applying it, and its base under MAX_DEPTH; else whole. An
 * object met under two paths takes the first. Returns the ids written; the caller writes the rest
 * as before. Each object is read once; a path's last WINDOW (or FILE_WINDOW) versions are held.
 */
async function writeByPath(gitdir: string, w: PackWriter, commitIds: readonly string[], chosen: ReadonlyMap<string, Source>, whole: ReadonlySet<string>): Promise<Set<string>> {
  const commits: { tree: string; time: number; oid: string }[] = [];
  for (const oid of commitIds) {
    const o = readObjectNative(gitdir, oid);
    if (!o || o.type !== "commit") continue;
    const text = dec.decode(o.content.subarray(0, Math.min(o.content.length, 4096)));
    const tree = /^tree ([0-9a-f]{40})$/m.exec(text)?.[1];
    const time = Number(/^committer .* (\d+) [+-]\d{4}$/m.exec(text)?.[1] ?? 0);
    if (tree) commits.push({ oid, tree, time });
  }
  commits.sort((a, b) => b.time - a.time || (a.oid < b.oid ? -1 : 1));
  const written = new Set<string>();
  const latest = new Map<string, Version[]>(); // newest first
  const lastOfKind = new Map<string, Version[]>();
  // ids already met, by their first 6 bytes (a tree names mostly what an earlier version named; a
  // collision only leaves an object whole)
  const met = new Set<number>();
  const visit = async (oid: string, path: string, isTree: boolean): Promise<void> => {
    heartbeat();
    if (!chosen.has(oid)) return;
    const c = chosen.get(oid)!;
    const needed = whole.has(oid) || isTree;
    if (!needed) return;
    const o = c.kind === "loose" ? readLoose(c.file, oid) : (readObjectNative(gitdir, oid) ?? (await readThroughIsomorphicGit(gitdir, oid)));
    if (!o) return; // left to the caller's copy
    if (whole.has(oid)) {
      if (objectId(o.type as PackObjectType, o.content) !== oid) throw corrupt(`git object ${oid} could not be read back whole while it was repacked`);
      const key = `${isTree ? "t" : "b"}:${path}`;
      const recent = latest.get(key) ?? [];
      // the smallest delta against the path's last WINDOW versions under MAX_DEPTH (the walk's
      // order interleaves machines' lines of history: the version just before is not always the
      // nearest), stopping at one that is small enough; a path's first version: against the last
      // ones written of its kind (records share a shape)
      const kind = isTree ? "t" : "b";
      const v = writeNearest(w, oid, o.type as PackObjectType, o.content, recent.length ? recent : (lastOfKind.get(kind) ?? []), REPACK_LEVEL);
      latest.set(key, [v, ...recent.slice(0, (isTree ? WINDOW : FILE_WINDOW) - 1)]);
      lastOfKind.set(kind, [v, ...(lastOfKind.get(kind) ?? []).slice(0, 1)]);
      written.add(oid);
    }
    if (!isTree || o.type !== "tree") return;
    const t = o.content;
    const dv = new DataView(t.buffer, t.byteOffset, t.byteLength);
    let i = 0;
    while (i < t.length) {
      const sp = t.indexOf(0x20, i);
      const nul = sp < 0 ? -1 : t.indexOf(0, sp);
      if (nul < 0 || nul + 21 > t.length) break;
      const key = dv.getUint32(nul + 1) * 65536 + dv.getUint16(nul + 5);
      // mode 40000 is a folder, 160000 a submodule's commit (not in this repository)
      if (!met.has(key) && !(t[i] === 0x31 && t[i + 1] === 0x36)) {
        met.add(key);
        const name = dec.decode(t.subarray(sp + 1, nul));
        await visit(oidAt(t, nul + 1), path ? `${path}/${name}` : name, t[i] === 0x34);
      }
      i = nul + 21;
    }
  };
  for (const c of commits) {
    const key = Number.parseInt(c.tree.slice(0, 12), 16);
    if (met.has(key)) continue;
    met.add(key);
    await visit(c.tree, "", true);
  }
  return written;
}

/** An object isomorphic-git can read where the native reader cannot (a version-1 index, alternates). */
async function readThroughIsomorphicGit(gitdir: string, oid: string): Promise<{ type: string; content: Uint8Array } | null> {
  try {
    const r = (await git.readObject({ fs, gitdir, oid, format: "content", cache: cacheFor(gitdir) })) as { type: string; object: Uint8Array };
    return { type: r.type, content: r.object };
  } catch {
    return null;
  }
}

