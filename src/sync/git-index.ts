import fs from "node:fs";

// Updating a few entries of git's index (.git/index) without isomorphic-git's full round trip,
// which re-parses and re-serializes every entry through its object model (44-64 ms for one path
// in a 13,000-entry index). Format version 2: a header, entries sorted by path, extensions, and
// a SHA-1 trailer. Entries memsync writes carry no stat data, so native git re-hashes those files
// once on its next `status` and finds them clean. Extensions are dropped (the cached-tree one is
// stale after any change; git rebuilds what it needs). Anything unusual (another version, a split
// index) returns false, and the caller uses isomorphic-git instead.

const enc = new TextEncoder();
const dec = new TextDecoder();

function entryBytes(name: Uint8Array, oid: string, size: number): Uint8Array {
  const len = 62 + name.length;
  const padded = Math.ceil((len + 1) / 8) * 8;
  const out = new Uint8Array(padded);
  const view = new DataView(out.buffer);
  view.setUint32(24, 0o100644); // mode; ctime, mtime, dev, ino (0..23) stay zero
  view.setUint32(36, size >>> 0);
  for (let i = 0; i < 20; i++) out[40 + i] = Number.parseInt(oid.slice(i * 2, i * 2 + 2), 16);
  view.setUint16(60, Math.min(name.length, 0xfff));
  out.set(name, 62);
  return out;
}

/** git orders index entries by the bytes of their paths. */
function compareBytes(x: Uint8Array, y: Uint8Array): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Set (oid, size) or remove (null) entries. false when the index is not one this can patch. */
export async function patchGitIndex(gitdir: string, changes: Map<string, { oid: string; size: number } | null>): Promise<boolean> {
  const file = `${gitdir}/index`;
  let buf: Uint8Array;
  try {
    buf = fs.readFileSync(file);
  } catch {
    return false;
  }
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.length < 32 || dec.decode(buf.subarray(0, 4)) !== "DIRC" || view.getUint32(4) !== 2) return false;
  const count = view.getUint32(8);
  // entries as slices of the file (already in git's order): nothing is decoded or copied
  const entries: { name: Uint8Array; bytes: Uint8Array }[] = [];
  let at = 12;
  for (let i = 0; i < count; i++) {
    const flags = view.getUint16(at + 60);
    if (flags & 0x4000) return false; // extended flags are a version 3 thing
    if (flags & 0x3000) return false; // a merge stage: leave conflicts to git
    let end = at + 62 + (flags & 0xfff);
    while (end < buf.length && buf[end] !== 0) end++; // a name of 0xfff bytes or more: find its end
    const len = Math.ceil((end - at + 1) / 8) * 8;
    entries.push({ name: buf.subarray(at + 62, end), bytes: buf.subarray(at, at + len) });
    at += len;
  }
  // a split index ("link") or other extensions git would need: refuse to drop them
  for (let p = at; p + 8 <= buf.length - 20; ) {
    const sig = dec.decode(buf.subarray(p, p + 4));
    if (sig === "link" || sig === "sdir") return false;
    p += 8 + view.getUint32(p + 4);
  }
  // merge the few changes into the sorted entries
  const edits = [...changes].map(([path, c]) => ({ name: enc.encode(path), c })).sort((a, b) => compareBytes(a.name, b.name));
  const merged: Uint8Array[] = [];
  let i = 0;
  for (const e of edits) {
    while (i < entries.length && compareBytes(entries[i]!.name, e.name) < 0) merged.push(entries[i++]!.bytes);
    if (i < entries.length && compareBytes(entries[i]!.name, e.name) === 0) i++;
    if (e.c) merged.push(entryBytes(e.name, e.c.oid, e.c.size));
  }
  while (i < entries.length) merged.push(entries[i++]!.bytes);
  const size = 12 + merged.reduce((n, b) => n + b.length, 0);
  const out = new Uint8Array(size + 20);
  out.set(enc.encode("DIRC"), 0);
  const ov = new DataView(out.buffer);
  ov.setUint32(4, 2);
  ov.setUint32(8, merged.length);
  let w = 12;
  for (const b of merged) {
    out.set(b, w);
    w += b.length;
  }
  out.set(new Uint8Array(await crypto.subtle.digest("SHA-1", out.subarray(0, size))), size);
  // git's own lock: if native git is writing the index right now, leave it to the fallback
  const lock = `${file}.lock`;
  let fd: number;
  try {
    fd = fs.openSync(lock, "wx");
  } catch {
    return false;
  }
  try {
    fs.writeSync(fd, out);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(lock, file);
  return true;
}
