import { html } from "hono/html";
import { short as shortId } from "../../core/history.ts";
import type { ApiContext } from "../api/context.ts";
import { op } from "./call.ts";
import { type Html, memLink, page, short, show } from "./layout.ts";

// The relations around a memory (it and its neighbours) or an entity (the memories naming it),
// bounded: at most `limit` memories, a page at a time, never the whole graph of a large store.
// Drawn as a ring (SVG, no script) and listed as a table (readable without the picture).

type Rel = { id: string; from_memory_id: string; to_memory_id: string; relation_type: string };
type Found = { memory: { id: string; content: string; gist: string | null }; outgoing: Rel[]; incoming: Rel[] };

export async function graphPage(api: ApiContext, around: { id?: string; entity?: string }, limit: number): Promise<Html> {
  let ids: string[];
  let total: number;
  if (around.entity) {
    const out = await op<{ memories: { id: string }[]; total: number }>(api, "list", { entity: [around.entity], limit });
    ids = out.memories.map((m) => m.id);
    total = out.total;
  } else {
    const center = (await op<{ found: Found[] }>(api, "get", { ids: [around.id!] })).found[0];
    if (!center) return page("Graph", html`<p>No memory ${short(around.id ?? "", 40)}.</p>`);
    const near = [...new Set([...center.outgoing.map((r) => r.to_memory_id), ...center.incoming.map((r) => r.from_memory_id)])].filter((x) => x !== center.memory.id);
    total = near.length + 1;
    ids = [center.memory.id, ...near.slice(0, limit - 1)];
  }
  const found = ids.length ? (await op<{ found: Found[] }>(api, "get", { ids })).found : [];
  const shown = new Set(found.map((f) => f.memory.id));
  const edges = new Map<string, Rel>();
  for (const f of found) for (const r of [...f.outgoing, ...f.incoming]) if (shown.has(r.from_memory_id) && shown.has(r.to_memory_id)) edges.set(r.id, r);
  const label = (id: string) => {
    const m = found.find((f) => f.memory.id === id)?.memory;
    return m ? short(show(m.gist ?? m.content), 60) : shortId(id);
  };
  const R = 150, C = 190;
  const ring = around.entity ? 0 : 1; // around a memory: it in the middle, its neighbours on the ring
  const pos = new Map<string, [number, number]>(found.map((f, i) => [f.memory.id, i < ring ? [C, C] : ringAt(i - ring, found.length - ring, R, C)]));
  const svg = html`<svg class="plot" viewBox="0 0 ${2 * C} ${2 * C}" width="${2 * C}" height="${2 * C}" role="img" aria-label="${found.length} memories and ${edges.size} relations">
${[...edges.values()].map((e) => {
    const a = pos.get(e.from_memory_id)!, b = pos.get(e.to_memory_id)!;
    return html`<line x1="${a[0].toFixed(0)}" y1="${a[1].toFixed(0)}" x2="${b[0].toFixed(0)}" y2="${b[1].toFixed(0)}" stroke="#8c959f"/>`;
  })}
${found.map((f) => {
    const p = pos.get(f.memory.id)!;
    return html`<a href="/ui/graph?id=${f.memory.id}"><circle cx="${p[0].toFixed(0)}" cy="${p[1].toFixed(0)}" r="9" fill="#0a58ca"><title>${label(f.memory.id)}</title></circle></a>`;
  })}</svg>`;
  const title = around.entity ? `Graph of “${short(around.entity, 60)}”` : `Graph around ${shortId(ids[0]!)}`;
  const more = total > found.length;
  const q = around.entity ? `entity=${encodeURIComponent(around.entity)}` : `id=${around.id}`;
  const body = html`<p role="status">${found.length} of ${total} memories, ${edges.size} relation${edges.size === 1 ? "" : "s"} among them.</p>${svg}
<table><thead><tr><th>From</th><th>Relation</th><th>To</th></tr></thead><tbody>${[...edges.values()].map(
    (e) => html`<tr><td>${memLink(e.from_memory_id, label(e.from_memory_id))}</td><td>${e.relation_type}</td><td>${memLink(e.to_memory_id, label(e.to_memory_id))}</td></tr>`,
  )}</tbody></table>
<h2>Memories</h2><ul>${found.map((f) => html`<li>${memLink(f.memory.id)} ${label(f.memory.id)}</li>`)}</ul>
${more ? html`<p><a href="/ui/graph?${q}&limit=${limit + 50}">Show ${Math.min(50, total - found.length)} more</a></p>` : ""}`;
  return page(title, body);
}

function ringAt(i: number, n: number, r: number, c: number): [number, number] {
  const a = (2 * Math.PI * i) / Math.max(1, n) - Math.PI / 2;
  return [c + r * Math.cos(a), c + r * Math.sin(a)];
}
