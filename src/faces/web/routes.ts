import { type Context, Hono } from "hono";
import { html } from "hono/html";
import { short as shortId } from "../../core/history.ts";
import { streamSSE } from "hono/streaming";
import { isMemsyncError } from "../../core/errors.ts";
import { IS_EDGE } from "../../runtime/edition.ts";
import type { ApiContext } from "../api/context.ts";
import { errorOf } from "../api/errors.ts";
import { clientOf, type GuardOptions, tokenMatches } from "../api/guard.ts";
import { conflictsPage, consolidatePage, type ForgetFilter, forgetApply, forgetPage, gcPage, healthPage, loginPage, recallPage, SPLIT_PAGE, splitPage } from "./admin.ts";
import { ASSETS } from "./assets.ts";
import { loginCookie } from "./auth.ts";
import { op } from "./call.ts";
import { graphPage } from "./graph.ts";
import { page, show } from "./layout.ts";
import { confirmPage, type EditForm, editOf, editPreview, historyList, load, memoryPage } from "./memory.ts";
import { FILTERS, liveRow, queryOf, results, searchPage } from "./search.ts";

// The memory browser's routes on the app of `memsync serve` (faces/api/app.ts mounts them behind
// webGuard). Every page is rendered here from catalogue operations; forms post back and redirect
// (303) to the page that shows the result, so reload never repeats a change.

/** How often the live view looks for new memories. */
const LIVE_POLL_MS = 1000;

async function form(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") out[k] = v;
  return out;
}

const filterOf = (f: Record<string, string | undefined>): ForgetFilter => Object.fromEntries(FILTERS.map((k) => [k, (f[k] ?? "").trim().slice(0, 500)])) as ForgetFilter;

/** A failed operation as a page: its one-line message, with the status the API would give. */
function failed(c: Context, e: unknown): Response | Promise<Response> {
  const { body, status } = errorOf(e);
  // (the message is escaped once, by the template: it was escaped twice, showing its entities)
  return c.html(page("Could not do that", html`<p class="note bad" role="alert">${show(body.error.message)}</p><p><a href="/ui">Back to search</a></p>`), status as 400);
}

const memId = (c: Context) => c.req.param("id") ?? "";

