import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { call, connect, serverEnv } from "../mcp/client.ts";
import { filesUnder, initStore, memsync, memsyncJson, snapshot, tempDir } from "../helpers/env.ts";
import { post, startServer, withServer } from "../helpers/server.ts";

// What audit21 found and left (audit22): each test runs the compiled binary (the CLI, serve, mcp)
// and failed on the binary of 72313c5.

const skipVolatile = (rel: string) => rel.endsWith("-wal") || rel.endsWith("-shm");

/** A store with one memory, settled (a first write's lock file made), and that memory's id. */
function storeWithOne(): { store: string; id: string } {
  const store = initStore();
  const id = memsyncJson(["--store", store, "save", "a note about the release train", "--project", "api"]).memory.id;
  memsyncJson(["--store", store, "commit"]);
  return { store, id };
}

describe("audit22: an empty or blank project is refused", () => {
  test("save and update through the CLI: exit 4, one line, nothing changed", () => {
    const { store, id } = storeWithOne();
    const before = snapshot(store, skipVolatile);
    for (const args of [
      ["save", "a second note", "--project", ""],
      ["save", "a second note", "--project", "   "],
      ["update", id, "--project", ""],
      ["update", id, "--project", " \t"],
    ]) {
      const r = memsync(["--store", store, ...args]);
      assert.equal(r.code, 4, `${args.join(" ")} -> ${r.code}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /^memsync: --project must not be empty: give a name, or null for none\n$/);
    }
    for (const [args, input] of [
      [["save", "--input", "-"], '{"content": "a second note", "project": ""}'],
      [["save", "--input", "-"], '[{"content": "one"}, {"content": "two", "project": "  "}]'],
      [["update", id, "--input", "-"], '{"project": " "}'],
    ] as const) {
      const r = memsync(["--store", store, ...args], { input });
      assert.equal(r.code, 4, `${input} -> ${r.code}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /project must not be empty/);
    }
    assert.deepEqual(snapshot(store, skipVolatile), before, "nothing written");
    // a real name, and null (no project), still work
    assert.equal(memsyncJson(["--store", store, "update", id, "--project", "web"]).memories[0].project, "web");
    assert.equal(memsyncJson(["--store", store, "update", id, "--input", "-"], { input: '{"project": null}' }).memories[0].project, null);
  });

  test("a first save with a blank project creates no store", () => {
    const store = path.join(tempDir(), "store");
    const r = memsync(["--store", store, "save", "a note", "--project", " "]);
    assert.equal(r.code, 4, r.stderr);
    assert.ok(!fs.existsSync(store), "no store made");
  });

  test("the API answers 400 and MCP an invalid_input error, through the same operation", async () => {
    const { store, id } = storeWithOne();
    const before = snapshot(store, skipVolatile);
    await withServer(store, async (s) => {
      const saved = await post(`${s.url}/v1/save`, { memory: { content: "a note", project: "" } });
      assert.equal(saved.status, 400, JSON.stringify(saved.body));
      assert.equal(saved.body.error.code, "invalid_input");
      assert.match(saved.body.error.message, /project must not be empty/);
      const updated = await post(`${s.url}/v1/update`, { id, patch: { project: "  " } });
      assert.equal(updated.status, 400, JSON.stringify(updated.body));
    });
    const c = await connect(["--store", store, "mcp"], "legacy", serverEnv());
    try {
      for (const [tool, args] of [
        ["save", { memory: { content: "a note", project: " " } }],
        ["update", { id, patch: { project: "" } }],
      ] as const) {
        const a = await call(c.client, tool, args);
        assert.equal(a.isError, true, a.text);
        assert.equal(JSON.parse(a.text).error.code, "invalid_input", a.text);
        assert.match(a.text, /project must not be empty/);
      }
    } finally {
      await c.close();
    }
    assert.deepEqual(snapshot(store, skipVolatile), before);
  });
});

