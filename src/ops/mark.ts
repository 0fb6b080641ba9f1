import { messages } from "../core/history.ts";
import { touchMemory, updateMemory } from "../core/records.ts";
import type { Store } from "../store/store.ts";
import { type OpsEnv, originOf } from "./context.ts";
import type { EditOutcome } from "./edit.ts";

// Touch and archive: marks on records that never change what was read from the content, so they
// load none of update's re-reading (the capture vocabulary alone is ~20 ms of a process's start).

/** A use of each memory, counted on this checkout's stream (so a use elsewhere at once adds up). */
export function touchMemories(store: Store, env: OpsEnv, ids: readonly string[], boost: boolean): Promise<EditOutcome> {
  const stream = originOf(store, env).replica!;
  return store.write((tx) => {
    const current = [...new Set(ids)].map((id) => tx.memory(id));
    const touched = current.map((m) => touchMemory(m, tx.now, boost, stream));
    for (const m of touched) tx.putMemory(m);
    tx.note("touch", messages.touch(touched.length));
    return { memories: touched, unchanged: [] };
  }, []);
}

export function archiveMemories(store: Store, ids: readonly string[]): Promise<EditOutcome> {
  return store.write((tx) => {
    const current = [...new Set(ids)].map((id) => tx.memory(id));
    const results = current.map((m) => updateMemory(m, { status: "archived" }, tx.now));
    for (const r of results) if (r.changed) tx.putMemory(r.memory);
    tx.note("archive", messages.archive(results.filter((r) => r.changed).length));
    return {
      memories: results.map((r) => r.memory),
      unchanged: results.filter((r) => !r.changed).map((r) => r.memory.id),
    };
  }, []);
}
