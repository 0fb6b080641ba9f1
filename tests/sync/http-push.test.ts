import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { concatBytes } from "../../src/core/bytes.ts";
import { basicAuth, parseAdvertisement, parsePktLines, pktLine } from "../../src/sync/http-push.ts";

// The pieces of the HTTP push's protocol that are pure (the push itself runs against real git
// http-backend in http.test.ts, http-transfer.test.ts and crash-transfer.test.ts).

const enc = new TextEncoder();
const dec = new TextDecoder();
const cat = (...parts: Uint8Array[]) => concatBytes(parts);
const FLUSH = enc.encode("0000");
const A = "a".repeat(40);
const B = "b".repeat(40);

describe("HTTP push protocol pieces", () => {
  test("pkt-lines: length prefix, flush, and a cut-short body refused", () => {
    assert.equal(dec.decode(pktLine("hello\n")), "000ahello\n");
    const lines = parsePktLines(cat(pktLine("one\n"), FLUSH, pktLine("two")));
    assert.deepEqual(lines.map((l) => (l === null ? null : dec.decode(l))), ["one\n", null, "two"]);
    assert.throws(() => parsePktLines(enc.encode("0010abc")), /malformed/);
    assert.throws(() => parsePktLines(enc.encode("zz10abcdefghijkl")), /malformed/);
  });

  test("a receive-pack advertisement: refs and capabilities; an empty repository has none", () => {
    const body = cat(pktLine("# service=git-receive-pack\n"), FLUSH, pktLine(`${A} refs/heads/main\0report-status delete-refs agent=git/2.43\n`), pktLine(`${B} refs/heads/other\n`), FLUSH);
    const adv = parseAdvertisement(body);
    assert.deepEqual([...adv.refs], [["refs/heads/main", A], ["refs/heads/other", B]]);
    assert.ok(adv.capabilities.has("report-status"));
    assert.ok(adv.capabilities.has("agent=git/2.43"));
    const empty = parseAdvertisement(cat(pktLine("# service=git-receive-pack\n"), FLUSH, pktLine(`${"0".repeat(40)} capabilities^{}\0report-status\n`), FLUSH));
    assert.equal(empty.refs.size, 0);
    assert.ok(empty.capabilities.has("report-status"));
    assert.throws(() => parseAdvertisement(cat(pktLine("not a ref line\n"), FLUSH)), /unexpected line/);
  });

  test("the token goes as Basic x-access-token, UTF-8 safe; none without a token", () => {
    assert.deepEqual(basicAuth(undefined), {});
    const h = basicAuth("tøken-✓")["authorization"]!;
    assert.match(h, /^Basic /);
    const raw = Uint8Array.from(atob(h.slice(6)), (c) => c.charCodeAt(0));
    assert.equal(dec.decode(raw), "x-access-token:tøken-✓");
  });
});
