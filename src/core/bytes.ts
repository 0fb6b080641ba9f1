// Byte arrays joined in one allocation: git's pkt-lines, packs and tree objects are built and
// read as runs of parts.

/** The parts one after another in one new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** Everything an async stream of byte arrays yields, in one array. */
export async function readAllBytes(body: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const p of body) parts.push(p);
  return concatBytes(parts);
}
