import fs from "node:fs";
import { faultPoint } from "./fault.ts";
import { forgetPacks } from "./objects.ts";
import { sha1 } from "./sha1.ts";
import { zlibDeflate } from "./zlib.ts";

// Writing many new objects as one pack file (git's pack format version 2, with its version 2
// index) instead of one loose file each: a commit of an import of 10,000 records writes over
// 10,000 objects, and each loose file costs a create, a rename and a folder entry. Objects are
// stored whole (no deltas: simple, and git reads them alike; `git gc` may delta them later).
//
// Kill safety: the pack and its index go to temp files in objects/pack, are fsynced, and are
// renamed into place, the .pack first: git and isomorphic-git look only at packs with an index,
// so a kill leaves either no new pack, an unindexed one (ignored, like a temp file), or a whole
// pack. The caller moves the branch only after this returns.

export type PackObjectType = "commit" | "tree" | "blob" | "tag";

const TYPE_CODE: Record<PackObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(parts: Uint8Array[]): number {
  let c = 0xffffffff;
  for (const p of parts) for (let i = 0; i < p.length; i++) c = CRC_TABLE[(c ^ p[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A packed object's header: its type and inflated size, 7 bits a byte after the first 4. */
function objectHeader(type: PackObjectType, size: number): Uint8Array {
  const bytes: number[] = [];
  let b = (TYPE_CODE[type] << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(b | 0x80);
    b = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(b);
  return new Uint8Array(bytes);
}

function hexToBytes(hex: string): Uint8Array {
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

/** The bytes of a pack and of its index, for these objects (each id once). */
export function buildPack(objects: readonly PackInput[]): { pack: Uint8Array[]; idx: Uint8Array; name: string } {
  const head = new Uint8Array(12);
  const hv = new DataView(head.buffer);
  head.set([0x50, 0x41, 0x43, 0x4b]); // "PACK"
  hv.setUint32(4, 2);
  hv.setUint32(8, objects.length);
  const pack: Uint8Array[] = [head];
  const entries: { oid: Uint8Array; crc: number; offset: number }[] = [];
  let offset = head.length;
  for (const o of objects) {
    const h = objectHeader(o.type, o.content.length);
    // level 1: records are small, and at the default level deflating took most of a commit's time
    const z = zlibDeflate(o.content, 1);
    entries.push({ oid: hexToBytes(o.oid), crc: crc32([h, z]), offset });
    pack.push(h, z);
    offset += h.length + z.length;
  }
  const packSum = sha1(...pack);
  pack.push(packSum);

  entries.sort((a, b) => {
    for (let i = 0; i < 20; i++) if (a.oid[i] !== b.oid[i]) return a.oid[i]! - b.oid[i]!;
    return 0;
  });
  const large = entries.filter((e) => e.offset >= 0x80000000);
  const n = entries.length;
  const idx = new Uint8Array(8 + 1024 + n * 28 + large.length * 8 + 40);
  const v = new DataView(idx.buffer);
  v.setUint32(0, 0xff744f63); // "\377tOc"
  v.setUint32(4, 2);
  const counts = new Uint32Array(256);
  for (const e of entries) counts[e.oid[0]!]!++;
  let sum = 0;
  for (let i = 0; i < 256; i++) v.setUint32(8 + i * 4, (sum += counts[i]!));
  const ids = 8 + 1024;
  const crcs = ids + n * 20;
  const offs = crcs + n * 4;
  const bigs = offs + n * 4;
  let big = 0;
  entries.forEach((e, i) => {
    idx.set(e.oid, ids + i * 20);
    v.setUint32(crcs + i * 4, e.crc);
    if (e.offset < 0x80000000) v.setUint32(offs + i * 4, e.offset);
    else {
      v.setUint32(offs + i * 4, (0x80000000 | big) >>> 0);
      v.setBigUint64(bigs + big * 8, BigInt(e.offset));
      big++;
    }
  });
  const tail = bigs + large.length * 8;
  idx.set(packSum, tail);
  idx.set(sha1(idx.subarray(0, tail + 20)), tail + 20);
  return { pack, idx, name: `pack-${toHex(packSum)}` };
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
  const { pack, idx, name } = buildPack(objects);
  const dir = `${gitdir}/objects/pack`;
  fs.mkdirSync(dir, { recursive: true });
  removeLeftovers(dir, Date.now());
  const final = `${dir}/${name}`;
  if (!fs.existsSync(`${final}.idx`)) {
    const tmp = `${dir}/tmp_pack_${process.pid}_${Math.random().toString(36).slice(2)}`;
    try {
      writeDurable(`${tmp}.pack`, pack);
      writeDurable(`${tmp}.idx`, [idx]);
      fs.renameSync(`${tmp}.pack`, `${final}.pack`);
      faultPoint("pack-written");
      fs.renameSync(`${tmp}.idx`, `${final}.idx`);
    } finally {
      fs.rmSync(`${tmp}.pack`, { force: true });
      fs.rmSync(`${tmp}.idx`, { force: true });
    }
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
  // this process's caches of pack indexes must see the new one
  forgetPacks(gitdir);
  return name;
}
