import { html } from "hono/html";
import { short as shortId } from "../../core/history.ts";
import { type DecaySettings, scoreMemory } from "../../core/decay.ts";
import type { ApiContext } from "../api/context.ts";
import { op } from "./call.ts";
import { type Html, hidden, memLink, page, short, show, when } from "./layout.ts";

// One memory: its fields, relations both ways, decay plot, and the forms to change it. Every
// change is two steps: the form posts to a preview that says what will change; its confirm
// button posts the same fields with confirm=1, which runs the operation.

type Rel = { id: string; from_memory_id: string; to_memory_id: string; relation_type: string; strength: number };
type Found = { memory: any; path: string; outgoing: Rel[]; incoming: Rel[] };
type Score = { now: number; settings: { decay: DecaySettings; forget_threshold: number; danger_zone: { min: number; max: number } }; scores: { score: number; forget_at: number | null; use_count: number; last_used: number; strength: number; review_priority: number }[] };

export async function load(api: ApiContext, id: string): Promise<Found | null> {
  const out = await op<{ found: Found[] }>(api, "get", { ids: [id] });
  return out.found[0] ?? null;
}

const list = (xs: string[] | undefined) => (xs && xs.length ? html`<ul>${xs.map((x) => html`<li>${show(x)}</li>`)}</ul>` : "—");

