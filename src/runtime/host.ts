import fs from "node:fs";
import os from "node:os";
import process from "node:process";

// Everything memsync asks of its host process, in one place. Bun and Deno both provide the node:
// modules used here; anything runtime-specific (serve, compile-time facts) is added here too.

export const runtimeName: "bun" | "deno" | "node" =
  "Bun" in globalThis ? "bun" : "Deno" in globalThis ? "deno" : "node";

export function args(): string[] {
  return process.argv.slice(2);
}

export function env(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === "" ? undefined : v;
}

export function homeDir(): string {
  return env("HOME") ?? os.homedir();
}

export function hostName(): string {
  try {
    return os.hostname();
  } catch {
    return "unknown-host";
  }
}

export function userName(): string | null {
  const fromEnv = env("MEMSYNC_USER") ?? env("USER") ?? env("LOGNAME");
  if (fromEnv) return fromEnv;
  try {
    return os.userInfo().username;
  } catch {
    return null;
  }
}

export function cwd(): string {
  return process.cwd();
}

export function stderrIsTty(): boolean {
  return Boolean(process.stderr.isTTY);
}

export async function readStdin(maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of process.stdin as AsyncIterable<Uint8Array | string>) {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
    total += bytes.length;
    if (total > maxBytes) throw new RangeError(`standard input is larger than ${maxBytes} bytes`);
    chunks.push(bytes);
  }
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(all);
}

/**
 * Write straight to a file descriptor. process.stdout's stream costs 2-4 ms on first use in a
 * compiled Bun binary; a CLI that prints once and exits needs none of its buffering. A pipe in
 * non-blocking mode may refuse a write (EAGAIN): wait briefly and go on, so nothing is lost.
 */
function writeFd(fd: number, text: string): void {
  const bytes = new TextEncoder().encode(text);
  let off = 0;
  let waits = 0;
  while (off < bytes.length) {
    try {
      off += fs.writeSync(fd, bytes, off, bytes.length - off);
    } catch (e) {
      if ((e as { code?: string }).code !== "EAGAIN" || ++waits > 10_000) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

export function writeOut(text: string): void {
  writeFd(1, text);
}

export function writeErr(text: string): void {
  writeFd(2, text);
}

export function setExitCode(code: number): void {
  process.exitCode = code;
}

/**
 * Collect garbage now, where the runtime allows it (Bun; Deno and Node only with --expose-gc):
 * between the phases of a long command that each leave much short-lived garbage, so the next
 * phase reuses that memory instead of growing the peak (consolidate at 50k: 390 MB -> under 300).
 */
export function collectGarbage(): void {
  const g = globalThis as { Bun?: { gc(sync: boolean): void }; gc?: () => void };
  if (g.Bun) g.Bun.gc(true);
  else g.gc?.();
}
