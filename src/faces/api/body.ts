import { invalidInput } from "../../core/errors.ts";
import { jsonDeeperThan } from "../../core/model/validate.ts";
import { MAX_INPUT_DEPTH } from "../../core/prototype-keys.ts";
import type { Context } from "hono";

// A request's JSON body as an object. The body may hold a secret: a refusal says what is wrong
// with it, never what it held.

export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  // checked on the text, before JSON.parse builds (or overflows on) a value nested that deep
  if (jsonDeeperThan(text, MAX_INPUT_DEPTH)) throw invalidInput(`the request body nests objects or arrays deeper than ${MAX_INPUT_DEPTH} levels`);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw invalidInput("the request body is not valid JSON");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw invalidInput("the request body must be a JSON object (the operation's input)");
  return v as Record<string, unknown>;
}
