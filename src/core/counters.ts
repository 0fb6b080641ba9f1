// Counts that merge (pure). use_count, review_count and cross_domain_count are each the sum of
// per-stream counts kept in the record's `counters` map: a stream is one store checkout (its
// replica id, machine-local) and only that checkout increments it. Two machines touching a
// memory in the same second therefore write different files (each its own stream), and a merge
// takes each stream's larger count: commutative, associative, idempotent (a grow-only counter).
//
// - "~" is the legacy part: whatever a total holds beyond its named streams (a file written
//   before counters existed, or by a memsync that kept the map but bumped the total). Only old
//   writers change it, so it merges as the old absolute counter did (both sides' increments).
// - A successor (consolidation, split) inherits a source's streams qualified by the source id,
//   "<source id>/<stream>"; a key that is already qualified is kept as it is, so keys never nest.
// - The written map leaves out zero counts, and a field whose map would only hold "~" has no map
//   (the total alone says the same), so old files stay as they are until a stream counts.

export const COUNTED_FIELDS = ["use_count", "review_count", "cross_domain_count"] as const;
export type CountedField = (typeof COUNTED_FIELDS)[number];

/**
 * A memory's usage fields: what a use, a review or a score writes (the counts and their streams,
 * when last used or reviewed, strength, review priority). A change to these alone is usage, never
 * an edit: it does not move updated_at (records.ts), and it does not bring back a memory another
 * clone consolidated or split (sync/merge-tree.ts changedBeyondUsage): it moves to the successors.
 */
export const USAGE_FIELDS: ReadonlySet<string> = new Set([...COUNTED_FIELDS, "counters", "last_used", "strength", "review_priority", "last_review_at"]);

/** The stream that holds what a total counts beyond its named streams. */
export const LEGACY_STREAM = "~";

export type Streams = Record<string, number>;
type Rec = { [k: string]: unknown };

const isObject = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

export function sumOf(streams: Streams): number {
  let n = 0;
  for (const v of Object.values(streams)) n += v;
  return n;
}

/** One field's streams as the record says, the legacy part made explicit. */
export function streamsOf(record: Rec, field: CountedField): Streams {
  const map = isObject(record.counters) && isObject(record.counters[field]) ? record.counters[field] : {};
  const out: Streams = {};
  let named = 0;
  for (const [k, v] of Object.entries(map)) {
    const n = count(v);
    if (n === 0) continue;
    out[k] = n;
    if (k !== LEGACY_STREAM) named += n;
  }
  // a total above the map's sum was counted by a writer that knew no streams; never below the map
  const legacy = Math.max(out[LEGACY_STREAM] ?? 0, count(record[field]) - named);
  if (legacy > 0) out[LEGACY_STREAM] = legacy;
  else delete out[LEGACY_STREAM];
  return out;
}

/** One field's map as written: no zero counts, keys sorted, none when "~" alone would be in it. */
function writtenMap(streams: Streams): Streams | undefined {
  const normal: Streams = {};
  for (const k of Object.keys(streams).sort()) if (count(streams[k]) > 0) normal[k] = count(streams[k]);
  const keys = Object.keys(normal);
  return keys.length === 0 || (keys.length === 1 && keys[0] === LEGACY_STREAM) ? undefined : normal;
}

/** The record with one field's streams set: the map in its written form and the total = its sum. */
export function withStreams<T extends Rec>(record: T, field: CountedField, streams: Streams): T {
  const map = writtenMap(streams);
  const counters: Rec = isObject(record.counters) ? { ...record.counters } : {};
  if (map) counters[field] = map;
  else delete counters[field];
  let total = 0;
  for (const v of Object.values(streams)) total += count(v);
  const out: Rec = { ...record, [field]: total };
  if (Object.keys(counters).length) out.counters = counters;
  else delete out.counters;
  return out as T;
}

