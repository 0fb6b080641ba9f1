import { short } from "./short-id.ts";

// Commit messages: plain words saying what happened, the same on every machine.

export { short };

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The first words of a text, on one line, at most 60 characters. */
export function firstWords(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${space > 20 ? cut.slice(0, space) : cut}…`;
}

export const messages = {
  save: (id: string, content: string) => `save: ${short(id)} ${firstWords(content)}`,
  update: (id: string, content: string) => `update: ${short(id)} ${firstWords(content)}`,
  /** A memory moved to or from scope local (the text is quoted only when it is shared from now on). */
  scope: (id: string, from: string, to: string, content: string | null) =>
    to === "local" ? `update: ${short(id)} scope ${from} → local (kept on this machine only from now)` : `update: ${short(id)} ${firstWords(content ?? "")} (scope ${from} → ${to})`,
  touch: (n: number) => `touch: ${plural(n, "memory", "memories")}`,
  archive: (n: number) => `archive: ${plural(n, "memory", "memories")}`,
  delete: (n: number, relations: number) => `delete: ${plural(n, "memory", "memories")}${relations ? ` and ${plural(relations, "relation", "relations")}` : ""}`,
  relate: (from: string, type: string, to: string) => `relate: ${short(from)} ${type} ${short(to)}`,
  unrelate: (n: number) => `unrelate: ${plural(n, "relation", "relations")}`,
  /**
   * The merged memories and what each came from: `consolidate: merge a, b, c into X`; several:
   * `consolidate: merge 5 memories into 2: a, b into X; c, d, e into Y`. At most ID_LIMIT
   * source ids are named in all (then "+N more" for a cluster); past that, whole clusters are
   * counted ("+N more merges"), so the line stays readable whatever was merged.
   */
  consolidate: (merged: readonly { sources: readonly string[]; into: string }[]) => {
    if (merged.length === 1) return `consolidate: merge ${idList(merged[0]!.sources)} into ${short(merged[0]!.into)}`;
    const total = merged.reduce((a, m) => a + m.sources.length, 0);
    const parts: string[] = [];
    let named = 0;
    for (const m of merged) {
      if (named >= ID_LIMIT) break;
      const room = ID_LIMIT - named;
      const shown = Math.min(m.sources.length, room);
      named += shown;
      parts.push(`${idList(m.sources, shown)} into ${short(m.into)}`);
    }
    const rest = merged.length - parts.length;
    return `consolidate: merge ${total} memories into ${merged.length}: ${parts.join("; ")}${rest ? `; +${rest} more ${rest === 1 ? "merge" : "merges"}` : ""}`;
  },
  link: (clusters: readonly { id: string; members: number }[], relations: number) =>
    clusters.length === 1
      ? `consolidate: link ${clusters[0]!.members} memories of cluster ${clusters[0]!.id} (${plural(relations, "relation", "relations")})`
      : `consolidate: link ${clusters.reduce((a, c) => a + c.members, 0)} memories in ${clusters.length} clusters (${plural(relations, "relation", "relations")})`,
  split: (original: string, parts: readonly string[]) => `split: decompose ${short(original)} into ${parts.length} atomic memories (${idList(parts)})`,
  backfillGists: (n: number, level: string) => `backfill-gists: ${plural(n, "memory", "memories")} (${level})`,
  /** One captured memory: `capture: <id8> <first words>`; several: how many new, how many again. */
  capture: (op: "capture" | "remember", created: { id: string; content: string }[], reinforced: number) =>
    created.length === 1 && reinforced === 0
      ? `${op}: ${short(created[0]!.id)} ${firstWords(created[0]!.content)}`
      : `${op}: ${[created.length ? plural(created.length, "new memory", "new memories") : "", reinforced ? `${plural(reinforced, "memory", "memories")} reinforced` : ""].filter(Boolean).join(", ")}`,
  gc: (n: number, relations: number, archived: boolean) =>
    n === 0
      ? "gc: nothing to prune"
      : archived
        ? `gc: archive ${plural(n, "memory", "memories")}`
        : `gc: prune ${plural(n, "memory", "memories")}${relations ? ` and ${plural(relations, "relation", "relations")}` : ""}`,
  promote: (ids: readonly string[], firstContent: string) =>
    ids.length === 1 ? `promote: ${short(ids[0]!)} ${firstWords(firstContent)}` : `promote: ${plural(ids.length, "memory", "memories")}`,
  /** A settled content conflict: how (ours, theirs, both, content) and the text it now holds. */
  resolve: (id: string, how: string, content: string) =>
    `resolve: ${short(id)} ${{ ours: "kept ours", theirs: "took theirs", both: "joined both", content: "new content" }[how] ?? how}: ${firstWords(content)}`,
  settings: (key: string, value: unknown) => `settings: ${key} = ${JSON.stringify(value)}`,
};

/** How many ids a message names before it counts the rest. */
const ID_LIMIT = 6;

/** Short ids, at most `limit`, then how many more. */
function idList(ids: readonly string[], limit = ID_LIMIT): string {
  const shown = ids.slice(0, limit).map(short).join(", ");
  return ids.length > limit ? `${shown}, +${ids.length - limit} more` : shown;
}
