import { html } from "hono/html";
import type { ApiContext } from "../api/context.ts";
import { op } from "./call.ts";
import { type Html, hidden, memLink, page, short, show, when } from "./layout.ts";
import { FILTERS, type Filters, filterFields, filterInput, resultRows } from "./search.ts";

// Bulk forget, conflicts, health and sync, recall preview, maintenance (gc), login.

export type ForgetFilter = Filters;

const SHOWN = 100;
const BATCH = 5_000;

/** What a bulk forget's filter matches: at most `limit` memories (newest first) and the count. */
export async function forgetMatches(api: ApiContext, f: ForgetFilter, limit: number): Promise<{ memories: any[]; total: number }> {
  return op(api, "list", { ...filterInput(f), status: f.status ? [f.status] : ["all"], limit });
}

const anyFilter = (f: ForgetFilter) => Boolean(f.type || f.project || f.tag || f.entity || f.since || f.before);

/** The dry run: the count and the newest memories that would go, then a confirm carrying the count seen. */
export async function forgetPage(api: ApiContext, f: ForgetFilter, note = ""): Promise<Html> {
  const form = html`<form class="filters" method="get" action="/ui/forget">${filterFields(f, "any status")}<button type="submit">Preview</button></form>`;
  if (!anyFilter(f)) return page("Forget", html`${note ? html`<p class="note" role="status">${note}</p>` : ""}<p>Choose what to forget: a project, a type, a tag, an entity or a creation date range. Nothing is deleted before you confirm.</p>${form}`, "/ui/forget");
  const found = await forgetMatches(api, f, SHOWN);
  const fields = html`${FILTERS.map((k) => hidden(k, f[k]))}`;
  const body = html`${note ? html`<p class="note" role="status">${note}</p>` : ""}${form}
<p role="status" id="forget-count"><strong>${found.total}</strong> ${found.total === 1 ? "memory matches" : "memories match"}: ${found.total ? "their record files and the relations naming them will be deleted (kept in git history)." : "nothing to forget."}</p>
${found.total ? html`<table class="results"><thead><tr><th>Id</th><th>Type</th><th class="opt">Project</th><th>Gist</th><th class="opt">Created</th></tr></thead><tbody>${resultRows(found.memories)}</tbody></table>
${found.total > found.memories.length ? html`<p class="muted">and ${found.total - found.memories.length} more.</p>` : ""}
<form method="post" action="/ui/forget">${fields}${hidden("expected", found.total)}<div class="actions"><button type="submit" class="danger">Forget these ${found.total}</button></div></form>` : ""}`;
  return page("Forget: preview", body, "/ui/forget");
}

/**
 * Deletes what the filter matches now, only if that is still what the preview counted; a batch
 * at a time (never the whole match list in memory), at most the count confirmed.
 */
export async function forgetApply(api: ApiContext, f: ForgetFilter, expected: number): Promise<{ done: number } | { changed: number }> {
  if (!anyFilter(f)) return { changed: 0 };
  let done = 0;
  for (;;) {
    const found = await forgetMatches(api, f, Math.min(BATCH, Math.max(1, expected - done)));
    if (done === 0 && found.total !== expected) return { changed: found.total };
    if (found.memories.length === 0 || done >= expected) return { done };
    const out = await op<{ deleted: string[] }>(api, "delete", { ids: found.memories.map((m) => m.id) });
    if (out.deleted.length === 0) return { done };
    done += out.deleted.length;
  }
}

type Conflict = { id: string; short_id: string; type: string; content: string; updated_at: number | null; others: { n: number; content: string; updated_at: number | null; machine: string | null }[] };

export async function conflictsPage(api: ApiContext, note = ""): Promise<Html> {
  const out = await op<{ total: number; conflicts: Conflict[] }>(api, "conflicts", {});
  const one = (c: Conflict) => html`<section class="conflict" aria-labelledby="c-${c.id}"><h2 id="c-${c.id}">${memLink(c.id)} <span class="tag">${c.type}</span></h2>
<div class="cols"><div><h3>Ours <span class="muted">${when(c.updated_at)}</span></h3><div class="content">${show(c.content)}</div>
<form method="post" action="/ui/conflicts/${c.id}">${hidden("keep", "ours")}<button type="submit">Keep ours</button></form></div>
${c.others.map(
  (o) => html`<div><h3>Theirs ${o.n} <span class="muted">${show(o.machine) || ""} ${when(o.updated_at)}</span></h3><div class="content">${show(o.content)}</div>
<form method="post" action="/ui/conflicts/${c.id}">${hidden("keep", "theirs")}${hidden("pick", o.n)}<button type="submit">Keep theirs ${o.n}</button></form></div>`,
)}</div>
<form method="post" action="/ui/conflicts/${c.id}">${hidden("keep", "both")}<button type="submit">Keep both (joined)</button></form></section>`;
  const body = html`${note ? html`<p class="note" role="status">${note}</p>` : ""}<p role="status">${out.total} ${out.total === 1 ? "memory has" : "memories have"} content edited on two machines at once.</p>${out.conflicts.map(one)}`;
  return page("Conflicts", body, "/ui/conflicts");
}

