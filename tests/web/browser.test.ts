import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { memsync, newStore, readMemoryFile, REPO, saveMany } from "../helpers/env.ts";
import { GUESSES } from "../../src/faces/api/token-guesses.ts";
import { post, type Server, startServer, tokenFile } from "../helpers/server.ts";

// The memory browser (`memsync serve`, /ui) in real headless Chromium (Debian's, through
// playwright-core; its own browser download does not work offline): search as you type, a memory
// page, an edit that reaches the record file, forget by project after a preview, a conflict
// resolved, a capture arriving live, a cross-site change refused, the token login off loopback.
// One browser for the file; playwright gives each launch a fresh profile (--user-data-dir).
// MEMSYNC_SCREENSHOTS=1 also writes the main views to docs/ (1280×800, light).

const CHROMIUM = process.env.MEMSYNC_CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const TOKEN = "web-" + "z9y8x7w6".repeat(4);
const SHOTS = process.env.MEMSYNC_SCREENSHOTS ? path.join(REPO, "docs") : null;

/** This machine's first non-loopback IPv4 address (a server off loopback), else loopback. */
function lanAddress(): string {
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  return "127.0.0.1";
}

/** A record file's text, rewritten (temp file and rename, as an editor saves) then reindexed. */
function addConflict(store: string, id: string, other: string): void {
  const dir = path.join(store, "memories");
  const file = [path.join(dir, `${id}.json`), path.join(dir, id.slice(-2), `${id}.json`)].find((p) => fs.existsSync(p))!;
  const m = JSON.parse(fs.readFileSync(file, "utf8"));
  m.content_conflicts = [{ content: other, updated_at: m.created_at + 5, machine: "vps" }];
  fs.writeFileSync(`${file}.new`, JSON.stringify(m, null, 2) + "\n");
  fs.renameSync(`${file}.new`, file);
  const r = memsync(["--store", store, "reindex"]);
  assert.equal(r.code, 0, r.stderr);
}