describe("audit22: an import's blank project", () => {
  test("a source record's blank project is none (or the import's), never stored, never a skipped record; a blank --project is refused", () => {
    const dir = tempDir();
    const src = path.join(dir, "cg");
    fs.mkdirSync(src);
    const a = "0b8f0c2e-3c1a-4d7e-9f10-1a2b3c4d5e6f";
    const b = "1c9e1d3f-4d2b-4e8f-8a21-2b3c4d5e6f70";
    const rec = (id: string, project: string) => JSON.stringify({ id, content: `memory ${id.slice(0, 4)}`, created_at: 1, last_used: 1, project });
    fs.writeFileSync(path.join(src, "memories.jsonl"), `${rec(a, "")}\n${rec(b, "  ")}\n`);
    fs.writeFileSync(path.join(src, "relations.jsonl"), "");
    const plain = initStore(path.join(dir, "s1"));
    const out = memsyncJson(["--store", plain, "import", "cortexgraph", src]);
    assert.deepEqual(out.memories, { imported: 2, existing: 0, invalid: 0 });
    for (const id of [a, b]) assert.equal(memsyncJson(["--store", plain, "get", id]).found[0].memory.project, null);
    const named = initStore(path.join(dir, "s2"));
    memsyncJson(["--store", named, "import", "cortexgraph", src, "--project", "web"]);
    for (const id of [a, b]) assert.equal(memsyncJson(["--store", named, "get", id]).found[0].memory.project, "web");
    const blank = initStore(path.join(dir, "s3"));
    const r = memsync(["--store", blank, "import", "cortexgraph", src, "--project", "  "]);
    assert.equal(r.code, 4, r.stdout + r.stderr);
    assert.match(r.stderr, /^memsync: import: project must not be empty\n$/);
  });
});

