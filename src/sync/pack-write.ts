import fs from "node:fs";
import process from "node:process";
import { faultPoint } from "./fault.ts";
import { forgetPacks } from "./objects.ts";
import { sha1, type Sha1Stream, sha1Stream } from "./sha1.ts";
import { crc32, zlibDeflate } from "./zlib.ts";
import { heartbeat } from "../store/lock-heartbeat.ts";

// Writing many objects as one pack file (git's pack format version 2, with its version 2 index)
// instead of one loose file each: a commit of an import of 10,000 records writes over 10,000
// objects, and each loose file costs a create, a rename and a folder entry. New objects are
// stored whole (no deltas: simple, and git reads them alike); a repack copies packed entries as
// they are, deltas included (see repack.ts).
//
// Streamed: each object is deflated and written to the temporary pack as it comes, so only the
// index entries (id, offset, CRC) stay in memory. When the caller knows the count up front the
// pack's SHA-1 is taken as it is written; otherwise the count in the header is filled in at the
// end and the file is read back once for its checksum (what git's fast-import does).
//
// Kill safety: the pack and its index go to temp files in objects/pack, are fsynced, and are
// renamed into place, the .pack first: git and isomorphic-git look only at packs with an index,
// so a kill leaves either no new pack, an unindexed one (ignored, like a temp file), or a whole
// pack. The caller moves a ref, or deletes what the pack replaces, only after finish returns.

export type PackObjectType = "commit" | "tree" | "blob" | "tag";

export const TYPE_CODE: Record<PackObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

/** A packed object's header: its type code and inflated size, 7 bits a byte after the first 4. */
export function entryHeader(code: number, size: number): Uint8Array {
  const bytes: number[] = [];
  let b = (code << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(b | 0x80);
    b = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(b);
  return new Uint8Array(bytes);
}

/** A hex digit's value (ids here are checked hex: objectId, parseTree, a pack index). */
function nibble(c: number): number {
  return c <= 57 ? c - 48 : (c | 0x20) - 87;
}

export function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function toHex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

export interface PackInput {
  oid: string;
  type: PackObjectType;
  content: Uint8Array;
}

/**
 * The index entries of a pack being written, packed in typed arrays (an object per entry cost
 * about 150 bytes each: 10 MB for an import of 65,000 records): ids, CRCs and offsets by position.
 */
class IndexEntries {
  oids = new Uint8Array(20 * 1024);
  crcs = new Uint32Array(1024);
  offsets = new Float64Array(1024);
  length = 0;

  push(oidHex: string, crc: number, offset: number): void {
    if (this.length === this.crcs.length) {
      const grow = <T extends Uint8Array | Uint32Array | Float64Array>(a: T, n: number): T => {
        const b = new (a.constructor as new (n: number) => T)(n);
        b.set(a);
        return b;
      };
      this.oids = grow(this.oids, this.oids.length * 2);
      this.crcs = grow(this.crcs, this.crcs.length * 2);
      this.offsets = grow(this.offsets, this.offsets.length * 2);
    }
    const at = this.length * 20;
    for (let i = 0; i < 20; i++) this.oids[at + i] = (nibble(oidHex.charCodeAt(i * 2)) << 4) | nibble(oidHex.charCodeAt(i * 2 + 1));
    this.crcs[this.length] = crc;
    this.offsets[this.length] = offset;
    this.length++;
  }
}

/** A version 2 pack index for these entries (in id order) and the pack's checksum. */
function buildIndex(e: IndexEntries, packSum: Uint8Array): Uint8Array {
  const n = e.length;
  const ids = e.oids;
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => {
    for (let i = 0; i < 20; i++) {
      const d = ids[a * 20 + i]! - ids[b * 20 + i]!;
      if (d) return d;
    }
    return 0;
  });
  let large = 0;
  for (let i = 0; i < n; i++) if (e.offsets[i]! >= 0x80000000) large++;
  const idx = new Uint8Array(8 + 1024 + n * 28 + large * 8 + 40);
  const v = new DataView(idx.buffer);
  v.setUint32(0, 0xff744f63); // "\377tOc"
  v.setUint32(4, 2);
  const counts = new Uint32Array(256);
  for (let i = 0; i < n; i++) counts[ids[i * 20]!]!++;
  let sum = 0;
  for (let i = 0; i < 256; i++) v.setUint32(8 + i * 4, (sum += counts[i]!));
  const idAt = 8 + 1024;
  const crcAt = idAt + n * 20;
  const offAt = crcAt + n * 4;
  const bigAt = offAt + n * 4;
  let big = 0;
  order.forEach((k, i) => {
    idx.set(ids.subarray(k * 20, k * 20 + 20), idAt + i * 20);
    v.setUint32(crcAt + i * 4, e.crcs[k]!);
    const offset = e.offsets[k]!;
    if (offset < 0x80000000) v.setUint32(offAt + i * 4, offset);
    else {
      v.setUint32(offAt + i * 4, (0x80000000 | big) >>> 0);
      v.setBigUint64(bigAt + big * 8, BigInt(offset));
      big++;
    }
  });
  const tail = bigAt + large * 8;
  idx.set(packSum, tail);
  idx.set(sha1(idx.subarray(0, tail + 20)), tail + 20);
  return idx;
}

