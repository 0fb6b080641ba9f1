import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync, newStore, tempDir, filesUnder } from "../helpers/env.ts";
import { leaks, loadSecrets } from "../helpers/secrets.ts";

// No secret reaches a file: every secret of the corpus is written through save (argument, stdin,
// --input with every free-text field), update, relate, remember and capture (text and hook
// payload); then every file of the store (records, index, journal, git's own files) and every
// object in git's history is searched for each secret. Any hit fails.
//
// One store takes the whole corpus. A write path that takes many values in one run gets them all
// at once (save --input takes a JSON array; a text takes one labelled line per secret; relate
// takes many --meta), and each secret's label must come back in what was stored, so no secret's
// line was swallowed by a neighbour's redaction (an unterminated private key runs to the end of
// its text, so the one such secret comes last). Capture must store every sentence it was given.
// Two stores: the explicit write paths, and capture.

const SECRETS = loadSecrets();

function ok(args: string[], input?: string, cwd?: string): any {
  const r = memsync([...args, "--json"], { input, cwd });
  assert.equal(r.code, 0, `memsync ${args.slice(2, 4).join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const allFiles = (dir: string) => filesUnder(dir);

// A private key with no end line runs to the end of its text: in a joined text it goes last.
const JOINED = [...SECRETS.filter((s) => !s.kind.includes("unterminated")), ...SECRETS.filter((s) => s.kind.includes("unterminated"))];
/** One line per secret, each labelled with its number (not its kind: "kind: text" reads as a secret). */
const lines = (label: string) => JOINED.map((s, i) => `${label} ${i}: ${s.text}`).join("\n");
/** Every secret's label is in text: none was lost (or hidden inside a neighbour's redaction). */
function everyLabel(text: string, label: string, where: string): void {
  const missing = JOINED.filter((_, i) => !text.includes(`${label} ${i}:`)).map((s) => s.kind);
  assert.deepEqual(missing, [], `${where}: these secrets' lines did not come back`);
}

/** Every file under store and every git object and patch: no secret in any of them. */
function leaksIn(store: string, secrets: string[], label = (s: string) => s.slice(0, 6)): string[] {
  const found: string[] = [];
  for (const f of allFiles(store)) {
    const bytes = fs.readFileSync(f).toString("latin1");
    const utf8 = fs.readFileSync(f, "utf8");
    for (const s of secrets) if (leaks(bytes, s) || leaks(utf8, s)) found.push(`${label(s)} in ${path.relative(store, f)}`);
  }
  // git's objects are compressed on disk: read every one of them, and the history as patches
  const objects = spawnSync("git", ["cat-file", "--batch-all-objects", "--batch"], { cwd: store, encoding: "latin1", maxBuffer: 256 * 1024 * 1024 });
  assert.equal(objects.status, 0, objects.stderr);
  const history = git(store, "log", "-p", "--all", "--format=%H %s%n%b");
  assert.equal(history.status, 0);
  for (const s of secrets) {
    if (leaks(objects.stdout, s)) found.push(`${label(s)} in a git object`);
    if (leaks(history.stdout, s)) found.push(`${label(s)} in git log -p`);
  }
  return found;
}

/** Commit what is left, then search every file and git object of the store for every secret. */
function finish(store: string, subject: string): void {
  ok(["--store", store, "commit"]);
  assert.equal(memsync(["--store", store, "status"]).code, 0);
  const files = allFiles(store);
  assert.ok(files.some((f) => f.endsWith("index.db")) && files.some((f) => f.includes(`${path.sep}.git${path.sep}`)));
  assert.ok(git(store, "log", "--all", "--format=%s").stdout.includes(subject), `the history holds a "${subject}" commit`);
  const kinds = new Map(SECRETS.map((s) => [s.secret, s.kind]));
  const found = leaksIn(store, SECRETS.map((s) => s.secret), (s) => kinds.get(s)!);
  assert.deepEqual(found, [], `secrets leaked:\n${found.join("\n")}`);
}

describe("secrets never reach a file", () => {
  assert.ok(SECRETS.length >= 30);
  test(`all ${SECRETS.length} secrets of the corpus through save, update, relate and remember, then every file and every git object`, { timeout: 300_000 }, () => {
    const store = newStore();
    const cwd = tempDir();
    const anchor = ok(["--store", store, "save", "anchor memory"]).memory.id as string;

    // save: every free-text field of one record per secret, all through one --input array
    const batch = ok(["--store", store, "save", "--input", "-"], JSON.stringify(SECRETS.map((s) => ({
      content: `Deploy notes ${s.kind}`,
      gist: s.text,
      type: "decision",
      decision: { what: "use the vault", why: s.text, alternatives: [s.text], constraints: [s.text], tradeoffs: [s.text] },
      meta: { source: s.text, context: s.text, extra: { raw: s.text } },
      x_future_field: { nested: [s.text] },
    }))));
    const batchText = JSON.stringify(batch);
    for (const s of SECRETS) assert.ok(batchText.includes(`Deploy notes ${s.kind}"`), `save --input stored the record of ${s.kind}`);
    // save: text on standard input, and gist, source and context as arguments
    const saved = ok(["--store", store, "save", "-"], lines("Note"));
    everyLabel(saved.memory.content, "Note", "save -");
    const args = ok(["--store", store, "save", "Gist and source", `--gist=${lines("Gist")}`, `--source=${lines("Source")}`, `--context=${lines("Context")}`]);
    everyLabel(args.memory.gist, "Gist", "save --gist");
    everyLabel(args.memory.meta.source, "Source", "save --source");
    everyLabel(args.memory.meta.context, "Context", "save --context");
    ok(["--store", store, "commit"]); // history between the writes is checked too
    // update: new content, new context
    everyLabel(ok(["--store", store, "update", saved.memory.id, "--content", "-"], lines("Rotated")).memories[0].content, "Rotated", "update --content");
    everyLabel(ok(["--store", store, "update", anchor, `--context=${lines("Why")}`]).memories[0].meta.context, "Why", "update --context");
    // relate: relation metadata, one --meta per secret (--meta splits its values at commas)
    const rel = ok(["--store", store, "relate", saved.memory.id, anchor, ...JOINED.flatMap((s, i) => ["--meta", `why${i}=Rel ${i}: ${s.text.replaceAll(",", " ")}`])]);
    everyLabel(JSON.stringify(rel), "Rel", "relate --meta");
    // remember: the text itself
    everyLabel(JSON.stringify(ok(["--store", store, "remember", "-"], lines("We decided to use Vault because of"), cwd)), "We decided to use Vault because of", "remember");
    finish(store, "remember: ");
  });

  test(`all ${SECRETS.length} secrets of the corpus through capture (a text and a hook payload), then every file and every git object`, { timeout: 300_000 }, () => {
    const store = newStore();
    const cwd = tempDir();
    // capture, the text and a hook payload (its session id is stored too): one sentence per secret
    const c = ok(["--store", store, "capture", JOINED.map((s) => `Let's use PostgreSQL for billing ${s.kind} because the config has ${s.text}`).join("\n")], undefined, cwd);
    const missed = JOINED.filter((s) => !JSON.stringify(c.stored).includes(`for billing ${s.kind} because`)).map((s) => s.kind);
    assert.deepEqual(missed, [], "capture stored every sentence (each states a decision)");
    const payload = { session_id: lines("Session"), cwd, hook_event_name: "UserPromptSubmit", prompt: JOINED.map((s) => `I chose Redis over Memcached for ${s.kind} since ${s.text}`).join("\n") };
    const h = ok(["--store", store, "capture"], JSON.stringify(payload), cwd);
    const missedHook = JOINED.filter((s) => !JSON.stringify(h.stored).includes(`Memcached for ${s.kind} since`)).map((s) => s.kind);
    assert.deepEqual(missedHook, [], "the hook's capture stored every sentence");
    everyLabel(h.stored[0].memory.captured_by.session, "Session", "capture's session id");
    finish(store, "capture: ");
  });

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
    assert.match(git(store, "log", "-p", "--all").stdout, /REDACTED:github-token/, "the redacted keys are in history");
    assert.deepEqual(leaksIn(store, [gh, gl, pg.secret, `${gh.slice(0, -3)}QRS`]), []);
  });
});