describe("audit22: an input with a prototype key is bad input", () => {
  const INPUTS = [
    '{"__proto__": {"content": "changed"}}',
    '{"constructor": {"content": "changed"}}',
    '{"prototype": 1}',
    '{"content": "changed", "__proto__": {"x": 1}}',
    '{"meta": {"__proto__": {"x": 1}}}',
    '{"meta": {"extra": {"constructor": "x"}}}',
    '{"decision": {"what": "x", "alternatives": [{"prototype": 1}]}}',
  ];

  test("update --input: exit 4, the key named, nothing changed (it said 'nothing to update', exit 2)", () => {
    const { store, id } = storeWithOne();
    const before = snapshot(store, skipVolatile);
    for (const input of INPUTS) {
      const r = memsync(["--store", store, "update", id, "--input", "-"], { input });
      assert.equal(r.code, 4, `${input} -> ${r.code}: ${r.stdout}${r.stderr}`);
      const key = /"(__proto__|constructor|prototype)"/.exec(input)![1]!;
      assert.match(r.stderr, new RegExp(`^memsync: update: patch\\.[^ ]*${key}: a key named "${key}" is not allowed`));
    }
    assert.deepEqual(snapshot(store, skipVolatile), before, "nothing written");
    // save's direct path too: a nested key goes to the check, and no store is made
    const fresh = path.join(tempDir(), "store");
    const s = memsync(["--store", fresh, "save", "--input", "-"], { input: '{"content": "a note", "meta": {"__proto__": {"x": 1}}}' });
    assert.equal(s.code, 4, s.stderr);
    assert.match(s.stderr, /^memsync: save: memory\.meta\.__proto__: a key named "__proto__" is not allowed/);
    assert.ok(!fs.existsSync(fresh));
    const many = memsync(["--store", store, "save", "--input", "-"], { input: '[{"content": "one"}, {"content": "two", "constructor": 1}]' });
    assert.equal(many.code, 4, many.stderr);
    assert.match(many.stderr, /memories\[1\]\.constructor/);
    assert.deepEqual(snapshot(store, skipVolatile), before);
    // a value that is such a word is no key: kept
    const ok = memsyncJson(["--store", store, "update", id, "--input", "-"], { input: '{"category": "constructor", "meta": {"extra": {"role": "__proto__"}}}' });
    assert.equal(ok.memories[0].category, "constructor");
  });

  test("serve answers 400, MCP an invalid_input error; nothing changed", async () => {
    const { store, id } = storeWithOne();
    const before = snapshot(store, skipVolatile);
    await withServer(store, async (s) => {
      for (const input of INPUTS) {
        const r = await post(`${s.url}/v1/update`, `{"id": "${id}", "patch": ${input}}`);
        assert.equal(r.status, 400, `${input}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, "invalid_input");
      }
      const top = await post(`${s.url}/v1/save`, '{"memory": {"content": "x"}, "__proto__": {"memory": {"content": "y"}}}');
      assert.equal(top.status, 400, JSON.stringify(top.body));
      const rel = await post(`${s.url}/v1/relate`, `{"from": "${id}", "to": "${id}", "metadata": {"constructor": 1}}`);
      assert.equal(rel.status, 400, JSON.stringify(rel.body));
      assert.match(rel.body.error.message, /metadata\.constructor/);
    });
    const c = await connect(["--store", store, "mcp"], "legacy", serverEnv());
    try {
      for (const input of INPUTS.slice(0, 2)) {
        const a = await call(c.client, "update", { id, patch: JSON.parse(input) });
        assert.equal(a.isError, true, a.text);
        assert.equal(JSON.parse(a.text).error.code, "invalid_input", a.text);
      }
    } finally {
      await c.close();
    }
    assert.deepEqual(snapshot(store, skipVolatile), before);
  });
});

describe("audit22: a token file others can read is refused, as ssh refuses such a key", () => {
  /** The server's start: null when it listened (then stopped), else the error it exited with. */
  async function startError(store: string, tokenPath: string): Promise<string | null> {
    return startServer(store, { args: ["--listen", "127.0.0.1:0", "--token-file", tokenPath] }).then(
      async (s) => (await s.stop(), null),
      (e: Error) => e.message,
    );
  }

  test("mode 644 or 640, directly or through a link: refused with how to fix it; 600 starts", async () => {
    const store = initStore();
    const dir = tempDir();
    const file = path.join(dir, "api-token");
    fs.writeFileSync(file, "a-token-of-at-least-16-chars\n", { mode: 0o600 });
    const link = path.join(dir, "token-link");
    fs.symlinkSync(file, link);
    for (const mode of [0o644, 0o640, 0o604]) {
      fs.chmodSync(file, mode);
      for (const p of [file, link]) {
        const err = await startError(store, p);
        assert.ok(err !== null, `mode ${mode.toString(8)} via ${p}: the server started`);
        assert.match(err, new RegExp(`serve exited 2 before listening: memsync: --token-file ${p} can be read by (others|its group) \\(mode 0${mode.toString(8)}\\): it holds a secret; run chmod 600 ${p}$`));
      }
    }
    fs.chmodSync(file, 0o600);
    assert.equal(await startError(store, file), null);
    assert.equal(await startError(store, link), null, "a link's own mode does not count, its target's does");
    // a folder is no token file
    assert.match((await startError(store, dir)) ?? "", /is not a file/);
  });
});

describe("audit22: a key with no name before it", () => {
  test("save and capture through the binary store no 40-character secret key said in prose", () => {
    const store = initStore();
    const key = "Qm8TzR2vK/9xLw4NpA7cJ1eHs5Ud3Yb+0GfVtXiO";
    const saved = memsyncJson(["--store", store, "save", `I set up the uploader with secret ${key} yesterday`]).memory;
    assert.equal(saved.content, "I set up the uploader with secret [REDACTED:aws-secret-key] yesterday");
    // what looks like one but is not stays: a git SHA, a UUID, base64 of words, a path
    const plain = "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904, id 3f2504e0-4f89-11d3-9a0c-0305e82c3301, blob dGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVy, src/components/UserProfile/Settings2Form";
    assert.equal(memsyncJson(["--store", store, "save", plain]).memory.content, plain);
    memsyncJson(["--store", store, "commit"]);
    for (const f of filesUnder(store)) assert.ok(!fs.readFileSync(f).includes(key), `${f} holds the key`);
  });
});
