import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import { MemorySchema } from "../../src/core/model/memory.ts";
import { parseJsonText, parseWith } from "../../src/core/model/validate.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { loadAll } from "../../src/store/load-all.ts";
import { memsync, memsyncAsync, newStore, REPO, type Run, tempDir } from "../helpers/env.ts";
import { slowness } from "../helpers/load.ts";

// Several real processes on one store: the compiled binary (dist/memsync) for the CLI, and a
// small Bun script over src/store/store.ts for the crash test. Writers are serialized by the
// index's write lock; a crashed writer must leave no torn record and no stuck lock.

const BUN = path.join(REPO, "node_modules", ".bin", "bun");

function ok(r: Run, what: string): Run {
  assert.equal(r.code, 0, `${what} exited ${r.code}: ${r.stderr}`);
  return r;
}

async function json<T = any>(args: string[]): Promise<T> {
  const r = ok(await memsyncAsync([...args, "--json"]), `memsync ${args.join(" ")}`);
  return JSON.parse(r.stdout) as T;
}

/** Every file under dir, relative, with "/" separators. */
function walk(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...walk(dir, r));
    else out.push(r);
  }
  return out;
}

const memoryFiles = (root: string) => walk(path.join(root, "memories")).filter((f) => f.endsWith(".json") && !path.basename(f).startsWith("."));
/** Temp files in the record folders, at the store's top and in .memsync (status reports them all). */
const tempFiles = (root: string) =>
  [
    ...["memories", "relations"].flatMap((top) => walk(path.join(root, top)).map((f) => `${top}/${f}`)),
    ...fs.readdirSync(root),
    ...fs.readdirSync(path.join(root, ".memsync")).map((f) => `.memsync/${f}`),
  ].filter((f) => {
    const name = path.basename(f);
    return (name.startsWith(".") || name.startsWith("journal.jsonl.")) && name.endsWith(".tmp");
  });

