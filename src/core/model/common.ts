import * as v from "./valibot.ts";
import { UUID_RE } from "../ids.ts";

// Building blocks shared by the record schemas (and the catalogue's). Times are Unix seconds, as
// in the CortexGraph spec; fractional values written by other tools are accepted on read.

/** A finite number (JSON's 1e999 parses to Infinity, which would be written back as null). */
export const Num = () => v.pipe(v.number(), v.finite());

/** A whole number within the safe range (a fraction: "must be an integer"). */
export const Int = () => v.pipe(v.number(), v.safeInteger());

export const IdSchema = v.pipe(v.string(), v.regex(UUID_RE, "must be a lowercase UUID"));

export const TimestampSchema = v.pipe(Num(), v.minValue(0));

export const NullableTimestamp = v.optional(v.nullable(TimestampSchema), null);

export const NullableText = v.optional(v.nullable(v.string()), null);

export const CountSchema = v.optional(v.pipe(Int(), v.minValue(0)), 0);

export const UnitInterval = v.pipe(Num(), v.minValue(0), v.maxValue(1));

export const FreeObject = v.optional(v.record(v.string(), v.unknown()), {});
