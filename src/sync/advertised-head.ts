import type { GitHttpRequest, GitHttpResponse, HttpClient } from "./http-client.ts";
import { concatBytes } from "../core/bytes.ts";

// A fetch names the branch it wants (main), so the remote's HEAD does not matter to it; but
// isomorphic-git's fetch ends by resolving the advertised HEAD and throws when there is none.
// A bare repository made with `git init --bare` by a git older than 3.0 has HEAD naming master,
// which does not exist once memsync has pushed main, and git's server then advertises no HEAD:
// every fetch after the first push failed ("the remote's HEAD names no branch"), though native
// git fetched it. Here, when the upload-pack advertisement lists no HEAD but lists the wanted
// branch, a HEAD line naming the branch's commit is put first (isomorphic-git then takes that
// branch for HEAD); any other advertisement passes through as it came.

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The payloads of a pkt-line stream (null: a flush-pkt), or null when it is not one. */
function pktLines(bytes: Uint8Array): (Uint8Array | null)[] | null {
  const out: (Uint8Array | null)[] = [];
  for (let at = 0; at < bytes.length; ) {
    if (at + 4 > bytes.length) return null;
    const len = Number.parseInt(dec.decode(bytes.subarray(at, at + 4)), 16);
    if (!Number.isInteger(len) || (len !== 0 && len < 4) || at + Math.max(len, 4) > bytes.length) return null;
    out.push(len === 0 ? null : bytes.subarray(at + 4, at + len));
    at += Math.max(len, 4);
  }
  return out;
}

function pkt(payload: Uint8Array | null): Uint8Array {
  if (payload === null) return enc.encode("0000");
  const head = enc.encode((payload.length + 4).toString(16).padStart(4, "0"));
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  out.set(payload, head.length);
  return out;
}

/** The advertisement with a HEAD line for `branch` added first, or null when it needs none (or is not one). */
export function advertiseHead(bytes: Uint8Array, branch: string): Uint8Array | null {
  const lines = pktLines(bytes);
  if (!lines) return null;
  const first = lines.findIndex((l) => l !== null && l.includes(0));
  if (first < 0) return null;
  let branchOid: string | null = null;
  for (let i = first; i < lines.length && lines[i] !== null; i++) {
    const text = dec.decode(lines[i]!).split("\0")[0]!.replace(/\n$/, "");
    const [oid, name] = text.split(" ");
    if (name === "HEAD") return null;
    if (name === branch && oid && /^[0-9a-f]{40}$/.test(oid)) branchOid = oid;
  }
  if (branchOid === null) return null;
  const line = lines[first]!;
  const nul = line.indexOf(0);
  const caps = line.subarray(nul); // "\0capabilities\n"
  const head = new Uint8Array([...enc.encode(`${branchOid} HEAD`), ...caps]);
  const rest = new Uint8Array([...line.subarray(0, nul), 0x0a]);
  return concatBytes([...lines.slice(0, first), head, rest, ...lines.slice(first + 1)].map(pkt));
}

async function* once(bytes: Uint8Array): AsyncIterableIterator<Uint8Array> {
  yield bytes;
}

/** `http` with a missing HEAD in upload-pack advertisements filled in with `branch` (refs/heads/...). */
export function withAdvertisedHead(http: HttpClient, branch: string): HttpClient {
  return {
    stallError: () => http.stallError(),
    request: async (req: GitHttpRequest): Promise<GitHttpResponse> => {
      const res = await http.request(req);
      const isAdvertisement = (req.method ?? "GET").toUpperCase() === "GET" && /\/info\/refs\?service=git-upload-pack$/.test(req.url);
      if (!isAdvertisement || res.statusCode !== 200) return res;
      const chunks: Uint8Array[] = [];
      for await (const c of res.body) chunks.push(c);
      const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        bytes.set(c, at);
        at += c.length;
      }
      return { ...res, body: once(advertiseHead(bytes, branch) ?? bytes) };
    },
  };
}
