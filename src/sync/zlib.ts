// zlib streams (RFC 1950) for git objects: a 2-byte header, raw DEFLATE, the Adler-32 of the data.
// Under Bun the DEFLATE part goes through Bun.deflateSync/inflateSync (native, raw DEFLATE only):
// importing node:zlib pulls in Node's stream machinery, ~30 ms of CPU at the start of every
// process that reads or writes a git object (measured with --cpu-prof on `status`), which is most
// of them. Deno has no Bun global, so it gets node:zlib, loaded only there.

const nodeZlib = typeof Bun === "undefined" ? await import("node:zlib") : null;

/** Bun's native Adler-32: the loop below costs ~2 ms of CPU for the 69 KB top memories tree at 10k, read or written several times a sync. */
const nativeAdler32 = typeof Bun === "undefined" ? null : Bun.hash.adler32;

/** Adler-32 (RFC 1950 section 8.2), summing in blocks short enough never to overflow 2^53. */
export function adler32(data: Uint8Array): number {
  if (nativeAdler32) return Number(nativeAdler32(data)) >>> 0;
  let a = 1;
  let b = 0;
  const BLOCK = 5552; // zlib's NMAX: the most bytes before b can pass 2^32 (kept well below 2^53)
  for (let at = 0; at < data.length; at += BLOCK) {
    const end = Math.min(at + BLOCK, data.length);
    for (let i = at; i < end; i++) {
      a += data[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** `data` as a zlib stream; `level` 1 (fastest) to 9, default 6 as git's core.compression. */
export function zlibDeflate(data: Uint8Array, level = 6): Uint8Array {
  if (nodeZlib) return new Uint8Array(nodeZlib.deflateSync(data, { level }));
  const body = Bun.deflateSync(data as Uint8Array<ArrayBuffer>, { level: level as 1 });
  const out = new Uint8Array(2 + body.length + 4);
  // CMF 0x78: DEFLATE with a 32 KiB window; FLG chosen so (CMF * 256 + FLG) % 31 == 0, the level
  // hint 0 (fastest) for level 1 else 2 (default), no preset dictionary
  out[0] = 0x78;
  out[1] = level <= 1 ? 0x01 : 0x9c;
  out.set(body, 2);
  new DataView(out.buffer).setUint32(2 + body.length, adler32(data));
  return out;
}

/** The data of a whole zlib stream; throws on a bad header, bad DEFLATE data or a wrong checksum. */
export function zlibInflate(stream: Uint8Array): Uint8Array {
  if (nodeZlib) return new Uint8Array(nodeZlib.inflateSync(stream));
  if (stream.length < 6 || (stream[0]! & 0x0f) !== 8 || ((stream[0]! << 8) | stream[1]!) % 31 !== 0 || (stream[1]! & 0x20) !== 0) {
    throw new Error("not a zlib stream");
  }
  const data = Bun.inflateSync(stream.subarray(2, stream.length - 4) as Uint8Array<ArrayBuffer>);
  const want = new DataView(stream.buffer, stream.byteOffset + stream.length - 4, 4).getUint32(0);
  if (adler32(data) !== want) throw new Error("zlib stream checksum mismatch");
  return data;
}

/** Bun's native CRC-32 (the same polynomial; its seed continues a CRC): the loop below cost ~10 ms of CPU per 1,000 objects a copy packs. */
const nativeCrc32 = typeof Bun === "undefined" ? null : Bun.hash.crc32;

/** CRC-32 (the IEEE polynomial, as zlib's crc32 and git's pack index), continuing from `crc`. */
export function crc32(data: Uint8Array, crc = 0): number {
  if (nativeCrc32) return Number(nativeCrc32(data, crc)) >>> 0;
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