function fsyncFolder(dir: string): void {
  try {
    const d = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(d);
    } finally {
      fs.closeSync(d);
    }
  } catch {
    // a folder fsync refused: the renames are still atomic
  }
}

const CHUNK = 1 << 20;

/**
 * One pack being written to a temporary file. add() deflates and appends an object; addEntry()
 * appends an entry already in pack form (a repack's copy). finish() makes it durable and puts it
 * in place; abort() removes the temp file. Each id must be added once.
 */
export class PackWriter {
  private readonly dir: string;
  private readonly tmp: string;
  private fd: number;
  private readonly entries = new IndexEntries();
  private readonly hash: Sha1Stream | null;
  private buf = new Uint8Array(CHUNK);
  private used = 0;
  private offset = 12;
  private done = false;

  /** count: how many objects will be added, when known (the checksum is then taken as written). */
  constructor(
    private readonly gitdir: string,
    private readonly count: number | null = null,
  ) {
    this.dir = `${gitdir}/objects/pack`;
    fs.mkdirSync(this.dir, { recursive: true });
    removeLeftovers(this.dir, Date.now());
    this.tmp = `${this.dir}/tmp_pack_${process.pid}_${Math.random().toString(36).slice(2)}`;
    this.fd = fs.openSync(`${this.tmp}.pack`, "wx+", 0o444);
    this.hash = count === null ? null : sha1Stream();
    const head = new Uint8Array(12);
    head.set([0x50, 0x41, 0x43, 0x4b]); // "PACK"
    const hv = new DataView(head.buffer);
    hv.setUint32(4, 2);
    hv.setUint32(8, count ?? 0);
    this.write(head);
  }

  get size(): number {
    return this.entries.length;
  }

  private write(bytes: Uint8Array): void {
    this.hash?.update(bytes);
    if (this.used + bytes.length > CHUNK) this.drain();
    if (bytes.length >= CHUNK) fs.writeSync(this.fd, bytes);
    else {
      this.buf.set(bytes, this.used);
      this.used += bytes.length;
    }
  }

  private drain(): void {
    if (this.used) fs.writeSync(this.fd, this.buf, 0, this.used);
    this.used = 0;
  }

  /** Append an object, stored whole. */
  add(oid: string, type: PackObjectType, content: Uint8Array, level = 1): void {
    heartbeat(); // (a commit or repack of thousands, under the store's lock)
    const h = entryHeader(TYPE_CODE[type], content.length);
    // level 1 by default: records are small, and at the default level deflating took most of a
    // commit's time (a repack, off the write path, asks for more)
    const z = zlibDeflate(content, level);
    this.addEntry(oid, [h, z]);
  }

