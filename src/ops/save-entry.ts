import { isMemsyncError, MemsyncError } from "../core/errors.ts";
import type { JsonObject } from "../core/records.ts";
import type { OpCall } from "./catalogue/index.ts";
import type { SaveOutcome } from "./save.ts";

// The catalogue's save (ops/catalogue/records.ts declares its schemas; ops/catalogue/direct.ts
// runs a plain one without them): one memory or many, each with its project, checked before a
// first save creates the store.

const saveOps = () => import("./save.ts");

/** What the save entry's input schema gives. */
export interface SaveInput {
  memory?: Record<string, unknown>;
  memories?: Record<string, unknown>[];
  labels?: string[];
}

export type SaveResult = (SaveOutcome & { store_created: boolean }) | { saved: SaveOutcome[]; store_created: boolean };

/**
 * Each record's project: its own, else none for a global memory, else the caller's working
 * directory's (ops/project.ts projectOf, the one way every face resolves it).
 */
function withProject(fields: JsonObject, call: OpCall, projectOf: typeof import("./project.ts").projectOf): JsonObject {
  if (fields.project === undefined && fields.scope !== "global" && call.cwd !== undefined) {
    const here = projectOf({ cwd: call.cwd });
    if (here !== null) fields.project = here;
  }
  return fields;
}

export async function saveEntry(call: OpCall, input: SaveInput): Promise<SaveResult> {
  const many = input.memories !== undefined;
  if (many === (input.memory !== undefined)) throw new MemsyncError("invalid_input", "save: give either memory or memories");
  const { projectOf } = await import("./project.ts");
  const records = (input.memories ?? [input.memory!]).map((r) => withProject({ ...(r as JsonObject) }, call, projectOf));
  const labels = input.labels ?? records.map((_, i) => (many ? `record ${i + 1}` : "the record"));
  const env = call.env;
  if (!many) {
    // one new memory into a settled store: its file and journal entry alone, the index row left
    // to the next refresh (save-unindexed.ts); else the Store's path below. A settled store is
    // there, so init.ts (which makes one, with the meta schemas) is not loaded for it.
    const plain = await (await import("./save-unindexed.ts")).saveUnindexed(env, records[0]!);
    if (plain) return { ...plain, store_created: false };
  }
  const { ensureStore, storeExists } = await import("./init.ts");
  // where the first save would create the store, bad input is refused before that
  if (!storeExists(env)) {
    const { checkNewMemory } = await saveOps();
    records.forEach((r, i) => {
      try {
        checkNewMemory(r);
      } catch (e) {
        if (many && isMemsyncError(e)) throw new MemsyncError(e.code, `${labels[i]}: ${e.message}`, e.data);
        throw e;
      }
    });
  }
  const created = await ensureStore(env);
  const [{ withStore }, { saveMemories, saveMemory }] = await Promise.all([import("./context.ts"), saveOps()]);
  if (!many) return { ...(await withStore(env, (store) => saveMemory(store, env, records[0]!))), store_created: created };
  return { saved: await withStore(env, (store) => saveMemories(store, env, records, labels)), store_created: created };
}