/** The page's own app, loaded on the first request for it (a server never browsed never loads it). */
export function webApp(api: ApiContext, guard: GuardOptions): Hono {
  const app = new Hono();
  const route = (fn: (c: Context) => Promise<Response>) => async (c: Context) => {
    try {
      return await fn(c);
    } catch (e) {
      if (!isMemsyncError(e) && !(e instanceof Error)) throw e;
      return failed(c, e);
    }
  };

  app.get("/", (c) => c.redirect("/ui", 303));
  app.get("/favicon.ico", (c) => c.body(null, 204));
  app.get("/ui/static/:file", (c) => {
    const a = ASSETS[c.req.param("file")];
    if (!a) return c.text("not found", 404);
    return c.body(a.body, 200, { "content-type": a.type, "cache-control": "no-cache" });
  });

  app.get("/ui/login", (c) => (guard.token === null ? c.redirect("/ui", 303) : c.html(loginPage())));
  app.post("/ui/login", async (c) => {
    if (guard.token === null) return c.redirect("/ui", 303);
    const given = (await form(c)).token ?? "";
    const right = tokenMatches(given.trim(), guard.token);
    const client = clientOf(c.env);
    const wait = guard.guesses ? await (right ? guard.guesses.right(client) : guard.guesses.wrong(client)) : 0;
    if (wait) {
      c.header("Retry-After", String(wait));
      return c.html(loginPage(`Too many wrong tokens from this address: try again in ${Math.ceil(wait / 60)} min.`), 429);
    }
    if (!right) return c.html(loginPage("That token is wrong."), 403);
    c.header("Set-Cookie", loginCookie(c, guard.token));
    return c.redirect("/ui", 303);
  });

  app.get("/ui", route(async (c) => c.html(await searchPage(api, queryOf(c)))));
  app.get("/ui/results", route(async (c) => c.html(await results(api, queryOf(c)))));

  app.get("/ui/m/:id", route(async (c) => {
    const f = await load(api, memId(c));
    if (!f) return c.html(page("Not found", html`<p>No memory ${memId(c).slice(0, 40)}.</p>`), 404);
    const rels = Math.min(100_000, Math.max(1, Number.parseInt(c.req.query("rels") ?? "", 10) || 50));
    return c.html(await memoryPage(api, f, c.req.query("done") ?? "", rels));
  }));
  app.get("/ui/m/:id/history", route(async (c) => {
    const limit = Math.min(1000, Math.max(1, Number.parseInt(c.req.query("limit") ?? "20", 10) || 20));
    const list = await historyList(api, memId(c), limit);
    return c.html(c.req.header("hx-request") ? list : page(`History of ${shortId(memId(c))}`, list));
  }));
  app.post("/ui/m/:id/edit", route(async (c) => {
    const f = await load(api, memId(c));
    if (!f) return c.text("no such memory", 404);
    const b = await form(c);
    const edit: EditForm = { content: b.content ?? f.memory.content, gist: b.gist ?? "", tags: b.tags ?? "" };
    // the decision's fields only when the form had them (a memory with no decision shows none)
    if (b.what !== undefined) edit.decision = { what: b.what, why: b.why ?? "", alternatives: b.alternatives ?? "", constraints: b.constraints ?? "", tradeoffs: b.tradeoffs ?? "" };
    if (b.confirm !== "1") return c.html(editPreview(f.memory, edit));
    const e = editOf(f.memory, edit);
    await op(api, "update", { id: f.memory.id, ...e });
    return c.redirect(`/ui/m/${f.memory.id}?done=${encodeURIComponent("Saved.")}`, 303);
  }));
  for (const what of ["archive", "forget"] as const) {
    app.post(`/ui/m/:id/${what}`, route(async (c) => {
      const f = await load(api, memId(c));
      if (!f) return c.text("no such memory", 404);
      if ((await form(c)).confirm !== "1") return c.html(confirmPage(f.memory, what, f));
      if (what === "archive") {
        await op(api, "archive", { ids: [f.memory.id] });
        return c.redirect(`/ui/m/${f.memory.id}?done=Archived.`, 303);
      }
      await op(api, "delete", { ids: [f.memory.id] });
      return c.redirect(`/ui/forget?done=${encodeURIComponent(`Forgot ${shortId(f.memory.id)}.`)}`, 303);
    }));
  }

  app.get("/ui/graph", route(async (c) => {
    const limit = Math.min(500, Math.max(2, Number.parseInt(c.req.query("limit") ?? "", 10) || 50));
    const entity = (c.req.query("entity") ?? "").slice(0, 500);
    return c.html(await graphPage(api, entity ? { entity } : { id: c.req.query("id") ?? "" }, limit));
  }));
  app.get("/ui/forget", route(async (c) => c.html(await forgetPage(api, filterOf(c.req.query()), c.req.query("done") ?? ""))));
  app.post("/ui/forget", route(async (c) => {
    const b = await form(c);
    const f = filterOf(b);
    const r = await forgetApply(api, f, Number(b.expected ?? "-1"));
    if ("changed" in r) return c.html(await forgetPage(api, f, `What matches changed since the preview (${r.changed} now): check the list again.`), 409);
    return c.redirect(`/ui/forget?done=${encodeURIComponent(`Forgot ${r.done} ${r.done === 1 ? "memory" : "memories"}.`)}`, 303);
  }));

  app.get("/ui/conflicts", route(async (c) => c.html(await conflictsPage(api, c.req.query("done") ?? ""))));
  app.post("/ui/conflicts/:id", route(async (c) => {
    const b = await form(c);
    const input: Record<string, unknown> = { id: memId(c), keep: b.keep };
    if (b.keep === "theirs" && b.pick) input.pick = Number(b.pick);
    await op(api, "resolve", input);
    return c.redirect(`/ui/conflicts?done=${encodeURIComponent(`Resolved ${shortId(memId(c))}: kept ${b.keep}.`)}`, 303);
  }));

  app.get("/ui/health", route(async (c) => c.html(await healthPage(api, c.req.query("done") ?? "", c.req.query("full") === "1"))));
  app.post("/ui/sync", route(async (c) => {
    const r = await api.sync.run("sync");
    return c.redirect(`/ui/health?done=${encodeURIComponent(r.ok ? "Synced." : `Sync failed: ${r.error?.message ?? ""}`)}`, 303);
  }));

  app.get("/ui/recall", route(async (c) => {
    const budget = Number.parseInt(c.req.query("budget") ?? "", 10);
    return c.html(await recallPage(api, (c.req.query("q") ?? "").slice(0, 10_000), Number.isFinite(budget) && budget >= 0 ? budget : 2000, c.req.query("project") ?? ""));
  }));

  if (!IS_EDGE) {
    app.get("/ui/gc", route(async (c) => c.html(await gcPage(api, c.req.query("done") ?? ""))));
    app.post("/ui/gc", route(async (c) => {
      const b = await form(c);
      if (b.confirm !== "1") return c.redirect("/ui/gc", 303);
      const out = await op<any>(api, "gc", { archive: b.action === "archive" });
      return c.redirect(`/ui/gc?done=${encodeURIComponent(`gc ${out.action}d ${out.candidates.length} memories.`)}`, 303);
    }));
    app.get("/ui/consolidate", route(async (c) => c.html(await consolidatePage(api, c.req.query("done") ?? ""))));
    app.post("/ui/consolidate", route(async (c) => {
      const b = await form(c);
      const mode = b.mode === "apply" ? "apply" : "link";
      await op(api, "consolidate", { mode, clusters: [b.cluster ?? ""] });
      return c.redirect(`/ui/consolidate?done=${encodeURIComponent(`Cluster ${b.cluster}: ${mode === "apply" ? "merged" : "related"}.`)}`, 303);
    }));
    app.get("/ui/split", route(async (c) => {
      const limit = Math.min(1000, Math.max(1, Number.parseInt(c.req.query("limit") ?? "", 10) || SPLIT_PAGE));
      return c.html(await splitPage(api, c.req.query("done") ?? "", limit));
    }));
    app.post("/ui/split", route(async (c) => {
      const body = await c.req.parseBody({ all: true });
      const parts = ([] as unknown[]).concat(body.part ?? []).filter((p): p is string => typeof p === "string");
      const id = typeof body.id === "string" ? body.id : "";
      const out = await op<any>(api, "split", { id, parts });
      return c.redirect(`/ui/split?done=${encodeURIComponent(`Split ${shortId(id)} into ${out.parts.length}.`)}`, 303);
    }));
  }

  // live captures: the newest memories, looked at once a second; each new one is sent as the
  // list row the page inserts (rendered here, escaped, redacted)
  app.get("/ui/events", (c) =>
    streamSSE(c, async (stream) => {
      let seen = new Set<string>();
      let first = true;
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      while (open) {
        try {
          const out = await op<{ memories: any[] }>(api, "list", { limit: 20 });
          for (const m of [...out.memories].reverse()) {
            if (seen.has(m.id)) continue;
            seen.add(m.id);
            if (!first) await stream.writeSSE({ event: "capture", data: liveRow(m), id: m.id });
          }
          if (seen.size > 1000) seen = new Set(out.memories.map((m) => m.id));
          if (first) await stream.writeSSE({ event: "ready", data: "" });
          first = false;
        } catch {
          // a store being written or not yet there: look again next time
        }
        await stream.sleep(LIVE_POLL_MS);
      }
    }),
  );
  return app;
}
