import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Gate } from "../../src/ops/gate.ts";
import { hostAllowed, originAllowed, tokenMatches } from "../../src/faces/api/guard.ts";
import { queryInput } from "../../src/faces/api/query-input.ts";
import { parseDuration, parseListen } from "../../src/faces/cli/commands/serve.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PendingCount } from "../../src/faces/api/health.ts";
import { readJournal } from "../../src/store/journal.ts";
import { nodeFs } from "../../src/store/fs-port.ts";

// The API's pieces in-process: the gate (one writer, reads together, in order of arrival), the
// Host/Origin/token checks, the query-string reading, the serve options.

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("the API's pieces", () => {
  test("gate: a write runs alone, reads run together, and a waiting write holds back later reads", async () => {
    const gate = new Gate();
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const job = (name: string, write: boolean) =>
      gate.run(write, async () => {
        running++;
        most = Math.max(most, running);
        if (write) assert.equal(running, 1, `${name} runs alone`);
        log.push(`+${name}`);
        await tick();
        log.push(`-${name}`);
        running--;
      });
    await Promise.all([job("r1", false), job("r2", false), job("w1", true), job("r3", false), job("w2", true)]);
    assert.deepEqual(log, ["+r1", "+r2", "-r1", "-r2", "+w1", "-w1", "+r3", "-r3", "+w2", "-w2"]);
    assert.equal(most, 2);
    assert.ok(gate.idle);
    // a failing job lets the next one in
    await assert.rejects(gate.run(true, async () => Promise.reject(new Error("boom"))));
    assert.equal(await gate.run(true, async () => 7), 7);
  });

  test("Host: loopback names, the listen address, allowed names; never a rebound name", () => {
    const local = { listenHost: "127.0.0.1", allowHosts: ["mem.example.com"], token: null };
    for (const h of ["127.0.0.1:7457", "localhost", "LOCALHOST:1", "[::1]:7457", "127.0.0.2", "app.localhost", "mem.example.com:443"]) assert.ok(hostAllowed(h, local), h);
    for (const h of [undefined, "", "evil.com", "127.0.0.1.nip.io", "mem.example.com.evil.io", "10.0.0.5", "localhost.evil.com"]) assert.ok(!hostAllowed(h, local), String(h));
    const any = { listenHost: "0.0.0.0", allowHosts: [], token: "t" };
    assert.ok(hostAllowed("203.0.113.7:7457", any));
    assert.ok(hostAllowed("[2001:db8::1]:7457", any));
    assert.ok(!hostAllowed("mem.example.com", any));
    const v6 = { listenHost: "::1", allowHosts: [], token: null };
    assert.ok(hostAllowed("[::1]:7457", v6));
  });

  test("Origin: none, or this very host; token compared whatever its length", () => {
    assert.ok(originAllowed(undefined, "localhost:7457"));
    assert.ok(originAllowed("http://localhost:7457", "localhost:7457"));
    assert.ok(!originAllowed("http://localhost:7458", "localhost:7457"));
    assert.ok(!originAllowed("null", "localhost:7457"));
    assert.ok(!originAllowed("file:///x", "localhost:7457"));
    assert.ok(tokenMatches("a".repeat(20), "a".repeat(20)));
    assert.ok(!tokenMatches("a".repeat(19), "a".repeat(20)));
    assert.ok(!tokenMatches("", "a"));
  });

  test("query strings read as the input schema says: repeated arrays, numbers, booleans, objects", () => {
    const schema = {
      type: "object",
      properties: { ids: { type: "array", items: { type: "string" } }, limit: { type: "integer" }, scores: { type: "boolean" }, patch: { type: "object" }, n: { type: "array", items: { type: "number" } } },
    };
    const q = new URLSearchParams("ids=a&ids=b&limit=5&scores&patch=%7B%22x%22%3A1%7D&n=1.5&other=z&limit=6");
    assert.deepEqual(queryInput(q, schema), { ids: ["a", "b"], limit: 6, scores: true, patch: { x: 1 }, n: [1.5], other: "z" });
    assert.deepEqual(queryInput(new URLSearchParams("limit=many&scores=maybe"), schema), { limit: "many", scores: "maybe" });
  });

  test("serve's options: --listen forms, port 0, durations", () => {
    assert.deepEqual(parseListen("0.0.0.0:80"), { hostname: "0.0.0.0", port: 80 });
    assert.deepEqual(parseListen("[::1]:0"), { hostname: "::1", port: 0 });
    assert.deepEqual(parseListen(":9000"), { hostname: "127.0.0.1", port: 9000 });
    assert.deepEqual(parseListen("9000"), { hostname: "127.0.0.1", port: 9000 });
    assert.deepEqual(parseListen("localhost"), { hostname: "localhost", port: 7457 });
    for (const bad of ["x:y", "1.2.3.4:70000", "a:b:c"]) assert.throws(() => parseListen(bad), /--listen/, bad);
    assert.equal(parseDuration("5m"), 300_000);
    assert.equal(parseDuration("1h"), 3_600_000);
    assert.equal(parseDuration("30"), 30_000);
    for (const bad of ["", "0s", "500ms", "5 minutes"]) assert.throws(() => parseDuration(bad), /at least 1s/, bad);
  });

  test("health's count of journaled changes: appended lines are read once, a commit's rewrite or removal starts again, a torn line waits for its newline; a large backlog is counted in the background", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-pending-"));
    fs.mkdirSync(path.join(root, ".memsync"));
    const journal = path.join(root, ".memsync", "journal.jsonl");
    const line = (op: string, n: number) => `${JSON.stringify({ op, message: `${op} ${n} é`, paths: [`memories/${n}.json`], at: n })}\n`;
    const pending = new PendingCount();
    const truth = () => readJournal(nodeFs, root).filter((e) => e.op !== "rescan").length;
    assert.equal(pending.of(root), 0); // no journal
    fs.writeFileSync(journal, line("rescan", 0) + line("save", 1));
    assert.equal(pending.of(root), 1);
    fs.appendFileSync(journal, line("touch", 2) + "not json\n" + line("update", 3));
    assert.equal(pending.of(root), 3);
    assert.equal(pending.of(root), truth());
    // a torn append: not counted until its line is whole
    const half = line("save", 4);
    fs.appendFileSync(journal, half.slice(0, 20));
    assert.equal(pending.of(root), 3);
    fs.appendFileSync(journal, half.slice(20));
    assert.equal(pending.of(root), 4);
    assert.equal(pending.of(root), truth());
    // a line torn by a crash and continued by the next append is no entry; an entry written with
    // its keys in another order is one
    fs.appendFileSync(journal, line("save", 40).slice(0, 30) + line("touch", 41) + JSON.stringify({ message: "m", paths: [], op: "update", at: 1 }) + "\n" + line("rescan", 42));
    assert.equal(pending.of(root), 5);
    assert.equal(pending.of(root), truth());
    // a commit keeps the entries appended meanwhile: the journal is replaced (rename)
    fs.writeFileSync(`${journal}.tmp`, line("save", 5));
    fs.renameSync(`${journal}.tmp`, journal);
    assert.equal(pending.of(root), 1);
    fs.unlinkSync(journal);
    assert.equal(pending.of(root), 0);
    fs.writeFileSync(journal, line("save", 6) + line("save", 7));
    assert.equal(pending.of(root), 2);
    // a backlog over SYNC_BYTES (a server's first call on a large journal) is counted in the
    // background: null (not known yet) until then, whatever the chunks cut (lines longer than a
    // chunk too), then the same count as parsing it whole
    const chunk = 4096;
    const long = (n: number) => `${JSON.stringify({ op: "save", message: "x".repeat(n % 3 === 0 ? chunk + 17 : 300), paths: [], at: n })}\n`;
    let big = "";
    for (let n = 0; big.length <= 5 * chunk; n++) big += n % 7 === 0 ? line("rescan", n) : long(n);
    // and lines of many chunks (an import's entry holding every text)
    big += `${JSON.stringify({ op: "import", message: "y".repeat(10 * chunk + 5), paths: [], at: 1 })}\n${line("touch", 9)}`;
    big += `${JSON.stringify({ op: "import", message: "z".repeat(7 * chunk), paths: [], at: 2 })}\n`;
    fs.appendFileSync(journal, big + line("save", 8).slice(0, 10));
    const fresh = new PendingCount(chunk);
    assert.equal(fresh.of(root), null);
    assert.equal(fresh.of(root), null);
    let counted: number | null = null;
    for (let i = 0; i < 500 && counted === null; i++) {
      await tick();
      counted = fresh.of(root);
    }
    assert.equal(counted, truth());
    fs.appendFileSync(journal, line("save", 8).slice(10));
    assert.equal(fresh.of(root), truth());
    fs.rmSync(root, { recursive: true, force: true });
  });
});