describe("memory browser in Chromium", () => {
  let store: string;
  let s: Server;
  /** On every address with a token, browsed through a non-loopback address (see the last test). */
  let t: Server;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let ids: string[];

  before(async () => {
    store = newStore();
    ids = saveMany(store, [
      { content: "Use cursor pagination for the orders API because offsets drift", type: "decision", project: "alpha", meta: { tags: ["api"] } },
      { content: "Redis caches the sessions of the web tier", project: "alpha" },
      { content: "Deploy the billing service blue green", project: "beta" },
      { content: "Beta staging runs on two small machines", project: "beta" },
      { content: "Use offset pagination for the reports export", project: "gamma" },
      // for forget by date range: two old memories of one project, a year apart
      { content: "The lantern service ran on the old cluster", project: "delta", created_at: Date.UTC(2023, 10, 14) / 1000 },
      { content: "The lantern service moved to the new cluster", project: "delta", created_at: Date.UTC(2024, 5, 1) / 1000 },
    ]);
    addConflict(store, ids[4]!, "Use keyset pagination for the reports export");
    assert.equal(memsync(["--store", store, "relate", ids[1]!, ids[0]!, "--type", "supports"]).code, 0);
    [s, t, browser] = await Promise.all([
      startServer(store),
      startServer(newStore(), { args: ["--listen", "0.0.0.0:0", "--token-file", tokenFile(TOKEN)] }),
      chromium.launch({ executablePath: CHROMIUM, args: ARGS }),
    ]);
    t.url = t.url.replace(/\/\/[^/:]+|\/\/\[[^\]]+\]/, `//${lanAddress()}`);
    ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light" });
    page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
  });
  after(async () => {
    await browser?.close();
    assert.equal(await s.stop(), 0);
    assert.equal(await t.stop(), 0);
    assert.ok(!t.stderr().includes(TOKEN));
  });

  const shot = async (name: string, fullPage = false) => {
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `web-${name}.png`), fullPage });
  };

  test("search: results as you type (no reload), filters, then a memory page with its fields and decay plot", async () => {
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    const res = await page.goto(`${s.url}/ui`);
    assert.equal(res!.status(), 200);
    assert.match(res!.headers()["content-security-policy"] ?? "", /script-src 'self'/);
    await page.getByLabel("Search memories").pressSequentially("pagination", { delay: 20 });
    await page.locator("#count", { hasText: "2 memories match" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/ui", "the results came without a page load");
    await page.getByLabel("Project").fill("alpha");
    await page.locator("#count", { hasText: "1 memory match" }).waitFor();
    await shot("search");
    await page.getByRole("link", { name: ids[0]!.slice(-8) }).click();
    await page.waitForURL(`**/ui/m/${ids[0]}`);
    assert.match((await page.locator("#content").textContent())!, /cursor pagination/);
    await page.locator("svg.plot title", { hasText: "forget threshold" }).waitFor({ state: "attached" });
    assert.equal(await page.getByRole("link", { name: "api" }).count(), 1, "the tag links to a search");
    await shot("memory", true);
    // its relations both ways are links, and the graph around it holds both memories
    await page.getByRole("link", { name: ids[1]!.slice(-8) }).first().waitFor();
    await page.getByRole("link", { name: "Graph around this memory" }).click();
    await page.getByText("2 of 2 memories, 1 relation among them.").waitFor();
    assert.deepEqual(errors, [], "no script or CSP error");
  });

  test("edit: a preview shows before and after (the decision's fields too); confirm writes the record file", async () => {
    await page.goto(`${s.url}/ui/m/${ids[0]}`);
    await page.getByLabel("Content").fill("Use cursor pagination for the orders API and the invoices API");
    await page.getByLabel("Tags (comma separated)").fill("api, invoices");
    await page.getByLabel("What").fill("cursor pagination for orders and invoices");
    await page.getByLabel("Why").fill("offsets drift when rows are inserted");
    await page.getByLabel("Alternatives (one a line)").fill("offset pagination\nkeyset on created_at");
    await page.getByRole("button", { name: "Preview edit" }).click();
    await page.getByRole("heading", { name: "Before" }).first().waitFor();
    await page.getByRole("heading", { name: "Decision" }).waitFor();
    await page.getByText("Why: offsets drift when rows are inserted").waitFor();
    assert.equal(readMemoryFile(store, ids[0]!).content, "Use cursor pagination for the orders API because offsets drift", "nothing changes before confirm");
    await page.getByRole("button", { name: "Confirm edit" }).click();
    await page.getByText("Saved.").waitFor();
    const m = readMemoryFile(store, ids[0]!);
    assert.equal(m.content, "Use cursor pagination for the orders API and the invoices API");
    assert.deepEqual([...m.meta.tags].sort(), ["api", "invoices"]);
    assert.equal(m.decision.what, "cursor pagination for orders and invoices");
    assert.equal(m.decision.why, "offsets drift when rows are inserted");
    assert.deepEqual(m.decision.alternatives, ["offset pagination", "keyset on created_at"]);
    // the page shows them, and the form holds them for the next edit
    await page.getByRole("definition").filter({ hasText: "offsets drift when rows are inserted" }).first().waitFor();
    assert.equal(await page.getByLabel("What").inputValue(), "cursor pagination for orders and invoices");
    // its history: the save and, once committed, the update
    const r = memsync(["--store", store, "commit"]);
    assert.equal(r.code, 0, r.stderr);
    await page.reload();
    await page.locator("#history tr", { hasText: "update:" }).waitFor();
    await page.locator("#history tr", { hasText: "save:" }).waitFor();
  });

  test("forget by project: the dry run counts and lists, confirm deletes exactly those files", async () => {
    await page.goto(`${s.url}/ui/forget`);
    await page.getByLabel("Project").fill("beta");
    await page.getByRole("button", { name: "Preview" }).click();
    await page.locator("#forget-count", { hasText: "2 memories match" }).waitFor();
    assert.ok(readMemoryFile(store, ids[2]!) && readMemoryFile(store, ids[3]!), "the preview deletes nothing");
    await shot("forget");
    await page.getByRole("button", { name: "Forget these 2" }).click();
    await page.getByText("Forgot 2 memories.").waitFor();
    assert.equal(readMemoryFile(store, ids[2]!), null);
    assert.equal(readMemoryFile(store, ids[3]!), null);
    for (const i of [0, 1, 4]) assert.ok(readMemoryFile(store, ids[i]!), `memory ${i} stays`);
  });

  test("forget by date range: created since and before bound the dry run; confirm deletes only those", async () => {
    await page.goto(`${s.url}/ui/forget`);
    await page.getByLabel("Project").fill("delta");
    await page.getByLabel("Created since").fill("2023-01-01");
    await page.getByLabel("Created before").fill("2024-01-01");
    await page.getByRole("button", { name: "Preview" }).click();
    await page.locator("#forget-count", { hasText: "1 memory matches" }).waitFor();
    await page.getByRole("cell", { name: "The lantern service ran on the old cluster" }).waitFor();
    assert.equal(await page.getByRole("cell", { name: "The lantern service moved to the new cluster" }).count(), 0);
    await page.getByRole("button", { name: "Forget these 1" }).click();
    await page.getByText("Forgot 1 memory.").waitFor();
    assert.equal(readMemoryFile(store, ids[5]!), null);
    assert.ok(readMemoryFile(store, ids[6]!), "the one created after the range stays");
    // a date that is no date is one line, nothing deleted
    await page.goto(`${s.url}/ui/forget?project=delta&before=2024-02-30`);
    await page.getByRole("alert").filter({ hasText: "invalid time" }).waitFor();
    assert.ok(readMemoryFile(store, ids[6]!));
  });

  test("conflicts: both texts side by side; one click keeps the other machine's text", async () => {
    await page.goto(`${s.url}/ui/conflicts`);
    await page.getByText("Use keyset pagination for the reports export").waitFor();
    await page.getByText("Use offset pagination for the reports export").waitFor();
    await shot("conflicts");
    await page.getByRole("button", { name: "Keep theirs 1" }).click();
    await page.getByText(/Resolved .*kept theirs/).waitFor();
    const m = readMemoryFile(store, ids[4]!);
    assert.equal(m.content, "Use keyset pagination for the reports export");
    assert.ok(!m.content_conflicts?.length);
  });

  test("live: a memory saved through the API appears on the open page without reload", async () => {
    await page.goto(`${s.url}/ui`);
    await page.locator("#live[data-live=ready]").waitFor({ state: "attached" });
    const r = await post(`${s.url}/v1/save`, { memory: { content: "Captured live: the queue retries three times", project: "alpha" } });
    assert.equal(r.status, 200);
    await page.locator("#live li", { hasText: "Captured live: the queue retries three times" }).waitFor({ timeout: 10_000 });
    // health answers from cheap facts and the last full check (run in a process of its own);
    // "Check everything now" waits for one, and the counts by status and type come from it
    await page.goto(`${s.url}/ui/health`);
    await page.locator("#health", { hasText: "healthy" }).waitFor();
    await page.getByRole("button", { name: "Check everything now" }).click();
    await page.locator("#health", { hasText: "as of the full check at" }).waitFor();
    await page.getByText(/active \d+/).first().waitFor();
    await shot("health");
  });

  test("CSRF: a form on another origin posting a forget is refused and changes nothing", async () => {
    const target = `${s.url}/ui/m/${ids[1]}/forget`;
    const evil = http.createServer((_, res) => {
      res.setHeader("content-type", "text/html");
      res.end(`<form method="post" action="${target}"><input type="hidden" name="confirm" value="1"><button>win a prize</button></form>`);
    });
    await new Promise<void>((r) => evil.listen(0, "127.0.0.1", r));
    try {
      const port = (evil.address() as { port: number }).port;
      await page.goto(`http://localhost:${port}/`);
      const [resp] = await Promise.all([page.waitForResponse((r) => r.url() === target), page.getByRole("button", { name: "win a prize" }).click()]);
      assert.equal(resp.status(), 403);
      assert.ok(readMemoryFile(store, ids[1]!), "the memory is still there");
      // and without any browser header saying where it came from
      const bare = await fetch(target, { method: "POST", body: new URLSearchParams({ confirm: "1" }) });
      assert.equal(bare.status, 403);
      assert.ok(readMemoryFile(store, ids[1]!));
    } finally {
      evil.close();
    }
  });

  test("token login off loopback: the form sets an HttpOnly SameSite cookie that is no API token", async () => {
    const c2 = await browser.newContext();
    try {
      const p = await c2.newPage();
      p.setDefaultTimeout(10_000);
      await p.goto(`${t.url}/ui/m/${ids[0]}`);
      assert.equal(new URL(p.url()).pathname, "/ui/login");
      await p.getByLabel("Token").fill("wrong-" + TOKEN);
      await p.getByRole("button", { name: "Sign in" }).click();
      await p.getByText("That token is wrong.").waitFor();
      await p.getByLabel("Token").fill(TOKEN);
      await p.getByRole("button", { name: "Sign in" }).click();
      await p.waitForURL(`${t.url}/ui`);
      await p.locator("#count").waitFor();
      const [cookie] = await c2.cookies(t.url);
      assert.ok(cookie && cookie.httpOnly && cookie.sameSite === "Strict", JSON.stringify(cookie));
      assert.ok(!cookie.value.includes(TOKEN));
      const api = await fetch(`${t.url}/v1/status`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
      assert.equal(api.status, 401, "the API still wants its bearer token");
      // wrong tokens are limited per address: past the limit this address gets 429 and Retry-After
      // (the browser's one wrong sign-in was cleared by the right one); loopback is another address
      const wrong = () => fetch(`${t.url}/v1/status`, { headers: { authorization: "Bearer nope" } });
      for (let i = 0; i < GUESSES; i++) assert.equal((await wrong()).status, 403);
      const held = await wrong();
      assert.equal(held.status, 429);
      assert.ok(Number(held.headers.get("retry-after")) > 0);
      await p.goto(`${t.url}/ui/login`);
      await p.getByLabel("Token").fill(TOKEN);
      await p.getByRole("button", { name: "Sign in" }).click();
      await p.getByText("Too many wrong tokens from this address").waitFor();
      if (lanAddress() !== "127.0.0.1") {
        const other = await fetch(`${t.url.replace(lanAddress(), "127.0.0.1")}/v1/status`, { headers: { authorization: `Bearer ${TOKEN}` } });
        assert.equal(other.status, 200, "another address is not held back");
      }
    } finally {
      await c2.close();
    }
  });
});
