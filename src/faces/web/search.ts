import type { Context } from "hono";
import { html } from "hono/html";
import { MEMORY_STATUSES, MEMORY_TYPES } from "../../core/model/vocab.ts";
import type { ApiContext } from "../api/context.ts";
import { op } from "./call.ts";
import { type Html, memLink, page, short, show, when } from "./layout.ts";

// Search with results as you type: the form works without script (GET /ui?q=…); with htmx it
// asks /ui/results for the result list alone, 250 ms after the last key. Empty words list the
// newest. Lists are paginated by a growing limit ("show more").

const PAGE = 50;
const FILTERS = ["type", "project", "tag", "entity", "status", "since", "before"] as const;

/** The filters a search and a bulk forget share, as the form sends them. */
export type Filters = Record<(typeof FILTERS)[number], string>;

export interface Query extends Filters {
  q: string;
  limit: number;
}

export function queryOf(c: Context): Query {
  const p = (k: string) => (c.req.query(k) ?? "").trim().slice(0, 500);
  const limit = Math.min(10_000, Math.max(1, Number.parseInt(p("limit") || String(PAGE), 10) || PAGE));
  return { q: p("q"), type: p("type"), project: p("project"), tag: p("tag"), entity: p("entity"), status: p("status"), since: p("since"), before: p("before"), limit };
}

/** The catalogue's filter input from the form (empty fields left out). */
export function filterInput(f: Omit<Query, "q" | "limit">): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (f.type) input.type = [f.type];
  if (f.tag) input.tag = [f.tag];
  if (f.entity) input.entity = [f.entity];
  if (f.status) input.status = [f.status];
  if (f.project) input.project = f.project;
  if (f.since) input.since = f.since;
  if (f.before) input.before = f.before;
  return input;
}

const qs = (q: Query, limit: number) => new URLSearchParams(Object.entries({ ...q, limit: String(limit) }).filter(([, v]) => v !== "")).toString();

const select = (name: string, label: string, values: readonly string[], chosen: string, none = "any") =>
  html`<label>${label}<select name="${name}"><option value="">${none}</option>${values.map((v) => html`<option${v === chosen ? html` selected` : ""}>${v}</option>`)}</select></label>`;

/** `anyStatus`: what no status chosen means (search: active or promoted; a bulk forget: every status). */
export function filterFields(q: Omit<Query, "q" | "limit">, anyStatus = "active or promoted"): Html {
  return html`${select("type", "Type", MEMORY_TYPES, q.type)}
<label>Project<input name="project" value="${q.project}"></label>
<label>Tag<input name="tag" value="${q.tag}"></label>
<label>Entity<input name="entity" value="${q.entity}"></label>
${select("status", "Status", [...MEMORY_STATUSES, "all"], q.status, anyStatus)}
<label>Created since<input name="since" value="${q.since}" placeholder="7d, 2026-11-01"></label>
<label>Created before<input name="before" value="${q.before}" placeholder="30d, 2026-12-01"></label>`;
}

type Mem = { id: string; type: string; project: string | null; content: string; gist: string | null; created_at: number; status: string; meta: { tags: string[] } };

export function resultRows(mems: Mem[], scores?: (i: number) => string): Html {
  return html`${mems.map(
    (m, i) => html`<tr><td>${memLink(m.id)}</td><td>${m.type}</td><td class="opt">${show(m.project) || "—"}</td><td>${short(show(m.gist ?? m.content))}</td><td class="opt">${when(m.created_at)}</td>${scores ? html`<td>${scores(i)}</td>` : ""}</tr>`,
  )}`;
}

export async function results(api: ApiContext, q: Query): Promise<Html> {
  const filters = filterInput(q);
  let mems: Mem[];
  let total: number;
  let scores: ((i: number) => string) | undefined;
  if (q.q) {
    const out = await op<{ hits: { memory: Mem; score: number }[]; total: number }>(api, "search", { ...filters, query: q.q, limit: q.limit });
    mems = out.hits.map((h) => h.memory);
    total = out.total;
    scores = (i) => out.hits[i]!.score.toFixed(2);
  } else {
    const out = await op<{ memories: Mem[]; total: number }>(api, "list", { ...filters, limit: q.limit });
    mems = out.memories;
    total = out.total;
  }
  return html`<p role="status" id="count">${total} ${total === 1 ? "memory" : "memories"}${q.q ? " match" : ""}${mems.length < total ? `, showing ${mems.length}` : ""}</p>
${mems.length === 0 ? "" : html`<table class="results"><thead><tr><th>Id</th><th>Type</th><th class="opt">Project</th><th>Gist</th><th class="opt">Created</th>${scores ? html`<th>Score</th>` : ""}</tr></thead><tbody>${resultRows(mems, scores)}</tbody></table>`}
${mems.length < total ? html`<p><a href="/ui?${qs(q, q.limit + PAGE)}" hx-get="/ui/results?${qs(q, q.limit + PAGE)}" hx-target="#results">Show more</a></p>` : ""}`;
}

export async function searchPage(api: ApiContext, q: Query): Promise<Html> {
  const body = html`<form class="filters" role="search" action="/ui" method="get" hx-get="/ui/results" hx-target="#results" hx-trigger="input changed delay:250ms, submit">
<label class="wide">Search memories<input type="search" name="q" value="${q.q}" autofocus autocomplete="off" placeholder="words in content, gist, tags or entities"></label>
${filterFields(q)}<button type="submit">Search</button></form>
<section aria-live="polite" id="results">${await results(api, q)}</section>
<h2>Arriving now</h2><ul class="live" id="live" aria-live="polite"><li id="live-empty" class="muted">New captures appear here as they are saved.</li></ul>`;
  return page("Search", body, "/ui");
}

export const liveRow = (m: Mem): string =>
  String(html`<li>${memLink(m.id)} <span class="tag">${m.type}</span> ${show(m.project) || ""} ${short(show(m.gist ?? m.content), 120)} <span class="muted">${when(m.created_at)}</span></li>`);

export { FILTERS };
