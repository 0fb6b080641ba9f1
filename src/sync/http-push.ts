import { concatBytes, readAllBytes } from "../core/bytes.ts";
import { unavailable } from "../core/errors.ts";
import { commitInfo, descendsFrom } from "./commit-graph.ts";
import type { GitHttpRequest, GitHttpResponse } from "./http-client.ts";
import { entryHeader } from "./pack-write.ts";
import { readObjectFrom } from "./objects.ts";
import { objectsOnlyFrom } from "./push-objects.ts";
import { progress } from "./progress.ts";
import { safeUrl } from "./remote-url.ts";
import { sha1 } from "./sha1.ts";
import { zlibDeflate } from "./zlib.ts";

// A push over smart HTTP (git's receive-pack, protocol v1), sending only what the remote lacks.
// isomorphic-git's push walked from the commit to send down to the root unless it met one of the
// remote's tips exactly: the push of a merge went through the merged local side to the first
// commit, and sent every object of the history that the remote's current tree does not hold (64
// objects for 7 new in tests/sync/http-transfer.test.ts), and a push to a remote that had moved
// walked the whole history twice before it was refused. Here:
// - the remote's refs are read first; a tip this repository does not have, or that the commit is
//   not a descendant of, means the remote moved: nothing is sent, the caller merges and retries;
// - the commits to send are found as git finds them, walking both sides newest first and
//   stopping where everything left is the remote's (commit-graph.ts), and of their trees only
//   what differs from their parents' at the same path is sent (push-objects.ts; git's sparse walk);
// - objects go whole (no deltas) in one pack, like memsync's own packs (pack-write.ts).

/** The HTTP client a push goes through (http-client.ts). */
export interface PushClient {
  request: (req: GitHttpRequest) => Promise<GitHttpResponse>;
}

const ZERO = "0".repeat(40);
const enc = new TextEncoder();
const dec = new TextDecoder();

/** One pkt-line: four hex digits of length (itself included), then the data. */
export function pktLine(data: string | Uint8Array): Uint8Array {
  const body = typeof data === "string" ? enc.encode(data) : data;
  const out = new Uint8Array(4 + body.length);
  out.set(enc.encode((4 + body.length).toString(16).padStart(4, "0")));
  out.set(body, 4);
  return out;
}

const FLUSH = enc.encode("0000");

/** The pkt-lines of a whole body (a flush is null). Throws on a malformed length. */
export function parsePktLines(bytes: Uint8Array): (Uint8Array | null)[] {
  const out: (Uint8Array | null)[] = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const len = Number.parseInt(dec.decode(bytes.subarray(at, at + 4)), 16);
    if (!Number.isInteger(len) || (len > 0 && len < 4) || at + Math.max(len, 4) > bytes.length) throw new Error("malformed pkt-line");
    if (len === 0) out.push(null);
    else out.push(bytes.subarray(at + 4, at + len));
    at += Math.max(len, 4);
  }
  return out;
}


export interface Advertisement {
  refs: Map<string, string>;
  capabilities: Set<string>;
}

/** The body of GET info/refs?service=git-receive-pack. */
export function parseAdvertisement(bytes: Uint8Array): Advertisement {
  const lines = parsePktLines(bytes);
  const refs = new Map<string, string>();
  const capabilities = new Set<string>();
  let i = 0;
  if (lines[0] && dec.decode(lines[0]).startsWith("# service=")) i = 2; // the service line and its flush
  for (; i < lines.length; i++) {
    const l = lines[i];
    if (!l) break;
    let text = dec.decode(l).replace(/\n$/, "");
    const nul = text.indexOf("\0");
    if (nul >= 0) {
      for (const c of text.slice(nul + 1).split(" ")) if (c) capabilities.add(c);
      text = text.slice(0, nul);
    }
    const [oid, name] = text.split(" ");
    if (!oid || !name || !/^[0-9a-f]{40}$/.test(oid)) throw new Error(`unexpected line in the ref advertisement: ${text.slice(0, 80)}`);
    if (name !== "capabilities^{}") refs.set(name, oid);
  }
  return { refs, capabilities };
}

function refused(status: number, url: string): never {
  if (status === 401 || status === 403) throw unavailable(`the remote refused access (${safeUrl(url)}): set MEMSYNC_GIT_TOKEN or a credentials file`);
  throw unavailable(`the remote answered HTTP ${status} (${safeUrl(url)})`);
}

/**
 * Commits reachable from `mine` and not from `theirs` (newest first), and the boundary: the
 * commits of theirs that those build on. Walked as git walks them: both sides newest first,
 * each commit marked with the sides that reach it, until nothing left to look at is mine alone;
 * so the walk stays near the two tips however long the history.
 */
export async function commitsOnlyFrom(gitdir: string, mine: string, theirs: string | null): Promise<{ commits: string[]; boundary: string[] }> {
  const MINE = 1;
  const THEIRS = 2;
  const marks = new Map<string, number>();
  const times = new Map<string, number>();
  const queue = new Set<string>();
  const mark = async (oid: string, side: number) => {
    if (!times.has(oid)) times.set(oid, (await commitInfo(gitdir, oid)).time);
    const before = marks.get(oid) ?? 0;
    if ((before | side) === before) return;
    marks.set(oid, before | side);
    queue.add(oid);
  };
  await mark(mine, MINE);
  if (theirs) await mark(theirs, THEIRS);
  while ([...queue].some((oid) => marks.get(oid) === MINE)) {
    let newest = "";
    for (const oid of queue) if (!newest || times.get(oid)! > times.get(newest)!) newest = oid;
    queue.delete(newest);
    for (const p of (await commitInfo(gitdir, newest)).parents) await mark(p, marks.get(newest)!);
  }
  const commits = [...marks].filter(([, m]) => m === MINE).map(([oid]) => oid);
  const boundary = new Set<string>();
  for (const c of commits) for (const p of (await commitInfo(gitdir, c)).parents) if ((marks.get(p)! & THEIRS) !== 0) boundary.add(p);
  return { commits: commits.sort((a, b) => times.get(b)! - times.get(a)!), boundary: [...boundary] };
}