  /** Append an entry in pack form (header, a delta's base, deflated data). */
  addEntry(oid: string, parts: readonly Uint8Array[]): void {
    let crc = 0;
    const at = this.offset;
    for (const p of parts) {
      crc = crc32(p, crc);
      this.write(p);
      this.offset += p.length;
    }
    this.entries.push(oid, crc >>> 0, at);
    faultPoint("pack-entry");
  }

  /** Make the pack and its index durable and put them in place; returns the pack's name (pack-<sha>). */
  finish(): string {
    if (this.count !== null && this.count !== this.entries.length) {
      this.abort();
      throw new Error(`pack writer: ${this.entries.length} objects written, ${this.count} announced`);
    }
    this.drain();
    let sum: Uint8Array;
    if (this.hash) sum = new Uint8Array(this.hash.digest());
    else {
      const count = new Uint8Array(4);
      new DataView(count.buffer).setUint32(0, this.entries.length);
      fs.writeSync(this.fd, count, 0, 4, 8);
      sum = this.checksumOfFile();
    }
    fs.writeSync(this.fd, sum);
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    this.fd = -1;
    const name = `pack-${toHex(sum)}`;
    const final = `${this.dir}/${name}`;
    try {
      if (!fs.existsSync(`${final}.idx`)) {
        writeDurable(`${this.tmp}.idx`, [buildIndex(this.entries, sum)]);
        fs.renameSync(`${this.tmp}.pack`, `${final}.pack`);
        faultPoint("pack-written");
        fs.renameSync(`${this.tmp}.idx`, `${final}.idx`);
        fsyncFolder(this.dir);
      }
    } finally {
      this.done = true;
      fs.rmSync(`${this.tmp}.pack`, { force: true });
      fs.rmSync(`${this.tmp}.idx`, { force: true });
    }
    // this process's caches of pack indexes must see the new one
    forgetPacks(this.gitdir);
    return name;
  }

  /** SHA-1 of the temp pack as it is on disk, read back in chunks. */
  private checksumOfFile(): Uint8Array {
    const h = sha1Stream();
    const chunk = new Uint8Array(CHUNK);
    for (let at = 0; at < this.offset; ) {
      const n = fs.readSync(this.fd, chunk, 0, Math.min(CHUNK, this.offset - at), at);
      if (n <= 0) throw new Error("pack writer: the temporary pack is shorter than written");
      h.update(chunk.subarray(0, n));
      at += n;
    }
    return h.digest();
  }

  /** Drop the pack (nothing was put in place). */
  abort(): void {
    if (this.done) return;
    this.done = true;
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
    fs.rmSync(`${this.tmp}.pack`, { force: true });
  }
}

function writeDurable(path: string, parts: readonly Uint8Array[]): void {
  const fd = fs.openSync(path, "wx", 0o444);
  try {
    for (const p of parts) fs.writeSync(fd, p);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A leftover this old was left by a killed writer: no pack takes minutes to write. */
const OLD_LEFTOVER_MS = 5 * 60_000;

/**
 * What a killed writer left in objects/pack: temp files, and a pack whose index was never put
 * beside it (git ignores both, but `git count-objects` calls them garbage). Only old ones: a
 * fetch writes its pack before its index too.
 */
function removeLeftovers(dir: string, nowMs: number): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const have = new Set(names);
  for (const n of names) {
    const orphan = n.startsWith("tmp_pack_") || (n.endsWith(".pack") && !have.has(`${n.slice(0, -5)}.idx`));
    if (!orphan) continue;
    try {
      if (nowMs - fs.statSync(`${dir}/${n}`).mtimeMs > OLD_LEFTOVER_MS) fs.rmSync(`${dir}/${n}`, { force: true });
    } catch {
      // gone meanwhile
    }
  }
}

/** Write objects as one new pack in a repository; returns the pack's name (pack-<sha>). */
export function writePack(gitdir: string, objects: readonly PackInput[]): string {
  const w = new PackWriter(gitdir, objects.length);
  try {
    for (const o of objects) w.add(o.oid, o.type, o.content);
    return w.finish();
  } finally {
    w.abort();
  }
}
