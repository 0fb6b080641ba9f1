import type { Memory } from "./model/memory.ts";

// A memory this machine made local while another machine edited its text: the merge brought the
// shared copy back with that text, and a pull here removes the shared copy again (the memory is
// kept on this machine only). The text another machine wrote is not dropped with it: it joins the
// local copy's content_conflicts, as a clashing edit would (`memsync conflicts` shows it,
// `memsync resolve` settles it). A shared copy whose text the local copy has, as its content or
// as a kept text, adds nothing (uses alone are not carried over, as before).

export function keepSharedTexts(local: Memory, shared: readonly Memory[]): Memory {
  const known = new Set([local.content, ...(local.content_conflicts ?? []).map((c) => c.content)]);
  const added = [];
  for (const s of shared) {
    for (const text of [s.content, ...(s.content_conflicts ?? []).map((c) => c.content)]) {
      if (known.has(text)) continue;
      known.add(text);
      const own = text === s.content ? { updated_at: s.updated_at ?? null, machine: s.captured_by?.machine ?? null } : s.content_conflicts!.find((c) => c.content === text)!;
      added.push({ content: text, updated_at: own.updated_at ?? null, machine: own.machine ?? null });
    }
  }
  if (added.length === 0) return local;
  return { ...local, content_conflicts: [...(local.content_conflicts ?? []), ...added] };
}
