import * as v from "valibot";

// valibot as memsync uses it: every schema module imports it from here. Two differences from
// valibot's own object, loose object and record schemas, so that they read JSON as zod did:
// - an array is refused ("must be an object"), as JSON Schema's type object refuses it; valibot
//   takes any non-null object, so `[]` would pass as `{}` and `["a"]` as `{"0": "a"}`;
// - fields named "constructor" and "prototype" are kept (valibot drops them from loose objects
//   and records): a record's unknown fields survive load and save unchanged, whatever their name.
//   ("__proto__" stays dropped, as before: tests/core/model.test.ts has it as a known bug.)

export * from "valibot";

type Run = v.GenericSchema["~run"];
type Dataset = ReturnType<Run> & { value: unknown };

/** The names valibot skips (besides __proto__); plain assignment makes them own data fields. */
const SKIPPED = ["constructor", "prototype"] as const;

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * The schema with its run wrapped: arrays refused before it, and after it `extra(input, out,
 * dataset, config)` for each skipped name the input has; `out` is then rebuilt in the input's key
 * order (known fields first for an object), as valibot would have written it.
 */
function wrap<S extends v.GenericSchema>(
  schema: S,
  known: (k: string) => boolean,
  extra?: (k: string, input: Record<string, unknown>, out: Record<string, unknown>, dataset: Dataset, config: v.Config<v.BaseIssue<unknown>>) => void,
): S {
  const run: Run = schema["~run"];
  return {
    ...schema,
    "~run"(dataset, config) {
      const input = dataset.value;
      if (Array.isArray(input)) {
        v._addIssue(this as never, "type", dataset, config);
        return dataset as unknown as ReturnType<Run>;
      }
      const done = run.call(this, dataset, config) as Dataset;
      if (!extra || !isObj(input) || !isObj(done.value) || !SKIPPED.some((k) => Object.hasOwn(input, k) && !known(k))) return done;
      const out = done.value;
      for (const k of SKIPPED) if (Object.hasOwn(input, k) && !known(k)) extra(k, input, out, done, config);
      // the input's order for the fields that are not the schema's own
      const ordered: Record<string, unknown> = {};
      for (const k of Object.keys(out)) if (known(k)) ordered[k] = out[k];
      for (const k of Object.keys(input)) if (!known(k) && Object.hasOwn(out, k)) ordered[k] = out[k];
      done.value = ordered;
      return done as ReturnType<Run>;
    },
  };
}

export function object<const E extends v.ObjectEntries>(entries: E): v.ObjectSchema<E, undefined> {
  return wrap(v.object(entries), (k) => Object.hasOwn(entries, k));
}

export function looseObject<const E extends v.ObjectEntries>(entries: E): v.LooseObjectSchema<E, undefined> {
  return wrap(
    v.looseObject(entries),
    (k) => Object.hasOwn(entries, k),
    (k, input, out) => {
      out[k] = input[k];
    },
  );
}

export function record<const K extends v.GenericSchema<string, string | number | symbol>, const V extends v.GenericSchema>(key: K, value: V): v.RecordSchema<K, V, undefined> {
  return wrap(
    v.record(key, value),
    () => false,
    (k, input, out, dataset, config) => {
      // the key and its value checked as valibot checks every other entry
      const path = (origin: "key" | "value") => ({ type: "object", origin, input, key: k, value: input[k] }) as v.ObjectPathItem;
      const keyed = key["~run"]({ value: k }, config);
      const valued = value["~run"]({ value: input[k] }, config);
      const issues = [...(keyed.issues ?? []).map((i) => ({ ...i, path: [path("key"), ...(i.path ?? [])] })), ...(valued.issues ?? []).map((i) => ({ ...i, path: [path("value"), ...(i.path ?? [])] }))];
      if (issues.length) {
        const d = dataset as { typed: boolean; issues?: v.BaseIssue<unknown>[] };
        d.typed = false;
        d.issues = [...(d.issues ?? []), ...issues] as never;
      } else {
        out[k] = valued.value;
      }
    },
  );
}
