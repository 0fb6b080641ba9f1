// SHA-1, synchronously. Web Crypto's digest is asynchronous and costs a promise and a copy per
// call: hashing 13,000 blobs in a commit spent 44% of its time there. Under Bun the hasher is
// Bun.CryptoHasher (native); node:crypto, loaded only under Deno, builds Node's stream machinery
// on import (~14 ms of CPU in every commit, measured with --cpu-prof on `sync`).

const nodeCrypto = typeof Bun === "undefined" ? await import("node:crypto") : null;

/** A SHA-1 fed in pieces (a pack as it is written); one digest per stream. */
export interface Sha1Stream {
  update(data: Uint8Array): void;
  digest(): Uint8Array;
  hex(): string;
}

export function sha1Stream(): Sha1Stream {
  const h = nodeCrypto ? nodeCrypto.createHash("sha1") : new Bun.CryptoHasher("sha1");
  return { update: (d) => void h.update(d), digest: () => new Uint8Array(h.digest()), hex: () => h.digest("hex") as string };
}

export function sha1(...parts: Uint8Array[]): Uint8Array {
  const h = sha1Stream();
  for (const p of parts) h.update(p);
  return h.digest();
}

export function sha1Hex(...parts: Uint8Array[]): string {
  const h = sha1Stream();
  for (const p of parts) h.update(p);
  return h.hex();
}

const enc = new TextEncoder();

/** An object's id, as `git hash-object -t <type>` gives it. */
export function objectId(type: string, content: Uint8Array): string {
  return sha1Hex(enc.encode(`${type} ${content.length}\0`), content);
}