/** A pack (version 2, whole objects) of these objects, in memory. */
async function packOf(gitdir: string, oids: string[]): Promise<Uint8Array> {
  const head = new Uint8Array(12);
  head.set(enc.encode("PACK"));
  const v = new DataView(head.buffer);
  v.setUint32(4, 2);
  v.setUint32(8, oids.length);
  const parts: Uint8Array[] = [head];
  const CODE = { commit: 1, tree: 2, blob: 3, tag: 4 } as const;
  for (const [i, oid] of oids.entries()) {
    if (i % 100 === 0) progress("packing objects", i, oids.length);
    const obj = await readObjectFrom(gitdir, oid);
    if (!obj) throw unavailable(`object ${oid} is missing from this repository: run memsync doctor --repair`);
    parts.push(entryHeader(CODE[obj.type as keyof typeof CODE], obj.content.length), zlibDeflate(obj.content));
  }
  progress("packing objects", oids.length, oids.length);
  // the trailer: the SHA-1 of everything before it
  const body = concatBytes(parts);
  return concatBytes([body, sha1(body)]);
}

export type SendOutcome = { kind: "sent"; objects: number } | { kind: "up-to-date" } | { kind: "moved" } | { kind: "refused"; reason: string };

/** Server answers to a ref update that mean "another push got there first": merge and retry. */
const RACE = /fetch first|non-fast-forward|failed to (update|lock)|cannot lock|incorrect old value|stale info|reference already exists/i;

/**
 * Push `mine` to the remote's `ref` when it is a fast-forward there. "moved": the remote's branch
 * is at a commit this repository lacks or `mine` does not descend from (merge, then try again).
 */
export async function sendPack(client: PushClient, opts: { gitdir: string; url: string; ref: string; mine: string; headers: Record<string, string> }): Promise<SendOutcome> {
  const { gitdir, url, ref, mine } = opts;
  const info = await client.request({ url: `${url}/info/refs?service=git-receive-pack`, method: "GET", headers: { ...opts.headers, accept: "application/x-git-receive-pack-advertisement" } });
  if (info.statusCode !== 200) {
    await readAllBytes(info.body).catch(() => undefined);
    refused(info.statusCode, url);
  }
  if (!(info.headers["content-type"] ?? "").startsWith("application/x-git-receive-pack-advertisement")) {
    throw unavailable(`the remote does not speak git's smart HTTP protocol (${safeUrl(url)})`);
  }
  let adv: Advertisement;
  try {
    adv = parseAdvertisement(await readAllBytes(info.body));
  } catch (e) {
    throw unavailable(`the remote's answer could not be read (${safeUrl(url)}): ${(e as Error).message}`);
  }
  const old = adv.refs.get(ref) ?? null;
  if (old === mine) return { kind: "up-to-date" };
  if (old && !(await descendsFrom(gitdir, mine, old))) return { kind: "moved" };

  progress("counting objects", 0);
  const { commits } = await commitsOnlyFrom(gitdir, mine, old);
  const oids = (await objectsOnlyFrom(gitdir, commits)).map((o) => o.oid);
  progress("counting objects", oids.length, oids.length);
  const pack = await packOf(gitdir, oids);
  const caps = ["report-status", ...(adv.capabilities.has("agent") || [...adv.capabilities].some((c) => c.startsWith("agent=")) ? ["agent=memsync"] : [])];
  const command = pktLine(`${old ?? ZERO} ${mine} ${ref}\0${caps.join(" ")}`);
  const body = new Uint8Array(command.length + FLUSH.length + pack.length);
  body.set(command);
  body.set(FLUSH, command.length);
  body.set(pack, command.length + FLUSH.length);
  progress("sending", 0, body.length);
  const res = await client.request({
    url: `${url}/git-receive-pack`,
    method: "POST",
    headers: { ...opts.headers, "content-type": "application/x-git-receive-pack-request", accept: "application/x-git-receive-pack-result" },
    body,
  });
  const answer = await readAllBytes(res.body);
  if (res.statusCode !== 200) refused(res.statusCode, url);
  progress("sending", body.length, body.length);
  let unpack = "";
  let status = "";
  try {
    for (const l of parsePktLines(answer)) {
      if (!l) continue;
      const text = dec.decode(l).replace(/\n$/, "");
      if (text.startsWith("unpack ")) unpack = text.slice(7);
      else if (text.startsWith(`ok ${ref}`) || text.startsWith(`ng ${ref} `)) status = text;
    }
  } catch (e) {
    throw unavailable(`the remote's answer to the push could not be read (${safeUrl(url)}): ${(e as Error).message}`);
  }
  if (unpack !== "ok") throw unavailable(`the remote could not store the pushed objects (${safeUrl(url)}): ${unpack || "no answer"}; your commits are kept locally`);
  if (status.startsWith("ok ")) return { kind: "sent", objects: oids.length };
  const reason = status.slice(`ng ${ref} `.length) || "no status for the branch";
  return RACE.test(reason) ? { kind: "moved" } : { kind: "refused", reason };
}

/** The Authorization header for a token (as isomorphic-git sends it: Basic, user x-access-token). */
export function basicAuth(token: string | undefined): Record<string, string> {
  // btoa over the UTF-8 bytes: the same on Bun and Deno (no Buffer), any token text
  return token ? { authorization: `Basic ${btoa(String.fromCharCode(...enc.encode(`x-access-token:${token}`)))}` } : {};
}
