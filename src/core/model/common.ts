import * as z from "zod/mini";
import { UUID_RE } from "../ids.ts";

// Building blocks shared by the record schemas. Times are Unix seconds, as in the CortexGraph
// spec; fractional values written by other tools are accepted on read.

export const IdSchema = z.string().check(z.regex(UUID_RE, { message: "must be a lowercase UUID" }));

export const TimestampSchema = z.number().check(z.minimum(0));

export const NullableTimestamp = z._default(z.nullable(TimestampSchema), null);

export const NullableText = z._default(z.nullable(z.string()), null);

export const CountSchema = z._default(z.int().check(z.minimum(0)), 0);

export const UnitInterval = z.number().check(z.minimum(0), z.maximum(1));

export const FreeObject = z._default(z.record(z.string(), z.unknown()), {});
