import * as v from "valibot";

// valibot as memsync uses it: every schema module imports it from here. One difference: an
// object or record schema refuses an array ("must be a object"), as JSON Schema's type object
// does; valibot's own take any non-null object, so `[]` would pass as `{}` and `["a"]` as
// `{"0": "a"}`.

export * from "valibot";

type Run = v.GenericSchema["~run"];

function noArrays<S extends v.GenericSchema>(schema: S): S {
  const run: Run = schema["~run"];
  return {
    ...schema,
    "~run"(dataset, config) {
      if (!Array.isArray(dataset.value)) return run.call(this, dataset, config);
      v._addIssue(this as never, "type", dataset, config);
      return dataset as unknown as ReturnType<Run>;
    },
  };
}

export function object<const E extends v.ObjectEntries>(entries: E): v.ObjectSchema<E, undefined> {
  return noArrays(v.object(entries));
}

export function looseObject<const E extends v.ObjectEntries>(entries: E): v.LooseObjectSchema<E, undefined> {
  return noArrays(v.looseObject(entries));
}

export function record<const K extends v.GenericSchema<string, string | number | symbol>, const V extends v.GenericSchema>(key: K, value: V): v.RecordSchema<K, V, undefined> {
  return noArrays(v.record(key, value));
}
