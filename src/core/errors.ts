// Every failure memsync reports is a MemsyncError with a stable code; the CLI maps codes to exit
// codes, the API to HTTP statuses (faces/api/errors.ts). Messages are one line, meant for a person.

export const ERROR_CODES = {
  internal: 1,
  usage: 2,
  not_found: 3,
  invalid_input: 4,
  conflict: 5,
  unavailable: 6,
  corrupt: 7,
  /** A credential is missing or wrong (serve without a token on a public address; the API's 401). */
  unauthorized: 8,
  /** The network stalled: a request to the remote received nothing for its idle bound. */
  timeout: 9,
  /** The store cannot be written here (a read-only mount, another user's files): reads work, writes are refused. */
  read_only: 10,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class MemsyncError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, data: Record<string, unknown> = {}) {
    super(oneLine(message));
    this.name = "MemsyncError";
    this.code = code;
    this.data = data;
  }

  get exitCode(): number {
    return ERROR_CODES[this.code];
  }
}

export const usageError = (msg: string, data?: Record<string, unknown>) => new MemsyncError("usage", msg, data);
export const notFound = (msg: string, data?: Record<string, unknown>) => new MemsyncError("not_found", msg, data);
export const invalidInput = (msg: string, data?: Record<string, unknown>) => new MemsyncError("invalid_input", msg, data);
export const conflict = (msg: string, data?: Record<string, unknown>) => new MemsyncError("conflict", msg, data);
export const unavailable = (msg: string, data?: Record<string, unknown>) => new MemsyncError("unavailable", msg, data);
export const timedOut = (msg: string, data?: Record<string, unknown>) => new MemsyncError("timeout", msg, data);
/**
 * A write refused because the store is read-only for this process; `op` names what needed to write
 * (added by the face that knows the operation: withOperation).
 */
export function readOnlyStore(root: string, op?: string): MemsyncError {
  return new MemsyncError("read_only", `the store at ${root} is read-only${op ? `: ${op} needs to write to it` : ""}`, { root, ...(op ? { op } : {}) });
}

/** A read-only refusal said with the operation that needed the write; any other error as it is. */
export function withOperation(e: unknown, op: string): unknown {
  if (!(e instanceof MemsyncError) || e.code !== "read_only" || e.data.op !== undefined || typeof e.data.root !== "string") return e;
  return readOnlyStore(e.data.root, op);
}

export const corrupt = (msg: string, data?: Record<string, unknown>) => new MemsyncError("corrupt", msg, data);

export function isMemsyncError(e: unknown): e is MemsyncError {
  return e instanceof MemsyncError;
}

/** Collapse whitespace so an error never spans lines (stderr is read line by line by agents). */
export function oneLine(text: string, max = 500): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