/** The decay score from the last use to past the forget time: threshold line and danger zone drawn in. */
export function decayPlot(s: Score): Html {
  const sc = s.scores[0]!;
  const W = 560, H = 160, L = 40, B = 24, T = 8, R = 8;
  const start = sc.last_used;
  const horizon = Math.max(s.now + 86_400, sc.forget_at !== null ? sc.forget_at + (sc.forget_at - start) * 0.25 : s.now + 90 * 86_400);
  const pts: [number, number][] = [];
  for (let i = 0; i <= 60; i++) {
    const t = start + ((horizon - start) * i) / 60;
    pts.push([t, scoreMemory(sc, t, s.settings.decay)]);
  }
  const top = Math.max(...pts.map((p) => p[1]), s.settings.danger_zone.max, s.settings.forget_threshold) * 1.1 || 1;
  const x = (t: number) => L + ((t - start) / (horizon - start)) * (W - L - R);
  const y = (v: number) => T + (1 - v / top) * (H - T - B);
  const path = pts.map(([t, v], i) => `${i ? "L" : "M"}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const zone = s.settings.danger_zone;
  const th = s.settings.forget_threshold;
  return html`<svg class="plot" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-labelledby="plot-title">
<title id="plot-title">Decay score from last use (${when(start)}) to ${when(horizon)}: now ${sc.score.toFixed(3)}, forget threshold ${th}${sc.forget_at !== null ? `, falls under it ${when(sc.forget_at)}` : ""}</title>
<rect x="${L}" y="${y(zone.max).toFixed(1)}" width="${W - L - R}" height="${(y(zone.min) - y(zone.max)).toFixed(1)}" fill="#fff4e5"/>
<text x="${W - R - 4}" y="${(y(zone.max) + 12).toFixed(1)}" text-anchor="end" font-size="10" fill="#9a6700">danger zone</text>
<line x1="${L}" x2="${W - R}" y1="${y(th).toFixed(1)}" y2="${y(th).toFixed(1)}" stroke="#b42318" stroke-dasharray="4 3"/>
<text x="${L + 4}" y="${(y(th) - 3).toFixed(1)}" font-size="10" fill="#b42318">forget threshold ${th}</text>
<line x1="${x(s.now).toFixed(1)}" x2="${x(s.now).toFixed(1)}" y1="${T}" y2="${H - B}" stroke="#57606a" stroke-dasharray="2 2"/>
<text x="${(x(s.now) + 3).toFixed(1)}" y="${T + 10}" font-size="10" fill="#57606a">now</text>
<path d="${path}" fill="none" stroke="#0a58ca" stroke-width="2"/>
<line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" stroke="#57606a"/><line x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}" stroke="#57606a"/>
<text x="${L - 4}" y="${T + 8}" font-size="10" text-anchor="end">${top.toFixed(2)}</text><text x="${L - 4}" y="${H - B}" font-size="10" text-anchor="end">0</text>
<text x="${L}" y="${H - 8}" font-size="10">${when(start).slice(0, 10)}</text><text x="${W - R}" y="${H - 8}" font-size="10" text-anchor="end">${when(horizon).slice(0, 10)}</text>
</svg>`;
}

/** Relations one way, a page at a time (a hub memory can have thousands). */
const rels = (id: string, xs: Rel[], other: (r: Rel) => string, dir: string, shown: number) =>
  xs.length === 0
    ? html`<p class="muted">none</p>`
    : html`<ul>${xs.slice(0, shown).map((r) => html`<li>${dir} <strong>${r.relation_type}</strong> ${memLink(other(r))} <span class="muted">strength ${r.strength}</span></li>`)}</ul>${
        xs.length > shown ? html`<p><a href="/ui/m/${id}?rels=${shown + REL_PAGE}">${xs.length - shown} more</a></p>` : ""
      }`;

export const REL_PAGE = 50;

/** The decision's fields in the edit form; an empty "what" removes the decision. */
const decisionFields = (f: DecisionForm): Html => html`<fieldset><legend>Decision (leave What empty for none)</legend>
<label>What<input name="what" value="${show(f.what)}"></label><label>Why<input name="why" value="${show(f.why)}"></label>
<label>Alternatives (one a line)<textarea name="alternatives" rows="3">${show(f.alternatives)}</textarea></label>
<label>Constraints (one a line)<textarea name="constraints" rows="3">${show(f.constraints)}</textarea></label>
<label>Trade-offs (one a line)<textarea name="tradeoffs" rows="3">${show(f.tradeoffs)}</textarea></label></fieldset>`;

export async function memoryPage(api: ApiContext, f: Found, note = "", relsShown = REL_PAGE): Promise<Html> {
  const m = f.memory;
  const score = await op<Score>(api, "score", { ids: [m.id] });
  const d = m.decision;
  const cb = m.captured_by;
  const body = html`${note ? html`<p class="note" role="status">${note}</p>` : ""}
<p class="muted"><span class="tag">${m.type}</span> <span class="tag">${m.status}</span> ${m.id} · <code>${f.path}</code></p>
<h2>Content</h2><div class="content" id="content">${show(m.content)}</div>
<h2>Gist</h2><p id="gist">${show(m.gist) || "—"}</p>
${d ? html`<h2>Decision</h2><dl><dt>What</dt><dd>${show(d.what)}</dd><dt>Why</dt><dd>${show(d.why) || "—"}</dd><dt>Alternatives</dt><dd>${list(d.alternatives)}</dd><dt>Constraints</dt><dd>${list(d.constraints)}</dd><dt>Trade-offs</dt><dd>${list(d.tradeoffs)}</dd></dl>` : ""}
<h2>Details</h2><dl>
<dt>Tags</dt><dd>${m.meta.tags.length ? m.meta.tags.map((t: string) => html`<a class="tag" href="/ui?tag=${encodeURIComponent(t)}">${show(t)}</a>`) : "—"}</dd>
<dt>Entities</dt><dd>${m.entities.length ? m.entities.map((e: string) => html`<a class="tag" href="/ui?entity=${encodeURIComponent(e)}">${show(e)}</a> <a href="/ui/graph?entity=${encodeURIComponent(e)}" aria-label="graph of ${show(e)}">graph</a> `) : "—"}</dd>
<dt>Project</dt><dd>${m.project ? html`<a href="/ui?project=${encodeURIComponent(m.project)}">${show(m.project)}</a>` : "—"}</dd>
<dt>Scope</dt><dd>${m.scope}</dd><dt>Importance</dt><dd>${m.importance}</dd><dt>Confidence</dt><dd>${m.confidence ?? "—"}</dd>
<dt>Captured by</dt><dd>${cb ? [cb.user, cb.machine && `on ${cb.machine}`, cb.agent && `via ${cb.agent}`, cb.session && `session ${cb.session}`].filter(Boolean).map(show).join(" ") : "—"}</dd>
<dt>Source</dt><dd>${show(m.meta.source) || "—"}</dd><dt>Context</dt><dd>${show(m.meta.context) || "—"}</dd>
<dt>Created</dt><dd>${when(m.created_at)}</dd><dt>Updated</dt><dd>${when(m.updated_at)}</dd><dt>Last used</dt><dd>${when(m.last_used)} (${m.use_count} uses)</dd>
</dl>
<h2>Decay</h2>${score.scores[0] ? decayPlot(score) : ""}
<section><h2>History</h2><div id="history" hx-get="/ui/m/${m.id}/history" hx-trigger="load"><a href="/ui/m/${m.id}/history">The commits that touched it</a></div></section>
<p><a href="/ui/graph?id=${m.id}">Graph around this memory</a></p>
<div class="cols"><section><h2>Relations out</h2>${rels(m.id, f.outgoing, (r) => r.to_memory_id, "→", relsShown)}</section><section><h2>Relations in</h2>${rels(m.id, f.incoming, (r) => r.from_memory_id, "←", relsShown)}</section></div>
<h2>Change</h2>
<form method="post" action="/ui/m/${m.id}/edit"><label>Content<textarea name="content" required>${show(m.content)}</textarea></label>
<label>Gist<input name="gist" value="${show(m.gist)}"></label><label>Tags (comma separated)<input name="tags" value="${show(m.meta.tags.join(", "))}"></label>
${d || m.type === "decision" ? decisionFields(decisionForm(d)) : ""}<div class="actions"><button type="submit">Preview edit</button></div></form>
<div class="actions"><form method="post" action="/ui/m/${m.id}/archive"><button type="submit">Archive…</button></form>
<form method="post" action="/ui/m/${m.id}/forget"><button type="submit" class="danger">Forget (delete)…</button></form></div>`;
  return page(short(show(m.gist ?? m.content), 70) || m.id, body);
}

const splitTags = (s: string) => s.split(",").map((t) => t.trim()).filter(Boolean);

/** A decision's fields as the form holds them: lists one item a line. */
export interface DecisionForm {
  what: string;
  why: string;
  alternatives: string;
  constraints: string;
  tradeoffs: string;
}

export interface EditForm {
  content: string;
  gist: string;
  tags: string;
  /** Present when the form showed the decision fields (a decision, or a memory of type decision). */
  decision?: DecisionForm;
}

export const DECISION_LISTS = ["alternatives", "constraints", "tradeoffs"] as const;
const lines = (s: string) => s.split(/\r?\n/).map((t) => t.trim()).filter(Boolean);

/** The record's decision from the form: null when "what" is left empty (no decision). */
function decisionOf(d: DecisionForm, was: any): Record<string, unknown> | null {
  if (d.what.trim() === "") return null;
  // fields memsync does not know are kept (the object is loose)
  return { ...(was ?? {}), what: d.what.trim(), why: d.why.trim() || null, alternatives: lines(d.alternatives), constraints: lines(d.constraints), tradeoffs: lines(d.tradeoffs) };
}

const sameDecision = (a: any, b: any) =>
  (a === null || a === undefined) === (b === null || b === undefined) &&
  (!a || (a.what === b.what && (a.why ?? null) === (b.why ?? null) && DECISION_LISTS.every((k) => (a[k] ?? []).join("\n") === (b[k] ?? []).join("\n"))));

/** The form's values for a memory as it is (what the edit form shows). */
export function decisionForm(d: any): DecisionForm {
  return { what: d?.what ?? "", why: d?.why ?? "", alternatives: (d?.alternatives ?? []).join("\n"), constraints: (d?.constraints ?? []).join("\n"), tradeoffs: (d?.tradeoffs ?? []).join("\n") };
}

/** What an edit changes: the update operation's patch and label edits. */
export function editOf(m: any, form: EditForm): { patch: Record<string, unknown>; edits: { add_tags: string[]; remove_tags: string[] } } {
  const patch: Record<string, unknown> = {};
  if (form.content !== m.content) patch.content = form.content;
  const gist = form.gist.trim() === "" ? null : form.gist;
  if (gist !== (m.gist ?? null)) patch.gist = gist;
  if (form.decision) {
    const d = decisionOf(form.decision, m.decision);
    // the whole decision as the form says it (the update merges objects key by key)
    if (!sameDecision(d, m.decision ?? null)) patch.decision = d;
  }
  const now = splitTags(form.tags);
  const was: string[] = m.meta.tags;
  return { patch, edits: { add_tags: now.filter((t) => !was.includes(t)), remove_tags: was.filter((t) => !now.includes(t)) } };
}

/** A decision as the preview shows it, a field a line. */
const decisionText = (d: any): string =>
  !d ? "(none)" : [`What: ${d.what}`, `Why: ${d.why ?? "—"}`, ...DECISION_LISTS.map((k) => `${k[0]!.toUpperCase()}${k.slice(1)}: ${(d[k] ?? []).join("; ") || "—"}`)].join("\n");

const change = (label: string, before: string, after: string) =>
  before === after ? "" : html`<h2>${label}</h2><div class="cols diff"><div><h3>Before</h3><div class="content"><del>${show(before)}</del></div></div><div><h3>After</h3><div class="content"><ins>${show(after)}</ins></div></div></div>`;

export function editPreview(m: any, form: EditForm): Html {
  const e = editOf(m, form);
  const nothing = Object.keys(e.patch).length === 0 && e.edits.add_tags.length === 0 && e.edits.remove_tags.length === 0;
  const body = nothing
    ? html`<p class="note">Nothing changes. <a href="/ui/m/${m.id}">Back</a></p>`
    : html`${change("Content", m.content, form.content)}${change("Gist", m.gist ?? "", form.gist)}${change("Tags", m.meta.tags.join(", "), splitTags(form.tags).join(", "))}${
        "decision" in e.patch ? change("Decision", decisionText(m.decision), decisionText(e.patch.decision)) : ""
      }
<form method="post" action="/ui/m/${m.id}/edit">${hidden("content", form.content)}${hidden("gist", form.gist)}<input type="hidden" name="tags" value="${form.tags}">${
        form.decision ? (["what", "why", ...DECISION_LISTS] as const).map((k) => html`<input type="hidden" name="${k}" value="${form.decision![k]}">`) : ""
      }${hidden("confirm", "1")}
<div class="actions"><button type="submit" class="primary">Confirm edit</button><a href="/ui/m/${m.id}">Cancel</a></div></form>`;
  return page(`Edit ${shortId(m.id)}: preview`, body);
}

export function confirmPage(m: any, what: "archive" | "forget", found: Found): Html {
  const rels = found.outgoing.length + found.incoming.length;
  const says =
    what === "archive"
      ? html`<p>The memory is kept but marked archived: hidden from lists, search and recall by default.</p>`
      : html`<p class="bad">The record file <code>${found.path}</code> is removed${rels ? html`, with the ${rels} relation${rels === 1 ? "" : "s"} that name it` : ""}. It stays only in git history.</p>`;
  const body = html`<div class="content">${show(m.content)}</div>${says}
<form method="post" action="/ui/m/${m.id}/${what}">${hidden("confirm", "1")}<div class="actions"><button type="submit" class="${what === "forget" ? "danger" : "primary"}">Confirm ${what}</button><a href="/ui/m/${m.id}">Cancel</a></div></form>`;
  return page(`${what === "archive" ? "Archive" : "Forget"} ${shortId(m.id)}?`, body);
}

type History = { commits: { oid: string; message: string; author: string; at: number; change: string }[]; scanned: number; more: boolean };

/** The commits that touched a memory (asked for after the page loaded: history is read from git). */
export async function historyList(api: ApiContext, id: string, limit: number): Promise<Html> {
  const h = await op<History>(api, "history", { id, limit });
  if (h.commits.length === 0) return html`<p class="muted">No commit touched it yet${h.more ? ` (in the last ${h.scanned} commits)` : " (changes are committed by commit or sync)"}.</p>`;
  return html`<table><thead><tr><th>Commit</th><th>When</th><th>Change</th><th>Message</th></tr></thead><tbody>${h.commits.map(
    (c) => html`<tr><td><code>${c.oid.slice(0, 10)}</code></td><td>${when(c.at)}</td><td>${c.change}</td><td>${show(c.message)}</td></tr>`,
  )}</tbody></table>${h.more ? html`<p><a href="/ui/m/${id}/history?limit=${limit + 20}" hx-get="/ui/m/${id}/history?limit=${limit + 20}" hx-target="#history">Older commits</a></p>` : ""}`;
}
