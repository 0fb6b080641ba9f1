import fs from "node:fs";
import { invalidInput } from "../core/errors.ts";

// The token for an HTTP(S) remote: MEMSYNC_GIT_TOKEN, else a credentials file that only its
// owner can read (lines "<url prefix> <token>"; the longest matching prefix wins). A token is
// handed to isomorphic-git per request and is never written to .git/config, a commit or a log.

export interface Credentials {
  token?: string;
  file?: string;
  /** How long an HTTP request to the remote may go without receiving a byte (http-client.ts). */
  httpIdleMs?: number;
}

export function tokenFor(url: string, creds: Credentials): string | undefined {
  if (creds.token) return creds.token;
  if (!creds.file || !fs.existsSync(creds.file)) return undefined;
  const st = fs.statSync(creds.file);
  if ((st.mode & 0o077) !== 0) {
    throw invalidInput(`${creds.file} can be read by others: it holds tokens (run: chmod 600 ${creds.file})`);
  }
  let best: { prefix: string; token: string } | undefined;
  for (const line of fs.readFileSync(creds.file, "utf8").split("\n")) {
    const [prefix, token] = line.trim().split(/\s+/);
    if (!prefix || !token || prefix.startsWith("#")) continue;
    if (url.startsWith(prefix) && (!best || prefix.length > best.prefix.length)) best = { prefix, token };
  }
  return best?.token;
}