export async function healthPage(api: ApiContext, note = "", fullNow = false): Promise<Html> {
  // GET /v1/health's answer: cheap facts now and the last full check, which runs in a process of
  // its own (an O(store) stat pass: ~40 s under load at 50k when the page ran it in the request)
  if (!api.health) throw new Error("no health reporter on this server");
  const r = await api.health(fullNow);
  const s = r.last_check;
  const sync = r.sync;
  const counts = (o: Record<string, number> | undefined) => (o ? Object.entries(o).map(([k, v]) => `${k} ${v}`).join(", ") : "—");
  const checked = r.full_check.at ? `as of the full check at ${r.full_check.at}` : "no full check yet";
  const body = html`${note ? html`<p class="note" role="status">${note}</p>` : ""}
<dl><dt>Health</dt><dd id="health"><strong class="${r.health === "healthy" ? "" : "bad"}">${r.health}</strong>${r.reasons.length ? html`<ul>${r.reasons.map((x: string) => html`<li>${show(x)}</li>`)}</ul>` : ""}
<span class="muted">${checked}${r.full_check.running ? "; one is running" : ""}</span></dd>
<dt>Store</dt><dd><code>${r.store}</code></dd>
<dt>Memories</dt><dd>${r.memories ?? "—"}${s?.memories ? html` <span class="muted">(${counts(s.memories.by_status)}; ${counts(s.memories.by_type)}: ${checked})</span>` : ""}</dd>
<dt>Relations</dt><dd>${s?.relations ? `${s.relations.total} (${s.relations.dangling.length} dangling)` : "—"}</dd>
<dt>Conflicts</dt><dd>${s?.content_conflicts ?? "—"} ${s?.content_conflicts ? html`<a href="/ui/conflicts">resolve</a>` : ""}</dd>
<dt>Uncommitted changes</dt><dd>${r.uncommitted_changes ?? "—"}</dd><dt>Unpushed commits</dt><dd>${r.unpushed_commits ?? "—"}</dd>
<dt>Last sync</dt><dd id="last-sync">${sync.last ? html`${sync.last.direction} ${sync.last.ok ? "succeeded" : html`<span class="bad">failed: ${show(sync.last.error?.message)}</span>`} at ${sync.last.finished_at}` : "none since the server started"}${sync.running ? " (one is running)" : ""}</dd>
<dt>Background sync</dt><dd>${sync.every_s ? `every ${sync.every_s} s, next at ${sync.next_at ?? "—"}` : "off"}</dd></dl>
<div class="actions"><form method="post" action="/ui/sync"><button type="submit" class="primary">Sync now</button></form>
<form method="get" action="/ui/health"><input type="hidden" name="full" value="1"><button type="submit">Check everything now</button></form></div>`;
  return page("Health and sync", body, "/ui/health");
}

export async function recallPage(api: ApiContext, q: string, budget: number, project: string): Promise<Html> {
  const form = html`<form class="filters" method="get" action="/ui/recall"><label class="wide">Prompt<input type="search" name="q" value="${q}" autofocus></label>
<label>Budget (characters)<input type="number" name="budget" min="0" value="${budget}"></label><label>Project<input name="project" value="${project}"></label><button type="submit">What would the agent get?</button></form>`;
  if (!q) return page("Recall preview", form, "/ui/recall");
  const input: Record<string, unknown> = { query: q, budget };
  if (project) input.project = project;
  const r = await op<any>(api, "recall", input);
  const body = html`${form}<p role="status">${r.items.length} of ${r.total} matching memories fit in ${r.budget} characters${r.more ? `; ${r.more} more left out` : ""}.</p>
<table><thead><tr><th>Id</th><th>Line</th><th>Relevance</th><th>Decay</th><th>Recency</th><th>Score</th></tr></thead><tbody>${r.items.map(
    (i: any) => html`<tr><td>${memLink(i.id)}</td><td>${short(show(i.text), 200)}</td><td>${i.relevance.toFixed(2)}</td><td>${i.decay.toFixed(2)}</td><td>${i.recency.toFixed(2)}</td><td><strong>${i.score.toFixed(2)}</strong></td></tr>`,
  )}</tbody></table><h2>The block</h2><div class="content">${show(r.text)}</div>`;
  return page("Recall preview", body, "/ui/recall");
}

