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

export function stdinIsTty(): boolean {
  return Boolean(process.stdin.isTTY);
}

export function stdoutIsTty(): boolean {
  return Boolean(process.stdout.isTTY);
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

export function writeOut(text: string): void {
  process.stdout.write(text);
}

export function writeErr(text: string): void {
  process.stderr.write(text);
}

export function setExitCode(code: number): void {
  process.exitCode = code;
}

export function pid(): number {
  return process.pid;
}
