import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, filesUnder, snapshot } from "../helpers/env.ts";
import { hub, machine } from "../helpers/hub.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// The four sharing scopes as rules (README: Scopes), on two machines through a bare remote, with
// the compiled binary: a local memory never leaves its machine (no commit, no push, no git object
// anywhere), changing scope to or from local moves the file in one commit, a global memory is
// pushed without user identity. Real processes, real git. Each test runs 10 to 30 memsync and git
// processes: about 6 to 25 s on a quiet machine, up to 70 s at load 80, hence 240 s of room.

const A = { MEMSYNC_MACHINE: "laptop", MEMSYNC_USER: "alice" };
const B = { MEMSYNC_MACHINE: "desktop", MEMSYNC_USER: "bob" };

const run = async (dir: string, env: Record<string, string>, ...args: string[]) => await memsyncJson(["--store", dir, ...args], { env });
const sync = async (dir: string, env: Record<string, string>) => await run(dir, env, "sync");
const saveId = async (dir: string, env: Record<string, string>, ...args: string[]) => (await run(dir, env, "save", ...args)).memory.id as string;

/** Every object of a repository (reachable or not, loose or packed), as the text git prints it. */
function allObjectText(gitdir: string): string {
  const all = spawnSync("git", ["--git-dir", gitdir, "cat-file", "--batch-all-objects", "--batch"], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  assert.equal(all.status, 0, all.stderr);
  // and what history reaches, the way the brief names it (rev-list --objects --all, then cat-file)
  const listed = spawnSync("git", ["--git-dir", gitdir, "rev-list", "--objects", "--all"], { encoding: "utf8" });
  assert.equal(listed.status, 0, listed.stderr);
  const oids = listed.stdout.split("\n").filter(Boolean).map((l) => l.split(" ")[0]).join("\n");
  const reached = spawnSync("git", ["--git-dir", gitdir, "cat-file", "--batch"], { input: `${oids}\n`, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  assert.equal(reached.status, 0, reached.stderr);
  assert.ok(reached.stdout.length > 0, "history holds objects");
  return all.stdout + reached.stdout;
}

const listIds = async (dir: string, env: Record<string, string>) => ((await run(dir, env, "list")).memories as { id: string }[]).map((m) => m.id);
const searchIds = async (dir: string, env: Record<string, string>, q: string) => ((await run(dir, env, "search", q)).hits as { memory: { id: string } }[]).map((h) => h.memory.id);
const recallIds = async (dir: string, env: Record<string, string>, q: string) => ((await run(dir, env, "recall", q)).items as { id: string }[]).map((i) => i.id);
const gotten = async (dir: string, env: Record<string, string>, id: string) => await memsync(["--store", dir, "get", id, "--json"], { env });
/** Record files of a store that git tracks (not .git, not .memsync). */
const sharedFiles = (dir: string) => [...filesUnder(path.join(dir, "memories")), ...filesUnder(path.join(dir, "relations"))].map((p) => path.relative(dir, p));
const localFiles = (dir: string) => (fs.existsSync(path.join(dir, ".memsync/local")) ? filesUnder(path.join(dir, ".memsync/local")).map((p) => path.relative(dir, p)) : []);

describe("scopes", () => {
  test("a local memory (and a relation to it) is found on A, never on B, and is in no git object of A, B or the remote", { timeout: 240_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare, A);
    const b = machine(h.root, "b", h.bare, B);
    const local = await saveId(a, A, "--scope", "local", "quartzmarmot plan for the private laptop only");
    const team = await saveId(a, A, "team note about the shared quartzmarmot build");
    // a relation with a local memory at one end is local: it would name the local id
    const rel = (await run(a, A, "relate", team, local)).relation.id as string;
    await run(a, A, "touch", local);
    // A finds it by every read
    assert.ok((await listIds(a, A)).includes(local));
    assert.ok((await searchIds(a, A, "quartzmarmot")).includes(local));
    assert.ok((await recallIds(a, A, "quartzmarmot private laptop")).includes(local));
    assert.equal((await run(a, A, "get", team)).found[0].outgoing[0].id, rel);
    assert.deepEqual(localFiles(a).sort(), [`.memsync/local/memories/${local}.json`, `.memsync/local/relations/${rel}.json`].sort());
    assert.ok(!sharedFiles(a).some((p) => p.includes(local) || p.includes(rel)));

    await sync(a, A);
    await sync(b, B);
    await run(b, B, "touch", team);
    await sync(b, B);
    await sync(a, A);
    // B: the team memory, never the local one nor its relation
    assert.equal((await gotten(b, B, local)).code, 3);
    assert.ok(!(await listIds(b, B)).includes(local));
    assert.deepEqual(await searchIds(b, B, "quartzmarmot"), [team]);
    assert.equal((await run(b, B, "get", team)).found[0].outgoing.length, 0);
    assert.ok(!fs.existsSync(path.join(b, ".memsync/local")));
    // no git object on A, B or the remote holds its text or names it or its relation
    for (const gitdir of [path.join(a, ".git"), path.join(b, ".git"), h.bare]) {
      const text = allObjectText(gitdir);
      assert.ok(text.includes("shared quartzmarmot build"), `${gitdir} holds the team memory`);
      for (const leak of ["private laptop", local, rel, local.slice(-8)]) assert.ok(!text.includes(leak), `${gitdir} holds ${leak}`);
    }
    // A still has it as it was, its use counted
    const onA = (await run(a, A, "get", local)).found[0];
    assert.equal(onA.memory.use_count, 1);
    assert.equal(onA.incoming[0].id, rel);
  });

  test("local→team appears on B in one commit; team→local leaves B's files in one commit and stays on A", { timeout: 240_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare, A);
    const b = machine(h.root, "b", h.bare, B);
    const SECRET = "ibexfalcon notes, private for now";
    const x = await saveId(a, A, "--scope", "local", SECRET);
    const team = await saveId(a, A, "the ibexfalcon team page");
    const rel = (await run(a, A, "relate", team, x)).relation.id as string;
    await sync(a, A);

    // local → team: one commit adds the memory and its relation; B gets both
    await run(a, A, "update", x, "--scope", "team");
    assert.deepEqual(localFiles(a), []);
    const moved = (await run(a, A, "commit")).commits as { message: string; paths: string[] }[];
    assert.equal(moved.length, 1);
    assert.deepEqual(moved[0]!.paths.sort(), [`memories/${x}.json`, `relations/${rel}.json`]);
    assert.match(moved[0]!.message, /scope local → team/);
    await sync(a, A);
    await sync(b, B);
    const onB = (await run(b, B, "get", x)).found[0];
    assert.equal(onB.memory.content, SECRET);
    assert.equal(onB.incoming[0].id, rel);

    // team → local: one commit deletes both shared files, and its message quotes nothing
    await run(a, A, "update", x, "--scope", "local");
    const gone = (await run(a, A, "commit")).commits as { message: string; paths: string[] }[];
    assert.equal(gone.length, 1);
    assert.deepEqual(gone[0]!.paths.sort(), [`memories/${x}.json`, `relations/${rel}.json`]);
    assert.doesNotMatch(gone[0]!.message, /ibexfalcon|private/);
    await sync(a, A);
    await sync(b, B);
    assert.ok(!sharedFiles(b).some((p) => p.includes(x) || p.includes(rel)));
    assert.equal((await gotten(b, B, x)).code, 3);
    assert.deepEqual(await searchIds(b, B, "ibexfalcon"), [team]);
    assert.equal((await run(a, A, "get", x)).found[0].memory.scope, "local");
    assert.deepEqual((await searchIds(a, A, "ibexfalcon")).sort(), [x, team].sort());
    assert.deepEqual(localFiles(a).sort(), [`.memsync/local/memories/${x}.json`, `.memsync/local/relations/${rel}.json`].sort());
    // history that was pushed keeps the shared versions (README: Scopes)
    const log = spawnSync("git", ["--git-dir", h.bare, "log", "--format=%s", "main"], { encoding: "utf8" }).stdout;
    assert.match(log, /scope team → local/);
  });

  test("a global memory is pushed without user or session, also when a team memory becomes global", { timeout: 240_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare, A);
    const g = await saveId(a, A, "--scope", "global", "Always pin the toolchain version");
    const input = JSON.stringify({ content: "Prefer small releases", captured_by: { session: "sess-7f3a", agent: "claude-code" } });
    const t = (await memsyncJson(["--store", a, "save", "--input", "-"], { env: A, input })).memory;
    assert.equal(t.captured_by.user, "alice");
    assert.equal(t.captured_by.session, "sess-7f3a");
    const made = (await run(a, A, "update", t.id, "--scope", "global")).memories[0];
    assert.equal(made.captured_by.user, null);
    assert.equal(made.captured_by.agent, "claude-code");
    const remembered = (await memsyncJson(["--store", a, "remember", "--global", "Always validate input at API boundaries"], { env: A })).memory;
    assert.equal(remembered.captured_by?.user ?? null, null);
    await sync(a, A);
    for (const id of [g, t.id, remembered.id]) {
      const shown = spawnSync("git", ["--git-dir", h.bare, "show", `main:memories/${id}.json`], { encoding: "utf8" });
      assert.equal(shown.status, 0, shown.stderr);
      const onRemote = JSON.parse(shown.stdout);
      assert.equal(onRemote.scope, "global");
      assert.equal(onRemote.captured_by.user ?? null, null);
      assert.equal(onRemote.captured_by.session ?? null, null);
      assert.ok(!shown.stdout.includes("alice") && !shown.stdout.includes("sess-7f3a"), shown.stdout);
    }
  });

  test("team→local on A while B uses it: the merge brings it back, A removes the shared copy again, B loses it", { timeout: 240_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare, A);
    const b = machine(h.root, "b", h.bare, B);
    const x = await saveId(a, A, "the snowleopard runbook, soon private");
    const t = await saveId(a, A, "the snowleopard team page");
    const rel = (await run(a, A, "relate", t, x)).relation.id as string;
    await sync(a, A);
    await sync(b, B);
    await run(b, B, "touch", x); // B uses it while A makes it local
    await run(a, A, "update", x, "--scope", "local");
    await sync(a, A);
    const merged = await sync(b, B); // a use wins over a deletion: B keeps it, and pushes it back
    assert.equal(merged.pull.mode, "merge");
    assert.equal((await gotten(b, B, x)).code, 0);
    const back = await sync(a, A); // the shared copy comes back to A, which removes it again and pushes that
    assert.deepEqual([...back.pull.kept_local].sort(), [x, rel].sort());
    assert.ok(!sharedFiles(a).some((p) => p.includes(x) || p.includes(rel)));
    assert.deepEqual(localFiles(a).sort(), [`.memsync/local/memories/${x}.json`, `.memsync/local/relations/${rel}.json`].sort());
    const onA = (await run(a, A, "get", x)).found[0];
    assert.equal(onA.memory.scope, "local");
    assert.equal(onA.memory.content_conflicts, undefined, "a use alone keeps no text");
    assert.equal(onA.incoming[0].id, rel);
    assert.equal((await run(a, A, "status")).health, "healthy");
    await sync(b, B);
    assert.equal((await gotten(b, B, x)).code, 3);
    assert.ok(!sharedFiles(b).some((p) => p.includes(x) || p.includes(rel)));
    const tree = spawnSync("git", ["--git-dir", h.bare, "ls-tree", "-r", "--name-only", "main"], { encoding: "utf8" }).stdout;
    assert.ok(!tree.includes(x) && !tree.includes(rel), tree);
  });

  test("team→local on A while B edits its text: B's text is kept on A, in the local copy's content conflicts", { timeout: 240_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare, A);
    const b = machine(h.root, "b", h.bare, B);
    const x = await saveId(a, A, "the narwhal runbook, soon private");
    await sync(a, A);
    await sync(b, B);
    await run(a, A, "update", x, "--scope", "local");
    await run(b, B, "update", x, "--content", "the narwhal runbook: restart the queue first, then the API");
    await sync(a, A);
    await sync(b, B); // an edit wins over a deletion: B pushes the memory back with its text
    const back = await sync(a, A);
    assert.deepEqual(back.pull.kept_local, [x]);
    const onA = (await run(a, A, "get", x)).found[0].memory;
    assert.equal(onA.scope, "local");
    assert.equal(onA.content, "the narwhal runbook, soon private");
    assert.deepEqual(
      onA.content_conflicts.map((c: { content: string; machine: string }) => c.content),
      ["the narwhal runbook: restart the queue first, then the API"],
      "B's acknowledged text is not dropped",
    );
    assert.equal((await run(a, A, "conflicts")).conflicts.length, 1);
    assert.ok(!sharedFiles(a).some((p) => p.includes(x)));
    await sync(b, B);
    assert.equal((await gotten(b, B, x)).code, 3, "B no longer shares it");
  });

  test("a shared memory file marked local by hand is never committed; update --scope local moves it out of git", { timeout: 240_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare, A);
    const id = await saveId(a, A, "wombatcrest draft");
    await run(a, A, "commit");
    const file = path.join(a, "memories", `${id}.json`);
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace('"scope": "team"', '"scope": "local"').replace("wombatcrest draft", "wombatcrest secret draft"));
    const refused = await memsync(["--store", a, "commit"], { env: A });
    assert.equal(refused.code, 7, refused.stderr);
    assert.match(refused.stdout + refused.stderr, /scope local in a shared folder/);
    await run(a, A, "update", id, "--scope", "local");
    assert.ok(!fs.existsSync(file));
    await run(a, A, "commit");
    await sync(a, A);
    assert.ok(!allObjectText(h.bare).includes("wombatcrest secret"));
    assert.equal((await run(a, A, "get", id)).found[0].memory.content, "wombatcrest secret draft");
  });

  test("a bad scope value: one line, exit 4, nothing changed", { timeout: 240_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare, A);
    const id = await saveId(a, A, "a team memory");
    const before = snapshot(a, (rel) => rel === ".git" || rel === ".memsync");
    for (const args of [["update", id, "--scope", "private"], ["save", "--scope", "everyone", "text"], ["remember", "--scope", "nobody", "Use Postgres"]]) {
      const r = await memsync(["--store", a, ...args], { env: A });
      assert.ok(r.code === 2 || r.code === 4, `${args.join(" ")}: exit ${r.code}`);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.match(r.stderr, /local, user, team, global/);
    }
    assert.deepEqual(snapshot(a, (rel) => rel === ".git" || rel === ".memsync"), before);
    assert.equal((await run(a, A, "get", id)).found[0].memory.scope, "team");
  });
});
