import { type ErrorCode, MemsyncError, oneLine } from "../../core/errors.ts";
import { coded } from "../../ops/catalogue/errors.ts";

// How the API says a failure: `{"error": {"code", "message"}}` with a status from the code. The
// operations' codes are the CLI's (core/errors.ts); the API adds its own for what only HTTP has.

/** Codes only the API gives (the request, not the operation, was refused). */
export type ApiCode = "forbidden" | "too_large" | "method_not_allowed" | "too_many_requests";

const STATUS: Record<ErrorCode | ApiCode, number> = {
  usage: 400,
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  // a write to a store this server may only read (a read-only mount): refused as a request, not a failure
  read_only: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  too_large: 413,
  too_many_requests: 429,
  unavailable: 503,
  timeout: 504,
  corrupt: 500,
  internal: 500,
};

export function statusOf(code: ErrorCode | ApiCode): number {
  return STATUS[code] ?? 500;
}

export interface ErrorBody {
  error: { code: string; message: string };
}

/** The body and status of a failure; messages are one line and never carry the request's body. */
export function errorOf(e: unknown): { body: ErrorBody; status: number } {
  const err = e instanceof MemsyncError ? e : coded(e);
  return { body: { error: { code: err.code, message: oneLine(err.message) } }, status: statusOf(err.code) };
}

export function apiError(code: ErrorCode | ApiCode, message: string): Response {
  return Response.json({ error: { code, message: oneLine(message) } } satisfies ErrorBody, { status: statusOf(code) });
}

export function errorResponse(e: unknown): Response {
  const { body, status } = errorOf(e);
  const res = Response.json(body, { status });
  // a wait cut by its limit (store/lock-terms.ts): when to ask again
  const retry = e instanceof MemsyncError ? e.data.retry_after_s : undefined;
  if (typeof retry === "number") res.headers.set("Retry-After", String(retry));
  return res;
}