export async function gcPage(api: ApiContext, note = ""): Promise<Html> {
  const out = await op<any>(api, "gc", { dry_run: true, limit: SHOWN });
  const body = html`${note ? html`<p class="note" role="status">${note}</p>` : ""}${maintenanceNav}<h2>Garbage collection: preview</h2>
<p role="status">${out.under_threshold} of ${out.scanned} memories score under the forget threshold ${out.forget_threshold} (${out.model}); gc would ${out.action} them${out.under_threshold > SHOWN ? `; the ${SHOWN} lowest are listed` : ""}.</p>
${out.candidates.length ? html`<table><thead><tr><th>Id</th><th>Score</th><th>Uses</th><th>Last used</th><th>Gist</th></tr></thead><tbody>${out.candidates.map(
    (c: any) => html`<tr><td>${memLink(c.id)}</td><td>${c.score.toFixed(3)}</td><td>${c.use_count}</td><td>${when(c.last_used)}</td><td>${short(show(c.preview ?? ""))}</td></tr>`,
  )}</tbody></table>
<form method="post" action="/ui/gc">${hidden("confirm", "1")}<div class="actions"><button type="submit" class="danger" name="action" value="delete">Apply gc (delete)</button><button type="submit" name="action" value="archive">Apply gc (archive)</button></div></form>` : ""}`;
  return page("Maintenance", body, "/ui/gc");
}

export function loginPage(error = ""): Html {
  return page(
    "Sign in",
    html`${error ? html`<p class="note bad" role="alert">${error}</p>` : ""}<p>This server asks for its API token. It is exchanged for a session cookie and never stored in the page.</p>
<form method="post" action="/ui/login"><label>Token<input type="password" name="token" required autocomplete="current-password" autofocus></label><div class="actions"><button type="submit" class="primary">Sign in</button></div></form>`,
  );
}

const maintenanceNav = html`<p><a href="/ui/gc">Garbage collection</a> · <a href="/ui/consolidate">Consolidation</a> · <a href="/ui/split">Split candidates</a></p>`;

/** Clusters of near-duplicates with their cohesion and the merged result; apply or link one. */
export async function consolidatePage(api: ApiContext, note = ""): Promise<Html> {
  const out = await op<any>(api, "consolidate", { mode: "preview" });
  const member = (m: any) => html`<li>${memLink(m.id)} ${short(show(m.content), 140)} <span class="muted">${m.use_count} uses</span></li>`;
  const body = html`${maintenanceNav}${note ? html`<p class="note" role="status">${note}</p>` : ""}
<p role="status">${out.clusters.length} cluster${out.clusters.length === 1 ? "" : "s"} among ${out.memories} memories (similarity ≥ ${out.threshold}).</p>
${out.clusters.slice(0, SHOWN).map(
    (c: any) => html`<section aria-labelledby="k-${c.id}"><h2 id="k-${c.id}">Cluster ${c.id} <span class="muted">cohesion ${c.cohesion.toFixed(2)}</span></h2><ul>${c.members.map(member)}</ul>
${c.merged ? html`<h3>Merged</h3><div class="content">${show(c.merged.content)}</div>` : html`<p class="bad">${show(c.problem ?? "cannot be merged")}</p>`}
<form method="post" action="/ui/consolidate">${hidden("cluster", c.id)}<div class="actions">${c.merged ? html`<button type="submit" name="mode" value="apply" class="danger">Merge into one</button>` : ""}<button type="submit" name="mode" value="link">Only relate them</button></div></form></section>`,
  )}`;
  return page("Consolidation", body, "/ui/gc");
}

/** Candidates a page at a time: each shows its whole content and parts (100 made a 1 MB page at 50k). */
export const SPLIT_PAGE = 20;

export async function splitPage(api: ApiContext, note = "", limit = SPLIT_PAGE): Promise<Html> {
  const out = await op<any>(api, "split-candidates", { limit });
  const body = html`${maintenanceNav}${note ? html`<p class="note" role="status">${note}</p>` : ""}
<p role="status">${out.total} of ${out.memories} memories are worth splitting${out.total > out.candidates.length ? `; the best ${out.candidates.length} are listed` : ""}.</p>
${out.candidates.map(
    (c: any) => html`<section aria-labelledby="s-${c.id}"><h2 id="s-${c.id}">${memLink(c.id)} <span class="muted">score ${c.score.toFixed(2)}</span></h2><div class="content">${show(c.content)}</div>
<p class="muted">${c.reasons.map(show).join("; ")}</p><h3>Suggested parts</h3><ol>${c.parts.map((p: string) => html`<li>${show(p)}</li>`)}</ol>
<form method="post" action="/ui/split">${hidden("id", c.id)}${c.parts.map((p: string) => hidden("part", p))}<button type="submit" class="danger">Split into ${c.parts.length}</button></form></section>`,
  )}${out.total > out.candidates.length ? html`<p><a href="/ui/split?limit=${limit + SPLIT_PAGE}">Show ${Math.min(SPLIT_PAGE, out.total - out.candidates.length)} more</a></p>` : ""}`;
  return page("Split candidates", body, "/ui/gc");
}