function sameCounts(a: unknown, b: Streams): boolean {
  if (!isObject(a)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

function isWritten(record: Rec, field: CountedField): boolean {
  const streams = streamsOf(record, field);
  const map = writtenMap(streams);
  const has = isObject(record.counters) ? record.counters[field] : undefined;
  return record[field] === sumOf(streams) && (map === undefined ? has === undefined : sameCounts(has, map));
}

/** Every counted field in the written form (total = sum of its map); the same object when it is. */
export function normalizeCounts<T extends Rec>(record: T): T {
  let out = record;
  for (const f of COUNTED_FIELDS) if (!isWritten(out, f)) out = withStreams(out, f, streamsOf(out, f));
  return out;
}

/** `by` more on this checkout's stream. */
export function increment<T extends Rec>(record: T, field: CountedField, stream: string, by = 1): T {
  const s = streamsOf(record, field);
  s[stream] = (s[stream] ?? 0) + by;
  return withStreams(record, field, s);
}

/**
 * The merge of one field's streams: each stream's larger count, whatever the base. The legacy
 * part, which old writers changed as an absolute number, adds both sides' increments over the
 * base when the sides differ (equal values are one change, as before).
 */
export function mergeStreams(base: Streams, ours: Streams, theirs: Streams): Streams {
  const out: Streams = {};
  for (const k of new Set([...Object.keys(ours), ...Object.keys(theirs)])) {
    const o = ours[k] ?? 0;
    const t = theirs[k] ?? 0;
    out[k] = k === LEGACY_STREAM && o !== t ? Math.max(o, t, o + t - (base[k] ?? 0)) : Math.max(o, t);
  }
  return out;
}

/** A source's stream as its successor keeps it. */
export function qualifiedKey(sourceId: string, stream: string): string {
  return stream.includes("/") ? stream : `${sourceId}/${stream}`;
}

/**
 * A successor's share of its sources' streams. A key two sources share is one stream of one
 * memory's uses that both hold a copy of (the parts of one split, or a memory restored beside the
 * successor that carries its streams as "<it>/<stream>"): the larger count, as a merge takes it.
 * Adding them up counted those uses twice (the chaos suite's "uses counted twice" note).
 */
export function inheritedStreams(sources: readonly Rec[], field: CountedField): Streams {
  const out: Streams = {};
  for (const src of sources) {
    for (const [k, n] of Object.entries(streamsOf(src, field))) {
      const q = qualifiedKey(String(src.id), k);
      out[q] = Math.max(out[q] ?? 0, n);
    }
  }
  return out;
}

/**
 * A source that comes back beside its successors (an edit that raced its consolidation or split
 * wins over the removal): its own streams raised to what the successors carry of them
 * ("<source>/<stream>"). A use counted into a successor after the removal (carryStreams) is then
 * in the returned memory too, so each stream stays one count that only grows; without it the
 * returned memory's stream counts on from a smaller number and later merges and consolidations,
 * which take a stream's larger count, lose the uses behind the difference. The legacy part and
 * increments carried from a memsync without counters ("<source>/+<stream>") are not streams of
 * the source and are left as they are.
 */
export function raiseToCarried(own: Streams, sourceId: string, carried: readonly Streams[]): Streams {
  const out = { ...own };
  const prefix = `${sourceId}/`;
  for (const streams of carried) {
    for (const [k, n] of Object.entries(streams)) {
      if (!k.startsWith(prefix)) continue;
      const s = k.slice(prefix.length);
      if (s === LEGACY_STREAM || s.startsWith("+") || s.includes("/")) continue;
      if (n > (out[s] ?? 0)) out[s] = n;
    }
  }
  return out;
}

/**
 * Usage a machine added to a memory that another machine meanwhile merged away into `successor`
 * (pull's modify/delete): for each of the source's streams, successor["<source>/<stream>"] = the
 * larger of the two. Deterministic and idempotent: both machines write the same bytes, and a
 * second merge of the same touch adds nothing. A successor made by a memsync without counters
 * holds its sources' usage in its total only; there the increments since the base are carried,
 * under "<source>/+<stream>" so that a later carry still knows the successor for what it is.
 * A stream the source holds from its own sources ("W/<stream>", already qualified) is carried as
 * it is, never under "<source>/+W/<stream>": keys never nest.
 */
export function carryStreams(successor: Streams, sourceId: string, base: Streams, kept: Streams): Streams {
  const out = { ...successor };
  const own = `${sourceId}/`;
  const qualified = Object.keys(successor).some((k) => k.startsWith(own) && !k.startsWith(`${own}+`));
  // Only a successor whose total holds uses its map does not name ("~") was made without counters.
  // One made with them names every stream it counts: naming none of the source's, it holds none of
  // its uses (the source had none when it was merged away), and the source's own count is exact.
  // (Increments since the base, taken at the larger, lose uses once a source's use is carried twice
  // from different bases: chaos seed 11 with a serve clone, three touches counted as one.)
  const counted = qualified || !((successor[LEGACY_STREAM] ?? 0) > 0);
  for (const [s, n] of Object.entries(kept)) {
    // a stream the source itself carries from another memory ("W/t") is W's count wherever it is:
    // kept as it is, at the larger value (keys never nest, and W's uses stay W's)
    const [key, value] = counted || s.includes("/") ? [qualifiedKey(sourceId, s), n] : [`${own}+${s}`, n - (base[s] ?? 0)];
    if (value > (out[key] ?? 0)) out[key] = value;
  }
  return out;
}
