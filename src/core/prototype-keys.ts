// Keys an input object may not hold: "__proto__", "constructor" and "prototype" name an object's
// machinery, not a field. JSON.parse makes "__proto__" an own key, which the schema library drops
// without a word (so `{"__proto__": {...}}` read as an empty patch) and a plain assignment turns
// into a prototype change. Every operation's input is refused with such a key, at any depth,
// before anything runs (ops/catalogue/run.ts).

export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Where the first such key is in a JSON value ("patch.meta.__proto__", "memories[2].constructor"), or null. */
export function prototypeKeyPath(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) if (typeof v[i] === "object" && v[i] !== null) stack.push([v[i], `${at}[${i}]`]);
      continue;
    }
    const keys = Object.keys(v);
    for (const k of keys) if (PROTOTYPE_KEYS.has(k)) return at ? `${at}.${k}` : k;
    for (let i = keys.length - 1; i >= 0; i--) {
      const x = (v as Record<string, unknown>)[keys[i]!];
      if (typeof x === "object" && x !== null) stack.push([x, at ? `${at}.${keys[i]}` : keys[i]!]);
    }
  }
  return null;
}
