import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { ServeEnv } from "../../runtime/serve.ts";
import { apiError } from "./errors.ts";
import { clientKey, type TokenGuesses } from "./token-guesses.ts";

// Who may ask: every request's Host and Origin are checked (a web page whose name was rebound to
// this address must not reach the store: DNS rebinding), then its bearer token when the server has
// one. The token is compared in constant time and never logged or echoed.

export interface GuardOptions {
  /** The host the server listens on (an IP or a name), or null for a Unix socket. */
  listenHost: string | null;
  /** More names the Host header may carry (a reverse proxy's public name). */
  allowHosts: readonly string[];
  /** The bearer token every request must carry; null: none asked (loopback or socket only). */
  token: string | null;
  /** Wrong tokens counted per client (set by createApi when there is a token). */
  guesses?: TokenGuesses;
}

/** The client's address as the wrong-token limit counts it (Hono's c.env: runtime/serve.ts). */
export const clientOf = (env: unknown): string => clientKey((env as ServeEnv | undefined)?.remote);

/** The answer to a client refused for sending too many wrong tokens. */
export function tooManyGuesses(waitS: number): Response {
  const res = apiError("too_many_requests", `too many wrong tokens from this address: try again in ${waitS} s`);
  res.headers.set("Retry-After", String(waitS));
  return res;
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h.endsWith(".localhost");
}

const isUnspecified = (host: string) => host === "0.0.0.0" || host === "::" || host === "[::]";

const isIpLiteral = (host: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || /^\[[0-9a-f:.]+\]$/i.test(host);

/** The host part of a Host header (no port), lower case; IPv6 keeps its brackets. */
export function hostOnly(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const colon = h.lastIndexOf(":");
  return colon === -1 ? h : h.slice(0, colon);
}

/** Whether a Host header names this server: a loopback name, the listen address, or an allowed name. */
export function hostAllowed(header: string | undefined, opts: GuardOptions): boolean {
  if (!header) return false;
  const host = hostOnly(header);
  if (host === "") return false;
  if (LOOPBACK_NAMES.has(host) || isLoopbackHost(host)) return true;
  if (opts.allowHosts.some((a) => a.toLowerCase() === host)) return true;
  const listen = opts.listenHost?.toLowerCase();
  if (listen === undefined) return false;
  const bracketed = listen.includes(":") && !listen.startsWith("[") ? `[${listen}]` : listen;
  if (host === listen || host === bracketed) return true;
  // listening on every address: any address literal is this machine's (a rebound name never is one)
  return isUnspecified(listen) && isIpLiteral(host);
}

/** A browser's Origin is allowed only for a page served from this very host (same origin). */
export function originAllowed(origin: string | undefined, hostHeader: string | undefined): boolean {
  if (origin === undefined) return true;
  if (!hostHeader) return false;
  try {
    const u = new URL(origin);
    return (u.protocol === "http:" || u.protocol === "https:") && u.host.toLowerCase() === hostHeader.trim().toLowerCase();
  } catch {
    return false; // "null" (a sandboxed page, a file) and anything unparsable
  }
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Constant time whatever the lengths: the digests are compared, never the texts. */
export function tokenMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function guard(opts: GuardOptions): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host");
    if (!hostAllowed(host, opts)) return apiError("forbidden", "the Host header does not name this server (start it with --allow-host NAME for a proxy's name)");
    if (!originAllowed(c.req.header("origin"), host)) return apiError("forbidden", "requests from another origin are refused");
    if (opts.token !== null) {
      const auth = c.req.header("authorization");
      const m = auth ? /^Bearer[ \t]+(\S+)\s*$/i.exec(auth) : null;
      if (!m) {
        const res = apiError("unauthorized", "this server needs a bearer token: Authorization: Bearer TOKEN");
        res.headers.set("WWW-Authenticate", 'Bearer realm="memsync"');
        return res;
      }
      const right = tokenMatches(m[1]!, opts.token);
      const client = clientOf(c.env);
      const wait = opts.guesses ? await (right ? opts.guesses.right(client) : opts.guesses.wrong(client)) : 0;
      if (wait) return tooManyGuesses(wait);
      if (!right) return apiError("forbidden", "the bearer token is wrong");
    }
    await next();
  };
}