describe("concurrent memsync processes on one store", () => {
  test("two processes saving 25 memories each at the same time: all 50 are kept", { timeout: 180_000 }, async () => {
    const store = newStore(); // no index yet: the first saves also race to create it
    const writer = async (name: string) => {
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) {
        const out = await json(["save", "--store", store, `note ${i} from writer ${name} kilo${name}${i}`, "--tag", `writer-${name}`]);
        ids.push(out.memory.id);
      }
      return ids;
    };
    const [a, b] = await Promise.all([writer("a"), writer("b")]);
    const all = [...a, ...b];
    assert.equal(new Set(all).size, 50, "50 distinct ids");
    const files = memoryFiles(store);
    assert.equal(files.length, 50);
    assert.deepEqual(files.map((f) => path.basename(f, ".json")).sort(), [...all].sort());
    const listed = await json(["list", "--store", store, "--limit", "0"]);
    assert.equal(listed.total, 50);
    assert.equal(listed.memories.length, 50);
    for (const w of ["a", "b"]) {
      const tagged = await json(["list", "--store", store, "--limit", "0", "--tag", `writer-${w}`]);
      assert.equal(tagged.total, 25, `writer ${w}`);
    }
    const status = await json(["status", "--store", store]);
    assert.equal(status.health, "healthy");
    assert.equal(status.memories.total, 50);
    assert.deepEqual(status.problems, []);
    assert.deepEqual(status.temp_files, []);
  });

  test("two processes touching the same memory 25 times each: use_count is exactly 50", { timeout: 180_000 }, async () => {
    const store = newStore();
    const saved = await json(["save", "--store", store, "a memory everyone uses"]);
    const id: string = saved.memory.id;
    const toucher = async () => {
      for (let i = 0; i < 25; i++) ok(await memsyncAsync(["touch", "--store", store, id, "--boost"]), "touch");
    };
    await Promise.all([toucher(), toucher()]);
    const got = await json(["get", "--store", store, id]);
    assert.equal(got.found.length, 1);
    const m = got.found[0].memory;
    assert.equal(m.use_count, 50, "no touch was lost");
    assert.equal(m.strength, 2, "boosted 50 times, capped at 2.0");
    assert.ok(m.last_used >= saved.memory.last_used);
    // the file agrees with what get reports
    const file = JSON.parse(fs.readFileSync(path.join(store, got.found[0].path), "utf8"));
    assert.equal(file.use_count, 50);
  });

  test("80 touch processes, 25 at a time, on one memory: none refused as busy, none lost", { timeout: 240_000 }, async () => {
    // a busy timeout (10 s, the bound) that the crowd outlasts many times over: a writer
    // gives up only after that long without any writer making progress, however long in all
    // (SQLite's own busy handler refused 4 of 200 touches, 50 at a time, at 15 s; 20 of these 80
    // at 4 s; a cap of four times the timeout in all refused one at load 40, after 40 s of
    // waiting while a touch landed every second)
    const store = newStore();
    const id: string = (await json(["save", "--store", store, "a memory every hook touches"])).memory.id;
    const total = 80;
    let next = 0;
    const refused: string[] = [];
    let succeeded = 0;
    const worker = async () => {
      while (next < total) {
        next++;
        const r = await memsyncAsync(["touch", "--store", store, id], { env: { MEMSYNC_BUSY_TIMEOUT_MS: "10000" } });
        if (r.code === 0) succeeded++;
        else refused.push(`exit ${r.code}: ${r.stderr.trim()}`);
      }
    };
    const t0 = Date.now();
    await Promise.all(Array.from({ length: 25 }, worker));
    const elapsed = Date.now() - t0;
    const m = (await json(["get", "--store", store, id])).found[0].memory;
    assert.equal(m.use_count, succeeded, "use_count is the number of touches that succeeded");
    assert.deepEqual(refused, [], `${refused.length} of ${total} refused in ${elapsed} ms`);
    assert.equal(m.use_count, total);
  });

  test("a writer and a searcher in parallel: each sees the other's finished saves", { timeout: 180_000 }, async () => {
    const store = newStore();
    const rounds = 12;
    const finished: Record<string, string[]> = { a: [], b: [] }; // words whose save has returned
    const misses: string[] = [];
    const agent = async (me: "a" | "b") => {
      const other = me === "a" ? "b" : "a";
      for (let i = 0; i < rounds; i++) {
        const word = `${me}word${i}n${Math.floor(Math.random() * 1e6)}`;
        ok(await memsyncAsync(["save", "--store", store, `agent ${me} learned ${word}`]), "save");
        finished[me]!.push(word);
        // everything the other agent has finished saving must be found right away
        const seen = [...finished[other]!];
        const last = seen[seen.length - 1];
        if (last !== undefined) {
          const r = await json(["search", "--store", store, last]);
          if (r.total !== 1) misses.push(`${me} could not find ${other}'s ${last} (total ${r.total})`);
        }
        // and my own save is visible to a fresh process too
        const own = await json(["search", "--store", store, word]);
        if (own.total !== 1) misses.push(`${me} could not find its own ${word}`);
      }
    };
    await Promise.all([agent("a"), agent("b")]);
    assert.deepEqual(misses, []);
    // afterwards every word is found, each in exactly one memory (one process: any of the words)
    const words = [...finished.a!, ...finished.b!];
    const found = await json(["search", "--store", store, "--any", "--limit", "0", ...words]);
    assert.equal(found.total, 2 * rounds);
    for (const w of words) assert.equal(found.hits.filter((h: { memory: { content: string } }) => h.memory.content.includes(w)).length, 1, w);
    const listed = await json(["list", "--store", store, "--limit", "0"]);
    assert.equal(listed.total, 2 * rounds);
  });

  test("processes that find a damaged index at the same time lose no touch and double none", { timeout: 180_000 }, async () => {
    const failures: string[] = [];
    // one store made once, copied for each round (its index is damaged anyway)
    const template = newStore();
    const id: string = (await json(["save", "--store", template, "a memory touched during recovery"])).memory.id;
    for (let round = 0; round < 6; round++) {
      const store = path.join(tempDir(), "store");
      fs.cpSync(template, store, { recursive: true });
      const dbDir = path.join(store, ".memsync");
      for (const f of fs.readdirSync(dbDir)) if (f.startsWith("index.db")) fs.rmSync(path.join(dbDir, f));
      fs.writeFileSync(path.join(dbDir, "index.db"), Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 131 + round) & 0xff)));
      const runs = await Promise.all(Array.from({ length: 12 }, () => memsyncAsync(["touch", "--store", store, id])));
      const succeeded = runs.filter((r) => r.code === 0).length;
      // a process whose index was replaced under its write says so and asks to check the result
      // (exit 6): its touch may or may not have landed, but none may be lost or doubled
      const unsure = runs.filter((r) => r.code === 6 && /damaged during this change.*check the result/.test(r.stderr)).length;
      const useCount = JSON.parse(fs.readFileSync(path.join(store, "memories", `${id}.json`), "utf8")).use_count;
      if (succeeded + unsure !== 12 || useCount < succeeded || useCount > succeeded + unsure) {
        failures.push(`round ${round}: ${succeeded}/12 touches succeeded, use_count ${useCount}; ${runs.map((r) => r.stderr.trim()).filter(Boolean).join(" | ")}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});

// The child: a Bun script over the in-process store that saves ~40 KB memories, and rewrites
// some, in a loop until it is killed.
const CRASH_WRITER = (repo: string) => `
import { Store } from ${JSON.stringify(path.join(repo, "src/store/store.ts"))};
import { createMemory, updateMemory } from ${JSON.stringify(path.join(repo, "src/core/records.ts"))};
import { newId } from ${JSON.stringify(path.join(repo, "src/core/new-id.ts"))};

const root = process.argv[2];
const store = await Store.open(root);
const filler = "crash-safe writes keep every record whole. ".repeat(950); // ~40 KB
const mine = [];
process.stdout.write("ready\\n");
for (let i = 0; ; i++) {
  if (i === 1) process.stdout.write("wrote\\n");
  await store.write((tx) => {
    const origin = { now: tx.now, machine: "crash-test", user: null };
    if (mine.length > 0 && i % 3 === 2) {
      const id = mine[i % mine.length];
      const { memory } = updateMemory(tx.memory(id), { content: "rewrite " + i + " " + filler }, tx.now);
      tx.putMemory(memory);
    } else {
      const id = newId();
      tx.putMemory(createMemory({ content: "note " + i + " " + filler, tags: ["crash"] }, id, origin));
      mine.push(id);
    }
  });
}
`;

/** Run the writer and SIGKILL it delayMs after it prints `after` ("ready": before its first write; "wrote": after it). */
function runUntilKilled(script: string, store: string, delayMs: number, after: "ready" | "wrote" = "ready"): Promise<{ signal: string | null; stderr: string; ready: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BUN, [script, store], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let ready = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // never hang the suite; a loaded machine is given more time to start bun (at load 58 on 2
    // cores a writer did not print "ready" within a flat 20 s)
    const guard = setTimeout(() => child.kill("SIGKILL"), 20_000 * slowness());
    child.stderr.on("data", (d) => (stderr += d));
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (!ready && out.includes(after)) {
        ready = true;
        timer = setTimeout(() => child.kill("SIGKILL"), delayMs);
      }
    });
    child.on("error", reject);
    child.on("close", (_code, signal) => {
      clearTimeout(guard);
      if (timer) clearTimeout(timer);
      resolve({ signal, stderr, ready });
    });
  });
}

describe("a writer killed with SIGKILL", () => {
  test("leaves no torn record, no stuck lock, and temp files reported as temp_files", { timeout: 180_000 }, async () => {
    const store = newStore();
    const dir = tempDir("memsync-crash-");
    const script = path.join(dir, "crash-writer.ts");
    fs.writeFileSync(script, CRASH_WRITER(REPO));
    // each round: two writers contend for the lock and each is killed at its own random moment
    // (one may die holding the lock while the other waits for it)
    const rounds = Array.from({ length: 6 }, () => [40 + Math.floor(Math.random() * 360), 40 + Math.floor(Math.random() * 360)] as const);
    const label = `kill delays ${rounds.map((r) => r.join("/")).join(", ")} ms`;
    for (const [i, delays] of rounds.entries()) {
      // the first round's first writer is killed only after a write of its own has finished, so
      // the store holds something to check however slowly a loaded machine runs the writers (at
      // load 44 every writer of a run was killed before its first write ended)
      const runs = await Promise.all(delays.map((d, w) => runUntilKilled(script, store, d, i === 0 && w === 0 ? "wrote" : "ready")));
      for (const r of runs) {
        assert.ok(r.ready, `the writer did not start: ${r.stderr}`);
        assert.equal(r.signal, "SIGKILL", `the writer ended on its own: ${r.stderr}`);
      }
    }

    // every record file on disk is a whole, valid memory
    const files = memoryFiles(store);
    assert.ok(files.length > 0, `the writer saved nothing (${label})`);
    for (const f of files) {
      const text = fs.readFileSync(path.join(store, "memories", f), "utf8");
      const json = parseJsonText(text);
      assert.ok(json.ok, `torn file memories/${f} (${label})`);
      const m = parseWith(MemorySchema, json.value);
      assert.ok(m.ok, `invalid memories/${f}: ${m.ok ? "" : m.problem} (${label})`);
      assert.equal(m.value.id, path.basename(f, ".json"));
      assert.ok(m.value.content.length > 40_000);
    }
    const loaded = loadAll(nodeFs, store);
    assert.deepEqual(loaded.problems, [], label);

    // status: nothing corrupt; leftovers of interrupted writes are temp files, not problems
    const statusRun = memsync(["status", "--store", store, "--json"]);
    assert.equal(statusRun.code, 0, statusRun.stderr);
    const status = JSON.parse(statusRun.stdout);
    assert.equal(status.health, "healthy", `${status.reasons} (${label})`);
    assert.deepEqual(status.problems, [], label);
    assert.deepEqual([...status.temp_files].sort(), tempFiles(store).sort(), label);
    for (const t of status.temp_files as string[]) assert.match(path.basename(t), /^(\.|journal\.jsonl\.).*\.tmp$/);

    // the index agrees with the files, and the store still takes writes (no lock left held)
    const listed = JSON.parse(ok(memsync(["list", "--store", store, "--limit", "0", "--json"]), "list").stdout);
    assert.equal(listed.total, files.length, label);
    assert.deepEqual(listed.memories.map((m: { id: string }) => m.id).sort(), [...loaded.memories.keys()].sort());
    const after = JSON.parse(ok(memsync(["save", "--store", store, "after the crashes", "--json"]), "save after crash").stdout);
    assert.equal(JSON.parse(ok(memsync(["list", "--store", store, "--limit", "0", "--json"]), "list").stdout).total, files.length + 1);
    assert.ok(after.memory.id);
  });
});
