import { readAllBytes } from "../core/bytes.ts";
import { timedOut, unavailable } from "../core/errors.ts";
import { safeUrl } from "./remote-url.ts";

// memsync's HTTP client for isomorphic-git (its `http` plugin: request -> response), on the
// runtime's fetch. isomorphic-git's own Node client follows every redirect itself, Authorization
// header included, so a remote answering 302 to another host got the token. Here a redirect is
// followed only within the remote's origin (scheme, host and port), where the credentials already
// go; a redirect to any other origin is refused before anything is sent there, with the new
// address in the message, so a user who trusts it can set it as the remote. Refusing (rather than
// following without credentials) also keeps an https remote from being moved to plain http and
// keeps the repository's path and the pack from reaching a host nobody chose.
//
// No request waits for ever: each has an idle bound (MEMSYNC_HTTP_IDLE_TIMEOUT_MS, default 60 s),
// the longest it may go without a byte coming back, from the moment it is sent until its body has
// been read to the end (a server that accepts a request and never answers, or stops half-way
// through a pack, and a connection that silently died). When it passes, the request is aborted and
// the operation fails with the code "timeout" (exit 9); a fetch's ref moves only after its pack
// is whole, and a push either landed whole on the server or not at all, so nothing is half-applied.
// A slow but moving transfer is never cut: the bound is on silence, not on the total.
//
// isomorphic-git never reads the response's url for its next request: the POST after a GET of
// info/refs, and the retry after a 401 with credentials from onAuth, go to the remote's own URL
// again, and through this client again.

export interface GitHttpRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Uint8Array;
  signal?: AbortSignal;
  onProgress?: unknown;
}

export interface GitHttpResponse {
  url: string;
  method: string;
  statusCode: number;
  statusMessage: string;
  headers: Record<string, string>;
  body: AsyncIterableIterator<Uint8Array>;
}

/** Redirects followed at most, like git's curl (http.followRedirects follows a handful). */
export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

async function bodyBytes(body: GitHttpRequest["body"]): Promise<Uint8Array | undefined> {
  if (body === undefined) return undefined;
  if (body instanceof Uint8Array) return body;
  return readAllBytes(body as AsyncIterable<Uint8Array>);
}

/** Default idle bound of a request, ms. */
export const DEFAULT_HTTP_IDLE_MS = 60_000;

/**
 * The idle timer of one request: armed only while something waits for the network (the fetch
 * until its headers, each read of the body), so a body nobody reads (isomorphic-git leaves a
 * 401's unread) never fires it, and unref'd, so it never keeps a finished command alive.
 */
class Stall {
  private timer: ReturnType<typeof setTimeout> | undefined;
  readonly controller = new AbortController();
  fired = false;

  constructor(
    private readonly ms: number,
    private readonly onFire: (stall: Stall) => void,
  ) {}

  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.onFire(this);
      this.controller.abort();
    }, this.ms);
    (this.timer as { unref?: () => void }).unref?.();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

async function* chunks(stream: ReadableStream<Uint8Array> | null, stall: Stall, error: () => Error): AsyncIterableIterator<Uint8Array> {
  if (!stream) {
    stall.stop();
    return;
  }
  const reader = stream.getReader();
  try {
    for (;;) {
      stall.arm();
      let r: Awaited<ReturnType<typeof reader.read>>;
      try {
        r = await reader.read();
      } catch (e) {
        throw stall.fired ? error() : e;
      } finally {
        stall.stop();
      }
      if (r.done) return;
      if (r.value) yield r.value;
    }
  } finally {
    stall.stop();
    if (stall.fired) void reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function headersOf(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    out[k.toLowerCase()] = v;
  });
  return out;
}

/** The part of a smart-HTTP URL before the service path: the repository's address. */
const SERVICE_PATH = /\/(?:info\/refs\?service=git-[a-z-]+|git-upload-pack|git-receive-pack)$/;

/**
 * One request, redirects within the origin followed (the body is kept to send again on 307/308).
 * `moved`: repository addresses a redirect of an earlier request moved (old -> new), so the POSTs
 * that follow go straight to the new address, as git does after its first request.
 */
async function send(req: GitHttpRequest, moved: Map<string, string>, idleMs: number, onStall: (e: Error) => void): Promise<GitHttpResponse> {
  const origin = new URL(req.url).origin;
  const base = req.url.replace(SERVICE_PATH, "");
  let url = moved.has(base) ? moved.get(base)! + req.url.slice(base.length) : req.url;
  const method = (req.method ?? "GET").toUpperCase();
  const body = await bodyBytes(req.body);
  const stalled = () => timedOut(`the remote sent nothing for ${idleMs / 1000} s (${safeUrl(url.replace(SERVICE_PATH, ""))}): the sync stopped with nothing half-done; run it again (MEMSYNC_HTTP_IDLE_TIMEOUT_MS sets the bound)`);
  for (let hop = 0; ; hop++) {
    const stall = new Stall(idleMs, () => onStall(stalled()));
    const signal = req.signal ? AbortSignal.any([req.signal, stall.controller.signal]) : stall.controller.signal;
    stall.arm();
    let res: Response;
    try {
      res = await fetch(url, { method, headers: req.headers ?? {}, body, redirect: "manual", signal });
    } catch (e) {
      throw stall.fired ? stalled() : e;
    } finally {
      stall.stop();
    }
    const location = res.headers.get("location");
    if (!REDIRECTS.has(res.status) || location === null) {
      const now = url.replace(SERVICE_PATH, "");
      if (hop > 0 && base !== req.url && now !== url && now !== base) moved.set(base, now);
      return { url, method, statusCode: res.status, statusMessage: res.statusText, headers: headersOf(res.headers), body: chunks(res.body, stall, stalled) };
    }
    stall.stop();
    await res.body?.cancel();
    const next = new URL(location, url);
    if (next.origin !== origin) {
      const where = safeUrl(next.toString().replace(SERVICE_PATH, ""));
      throw unavailable(`the remote redirects to another origin (${where}); memsync sends nothing there: if you trust that address, make it the remote (memsync remote set)`);
    }
    if (hop + 1 > MAX_REDIRECTS) throw unavailable(`the remote redirected more than ${MAX_REDIRECTS} times (${safeUrl(url)})`);
    // 301/302/303 would turn a POST into a GET without its pack: git servers redirect the GET of
    // info/refs, and a POST only with 307/308, which keep the method and body
    if (method !== "GET" && method !== "HEAD" && res.status !== 307 && res.status !== 308) {
      throw unavailable(`the remote redirected a ${method} request (${safeUrl(url)}): set the remote to the address it redirects to`);
    }
    url = next.toString();
  }
}

export interface HttpClient {
  request: (req: GitHttpRequest) => Promise<GitHttpResponse>;
  /** The error of a request of this client that hit its idle bound (isomorphic-git may wrap or keep it). */
  stallError: () => Error | null;
}

/**
 * A client for one fetch or push (what redirects taught it lasts as long as the operation);
 * `idleMs`: the idle bound of each request (default DEFAULT_HTTP_IDLE_MS).
 */
export function httpClient(idleMs = DEFAULT_HTTP_IDLE_MS): HttpClient {
  const moved = new Map<string, string>();
  let stall: Error | null = null;
  const ms = Number.isFinite(idleMs) && idleMs > 0 ? idleMs : DEFAULT_HTTP_IDLE_MS;
  return {
    request: (req) =>
      send(req, moved, ms, (e) => {
        stall ??= e;
      }),
    stallError: () => stall,
  };
}
