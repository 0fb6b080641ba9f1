import { invalidInput } from "../../core/errors.ts";
import type { Context } from "hono";

// A request's JSON body as an object. The body may hold a secret: a refusal says what is wrong
// with it, never what it held.

export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw invalidInput("the request body is not valid JSON");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw invalidInput("the request body must be a JSON object (the operation's input)");
  return v as Record<string, unknown>;
}
