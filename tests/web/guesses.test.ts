import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { createApi } from "../../src/faces/api/app.ts";
import { clientKey, GUESSES } from "../../src/faces/api/token-guesses.ts";
import { hostOpsEnv } from "../../src/runtime/ops-env.ts";

// Wrong tokens off loopback, in-process (app.request with the peer address the server would pass):
// past GUESSES wrong tokens from one address, the API and the page's sign-in both answer 429 with
// Retry-After, even to the right token; another address is not held back; a right token before
// the limit clears the count. No store is opened: every request here is answered by the guards.

const TOKEN = "guess-" + "k3j4h5g6".repeat(4);
const HOST = "203.0.113.9:7457";

describe("wrong tokens are limited per address", () => {
  const api = createApi({
    env: hostOpsEnv(path.join(os.tmpdir(), "memsync-guesses-no-store")),
    self: [],
    guard: { listenHost: "0.0.0.0", allowHosts: [], token: TOKEN },
  });
  after(() => api.close());

  const bearer = (token: string, remote: string) => api.app.request("/v1/openapi.json", { headers: { host: HOST, authorization: `Bearer ${token}` } }, { remote });
  const signIn = (token: string, remote: string) =>
    api.app.request("/ui/login", { method: "POST", headers: { host: HOST, "sec-fetch-site": "same-origin", "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token }).toString() }, { remote });

  test("the API: wrong tokens are 403 until the limit, then 429 with Retry-After even for the right one", async () => {
    const me = "198.51.100.20";
    assert.equal((await bearer(TOKEN, me)).status, 200);
    for (let i = 0; i < GUESSES; i++) assert.equal((await bearer(`wrong-${i}`, me)).status, 403, `guess ${i + 1}`);
    const held = await bearer("wrong-again", me);
    assert.equal(held.status, 429);
    const wait = Number(held.headers.get("retry-after"));
    assert.ok(wait > 0 && wait <= 15 * 60, String(wait));
    assert.equal(((await held.json()) as { error: { code: string } }).error.code, "too_many_requests");
    assert.equal((await bearer(TOKEN, me)).status, 429, "a right token while held back tells nothing");
    // the same address's sign-in form is held back too (one count for one token)
    const page = await signIn(TOKEN, me);
    assert.equal(page.status, 429);
    assert.ok(Number(page.headers.get("retry-after")) > 0);
    assert.equal(page.headers.get("set-cookie"), null);
    // another address is not
    assert.equal((await bearer(TOKEN, "198.51.100.21")).status, 200);
  });

  test("the sign-in form: a right token before the limit clears the count", async () => {
    const me = "2001:db8:1:2:aaaa::5";
    for (let i = 0; i < GUESSES - 1; i++) assert.equal((await signIn(`wrong-${i}`, me)).status, 403);
    const ok = await signIn(TOKEN, me);
    assert.equal(ok.status, 303);
    assert.match(ok.headers.get("set-cookie") ?? "", /^memsync_ui=/);
    for (let i = 0; i < GUESSES; i++) assert.equal((await signIn(`wrong-${i}`, me)).status, 403, `counted from zero again: guess ${i + 1}`);
    // the next wrong one from anywhere in the same /64 is refused
    const held = await signIn("wrong", "2001:db8:1:2:ffff::9");
    assert.equal(held.status, 429);
    assert.match(await held.text(), /Too many wrong tokens/);
  });

  test("addresses as counted: IPv4 itself, IPv4-mapped IPv6 as IPv4, IPv6 by its /64", () => {
    assert.equal(clientKey("198.51.100.7"), "198.51.100.7");
    assert.equal(clientKey("::ffff:198.51.100.7"), "198.51.100.7");
    assert.equal(clientKey("2001:0db8:0001:0002:aaaa::5"), "2001:db8:1:2::/64");
    assert.equal(clientKey("2001:db8::1"), "2001:db8:0:0::/64");
    assert.equal(clientKey("::1"), "0:0:0:0::/64");
    assert.equal(clientKey(undefined), "unknown");
  });
});
