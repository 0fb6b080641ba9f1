import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync, memsyncJson, newStore, tempDir, filesUnder } from "../helpers/env.ts";
import { leaks, loadSecrets } from "../helpers/secrets.ts";

// No secret reaches a file: every secret of the corpus is written through save (argument, stdin,
// --input with every free-text field), update, relate, remember and capture (text and hook
// payload); then every file of the store (records, index, journal, git's own files) and every
// object in git's history is searched for each secret. Any hit fails.

const SECRETS = loadSecrets();

function ok(args: string[], input?: string, cwd?: string): any {
  const r = memsync([...args, "--json"], { input, cwd });
  assert.equal(r.code, 0, `memsync ${args.slice(2, 4).join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const allFiles = (dir: string) => filesUnder(dir);

// the corpus in parts of 7, one store each (about 70 processes a part): each test stays far inside
// its timeout even on a machine at load 30, where one process takes a second
const PER_PART = 7;
const PARTS = Array.from({ length: Math.ceil(SECRETS.length / PER_PART) }, (_, i) => SECRETS.slice(i * PER_PART, i * PER_PART + PER_PART));

describe("secrets never reach a file", () => {
  assert.ok(SECRETS.length >= 30);
  for (const [n, PART] of PARTS.entries()) {
    test(`${PART.length} secrets (part ${n + 1} of ${PARTS.length} of the corpus) through every write path, then every file and every git object`, { timeout: 300_000 }, () => {
      const store = newStore();
      const cwd = tempDir();
      const anchor = ok(["--store", store, "save", "anchor memory"]).memory.id as string;
      let captured = 0;
      for (const s of PART) {
        // save: text on standard input, and every free-text field through --input
        const saved = ok(["--store", store, "save", "-"], `Note: ${s.text}`);
        ok(["--store", store, "save", "--input", "-"], JSON.stringify({
          content: `Deploy notes ${s.kind}`,
          gist: s.text,
          type: "decision",
          decision: { what: "use the vault", why: s.text, alternatives: [s.text], constraints: [s.text], tradeoffs: [s.text] },
          meta: { source: s.text, context: s.text, extra: { raw: s.text } },
          x_future_field: { nested: [s.text] },
        }));
        ok(["--store", store, "save", `Gist and source ${s.kind}`, `--gist=${s.text}`, `--source=${s.text}`, `--context=${s.text}`]);
        // update: new content, new context
        ok(["--store", store, "update", saved.memory.id, "--content", "-"], `Rotated: ${s.text}`);
        ok(["--store", store, "update", anchor, `--context=${s.text}`]);
        // relate: relation metadata (--meta splits its values at commas)
        ok(["--store", store, "relate", saved.memory.id, anchor, "--meta", `why=${s.text.replaceAll(",", " ")}`]);
        // remember and capture, the text itself and a hook payload
        ok(["--store", store, "remember", "-"], `We decided to use Vault because ${s.text}`, cwd);
        const c = ok(["--store", store, "capture", `Let's use PostgreSQL for billing ${s.kind} because the config has ${s.text}`], undefined, cwd);
        captured += c.stored.length;
        const payload = { session_id: s.text, cwd, hook_event_name: "UserPromptSubmit", prompt: `I chose Redis over Memcached for ${s.kind} since ${s.text}` };
        captured += ok(["--store", store, "capture"], JSON.stringify(payload), cwd).stored.length;
        // a commit now and then: history is checked too
        if (s === PART[Math.floor(PART.length / 2)]) ok(["--store", store, "commit"]);
      }
      assert.ok(captured >= PART.length * 2 - 2, `capture stored ${captured} memories (every prompt above states a decision)`);
      ok(["--store", store, "commit"]);
      assert.equal(memsync(["--store", store, "status"]).code, 0);

      const files = allFiles(store);
      assert.ok(files.some((f) => f.endsWith("index.db")) && files.some((f) => f.includes(`${path.sep}.git${path.sep}`)));
      const found: string[] = [];
      for (const f of files) {
        const bytes = fs.readFileSync(f).toString("latin1");
        const utf8 = fs.readFileSync(f, "utf8");
        for (const s of PART) if (leaks(bytes, s.secret) || leaks(utf8, s.secret)) found.push(`${s.kind} in ${path.relative(store, f)}`);
      }
      // git's objects are compressed on disk: read every one of them, and the history as patches
      const objects = spawnSync("git", ["cat-file", "--batch-all-objects", "--batch"], { cwd: store, encoding: "latin1", maxBuffer: 256 * 1024 * 1024 });
      assert.equal(objects.status, 0, objects.stderr);
      const history = git(store, "log", "-p", "--all", "--format=%H %s%n%b");
      assert.equal(history.status, 0);
      assert.ok(history.stdout.includes("capture: "), "the history holds the captures");
      for (const s of PART) {
        if (leaks(objects.stdout, s.secret)) found.push(`${s.kind} in a git object`);
        if (leaks(history.stdout, s.secret)) found.push(`${s.kind} in git log -p`);
      }
      assert.deepEqual(found, [], `secrets leaked:\n${found.join("\n")}`);
    });
  }

  test("a token as an object key (--input JSON, --meta) and env-style assignments: in no file and no git object", () => {
    const store = newStore();
    const gh = SECRETS.find((s) => s.kind === "github-token")!.secret;
    const gl = SECRETS.find((s) => s.kind === "gitlab-token")!.secret;
    const pg = SECRETS.find((s) => s.kind === "env-pgpassword")!;
    const a = ok(["--store", store, "save", "--input", "-"], JSON.stringify({ content: `psql with ${pg.text}`, meta: { extra: { [gh]: 1, [`${gh.slice(0, -3)}QRS`]: 2 } }, [gl]: { note: "x" } }));
    const b = ok(["--store", store, "save", "a second memory"]);
    ok(["--store", store, "relate", a.memory.id, b.memory.id, "--meta", `${gh}=1`, "--meta", `PGPASSWORD=${pg.secret}`]);
    ok(["--store", store, "update", b.memory.id, "--input", "-"], JSON.stringify({ meta: { extra: { [gl]: "v", api_key: pg.secret } } }));
    ok(["--store", store, "commit"]);
    const stored = ok(["--store", store, "get", a.memory.id]);
    const extra = stored.found[0].memory.meta.extra;
    assert.deepEqual(Object.keys(extra).sort(), ["[REDACTED:github-token]", "[REDACTED:github-token]-2"], "both keys survive");
    const secrets = [gh, gl, pg.secret, `${gh.slice(0, -3)}QRS`];
    const found: string[] = [];
    for (const f of allFiles(store)) {
      const bytes = fs.readFileSync(f).toString("latin1");
      for (const s of secrets) if (leaks(bytes, s)) found.push(`${s.slice(0, 6)} in ${path.relative(store, f)}`);
    }
    const objects = spawnSync("git", ["cat-file", "--batch-all-objects", "--batch"], { cwd: store, encoding: "latin1", maxBuffer: 64 * 1024 * 1024 });
    assert.equal(objects.status, 0, objects.stderr);
    const history = git(store, "log", "-p", "--all");
    assert.match(history.stdout, /REDACTED:github-token/, "the redacted keys are in history");
    for (const s of secrets) {
      if (leaks(objects.stdout, s)) found.push(`${s.slice(0, 6)} in a git object`);
      if (leaks(history.stdout, s)) found.push(`${s.slice(0, 6)} in git log -p`);
    }
    assert.deepEqual(found, []);
  });
});
