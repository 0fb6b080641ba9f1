// Keys an input object may not hold: "__proto__", "constructor" and "prototype" name an object's
// machinery, not a field. JSON.parse makes "__proto__" an own key, which the schema library drops
// without a word (so `{"__proto__": {...}}` read as an empty patch) and a plain assignment turns
// into a prototype change. Every operation's input is refused with such a key, at any depth,
// before anything runs (ops/catalogue/run.ts).
//
// Nor may an input nest objects and arrays deeper than MAX_INPUT_DEPTH: the schema and the
// record checks walk a value recursively, so a body nested 50,000 deep (JSON.parse builds it)
// overflowed the stack, an internal error (HTTP 500), and 20,000 deep made an 800 MB record text
// before the size check refused it. Records themselves nest at most MAX_JSON_DEPTH (32,
// core/model/validate.ts); an input wraps one in a few levels more (memories[i], patch).

export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** The deepest nesting of objects and arrays an operation's input may have. */
export const MAX_INPUT_DEPTH = 64;

export interface ShapeProblem {
  kind: "prototype-key" | "too-deep";
  /** The path of the key, or of the value nested too deep. */
  at: string;
  /** One line: what is wrong, naming the path. */
  message: string;
}

/** A prototype key anywhere, or nesting deeper than `maxDepth`, in a JSON value; null when neither. Iterative: no recursion to overflow. */
export function inputShapeProblem(value: unknown, maxDepth: number = MAX_INPUT_DEPTH): ShapeProblem | null {
  const stack: [unknown, string, number][] = [[value, "", 1]];
  while (stack.length > 0) {
    const [v, at, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth > maxDepth) {
      const shown = at.length > 80 ? `${at.slice(0, 60)}…` : at;
      return { kind: "too-deep", at, message: `${shown || "the input"}: objects and arrays nested deeper than ${maxDepth} levels are not allowed` };
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) if (typeof v[i] === "object" && v[i] !== null) stack.push([v[i], `${at}[${i}]`, depth + 1]);
      continue;
    }
    const keys = Object.keys(v);
    for (const k of keys) {
      if (!PROTOTYPE_KEYS.has(k)) continue;
      const path = at ? `${at}.${k}` : k;
      return { kind: "prototype-key", at: path, message: `${path}: a key named ${JSON.stringify(k)} is not allowed (__proto__, constructor and prototype are never fields)` };
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const x = (v as Record<string, unknown>)[keys[i]!];
      if (typeof x === "object" && x !== null) stack.push([x, at ? `${at}.${keys[i]}` : keys[i]!, depth + 1]);
    }
  }
  return null;
}
