import { invalidInput } from "../core/errors.ts";

// Which HTTP(S) URLs a store may sync with. A token travels in a header, never in the URL: a URL
// with user:password@ or a secret in its query (?private_token=, ?access_token=, ?key=...) is
// refused, and no message ever repeats the secret (safeUrl). Plain http:// would send the token
// and every memory unencrypted: it is refused, except for a server on this machine (a loopback
// address) when the user asked for it with --insecure-http.

/** Query parameters whose name says they carry a secret. */
const SECRET_PARAM = /token|key|secret|passw|pwd|auth|sig|credential|session|jwt/i;

/** A URL as it may appear in a message: no user, no password, no query values, no fragment. */
export function safeUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return raw.replace(/\/\/[^/\s]*@/, "//***@").replace(/[?#].*$/, "?***");
  }
  const user = u.username || u.password ? "***@" : "";
  const query = [...u.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=***`).join("&");
  return `${u.protocol}//${user}${u.host}${u.pathname}${query ? `?${query}` : ""}`;
}

/** 127.0.0.0/8, ::1 and localhost: a server on this machine. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost") || h === "::1") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * The URL of an HTTP(S) remote, normalized, or a refusal (exit 4) that says what to do instead.
 * `insecureHttp`: the user allowed plain http for this remote (loopback hosts only).
 */
export function checkHttpUrl(raw: string, insecureHttp: boolean): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw invalidInput(`not a valid URL (${safeUrl(raw)})`);
  }
  if (u.username || u.password) throw invalidInput(`a remote URL must not carry credentials (${safeUrl(raw)}): put the token in MEMSYNC_GIT_TOKEN`);
  for (const name of u.searchParams.keys()) {
    if (SECRET_PARAM.test(name)) throw invalidInput(`a remote URL must not carry a secret in its query (${safeUrl(raw)}): put the token in MEMSYNC_GIT_TOKEN`);
  }
  if (u.protocol === "http:") {
    if (!isLoopback(u.hostname)) {
      throw invalidInput(`plain http:// to ${u.host} would send the token and the memories unencrypted: use https:// (--insecure-http allows only a server on this machine)`);
    }
    if (!insecureHttp) {
      throw invalidInput(`plain http:// sends the token and the memories unencrypted (${safeUrl(raw)}): use https://, or for a server on this machine give --insecure-http to remote set or clone`);
    }
  }
  u.hash = "";
  return u.toString();
}
