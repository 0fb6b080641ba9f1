import { createHmac } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { type GuardOptions, hostAllowed, originAllowed, tokenMatches } from "../api/guard.ts";

// Who may use the page. The same Host and Origin rules as the API (DNS rebinding); a browser
// cannot send a bearer token, so a server with a token asks for it once on a form and answers with
// an HttpOnly SameSite=Strict cookie holding a value derived from it (never the token itself, so
// the cookie is no bearer token for the API). Every change (any method but GET/HEAD) must come
// from this very origin: Sec-Fetch-Site same-origin, or, from an older browser, a matching Origin;
// a request with neither is refused (CSRF).

export const COOKIE = "memsync_ui";

/** A strict policy: scripts and styles only from the binary's own files, no inline anything. */
export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function sessionValue(token: string): string {
  return createHmac("sha256", token).update("memsync web session v1").digest("base64url");
}

export function isWebPath(path: string): boolean {
  return path === "/" || path === "/favicon.ico" || path === "/ui" || path.startsWith("/ui/");
}

function cookieOf(c: Context, name: string): string | undefined {
  for (const part of (c.req.header("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function signedIn(c: Context, token: string | null): boolean {
  if (token === null) return true;
  const v = cookieOf(c, COOKIE);
  return v !== undefined && tokenMatches(v, sessionValue(token));
}

/** Whether a change comes from a page of this origin. */
export function sameOrigin(c: Context): boolean {
  // a browser's own header, which no page can set; an older browser's Origin otherwise
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined) return site === "same-origin";
  const origin = c.req.header("origin");
  return origin !== undefined && originAllowed(origin, c.req.header("host"));
}

function refuse(status: number, text: string): Response {
  return new Response(`<!doctype html><title>memsync</title><p>${text}</p>`, { status, headers: { "content-type": "text/html; charset=utf-8" } });
}

function secure(res: Response): void {
  const h = res.headers;
  h.set("Content-Security-Policy", CSP);
  h.set("X-Content-Type-Options", "nosniff");
  // no-referrer would make a browser send "Origin: null" on the page's own form posts
  h.set("Referrer-Policy", "same-origin");
  h.set("X-Frame-Options", "DENY");
  if (!h.has("Cache-Control")) h.set("Cache-Control", "no-store");
}

export function webGuard(opts: GuardOptions): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host");
    if (!hostAllowed(host, opts)) return refuse(403, "The Host header does not name this server.");
    const change = c.req.method !== "GET" && c.req.method !== "HEAD";
    if (change ? !sameOrigin(c) : !originAllowed(c.req.header("origin"), host)) return refuse(403, "Refused: a change must come from this page (cross-site request).");
    const open = c.req.path === "/ui/login" || c.req.path === "/favicon.ico" || c.req.path.startsWith("/ui/static/");
    if (!open && !signedIn(c, opts.token)) {
      if (change || c.req.header("accept") === "text/event-stream") return refuse(401, "Sign in first.");
      return c.redirect("/ui/login", 303);
    }
    await next();
    secure(c.res);
  };
}

export function loginCookie(c: Context, token: string): string {
  const https = new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
  return `${COOKIE}=${sessionValue(token)}; Path=/; HttpOnly; SameSite=Strict${https ? "; Secure" : ""}`;
}
