import { storedTerms } from "./core/memory-terms.ts";
import { memoryToJson } from "./core/model/memory.ts";
import { createMemory } from "./core/records.ts";
import { withScopeRules } from "./core/scope.ts";
import type { BuildJob, BuiltRecord } from "./ops/import-build.ts";

// A thread that builds an import's memories (ops/import-build.ts): each planned memory checked,
// its secrets redacted, its canonical text and its recall terms made, exactly as the calling
// thread makes them (the same functions), while that thread writes the rows of those before it.
// It sits at the top of src/ for the reason stat-worker.ts does (record-worker-url.ts).

declare const self: { onmessage: ((e: MessageEvent<BuildJob | { port: MessagePort; counter: SharedArrayBuffer }>) => void) | null };

let port: MessagePort | null = null;
let counter: Int32Array | null = null;

self.onmessage = (e) => {
  const data = e.data;
  if ("port" in data) {
    port = data.port;
    counter = new Int32Array(data.counter);
    return;
  }
  const out: BuiltRecord[] = [];
  for (const [at, id, fields] of data.items) {
    try {
      const m = withScopeRules(createMemory(fields, id, data.origin));
      out.push([at, memoryToJson(m), storedTerms(m)]);
    } catch (err) {
      out.push([at, null, err instanceof Error ? err.message : String(err)]);
    }
  }
  port!.postMessage(out);
  // after the message: the calling thread, woken by this, finds it on its port
  Atomics.add(counter!, 0, 1);
  Atomics.notify(counter!, 0);
};
