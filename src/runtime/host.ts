import fs from "node:fs";
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

/**
 * node:os, loaded when first asked: evaluating it cost every command ~0.3 ms of CPU at start
 * (a compiled probe, issue 16), while most commands read HOME and USER from the environment.
 */
let osModule: typeof import("node:os") | undefined;
function os(): typeof import("node:os") {
  return (osModule ??= process.getBuiltinModule("node:os"));
}

export function homeDir(): string {
  return env("HOME") ?? os().homedir();
}

/** The system's folder for temporary files (os.tmpdir()). */
export function tempDir(): string {
  return os().tmpdir();
}

export function hostName(): string {
  try {
    return os().hostname();
  } catch {
    return "unknown-host";
  }
}

export function userName(): string | null {
  const fromEnv = env("MEMSYNC_USER") ?? env("USER") ?? env("LOGNAME");
  if (fromEnv) return fromEnv;
  try {
    return os().userInfo().username;
  } catch {
    return null;
  }
}

export function cwd(): string {
  return streams?.cwd ?? process.cwd();
}

export function stderrIsTty(): boolean {
  return !streams && isTerminal(2);
}

/**
 * Whether a descriptor is a terminal. On Linux the descriptor's link names its device (a
 * pseudo-terminal /dev/pts/N, a console /dev/ttyN): reading it costs a syscall, where
 * process.stderr.isTTY builds Node's stream machinery (~40 ms of CPU in every command that
 * checks for a progress bar, measured with --cpu-prof on `sync`). Elsewhere the stream answers.
 */
function isTerminal(fd: 1 | 2): boolean {
  if (process.platform === "linux") {
    try {
      return /^\/dev\/(pts\/|tty|console$)/.test(fs.readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // no /proc: ask the stream
    }
  }
  return Boolean((fd === 1 ? process.stdout : process.stderr).isTTY);
}

/**
 * The standard streams of a command run inside another program (tests run the CLI in-process
 * with this, as a process would run it, where a sweep of bad inputs would otherwise start a
 * process per case); null: the real ones.
 */
export interface Streams {
  stdin: string;
  /** The command's working directory, where not the process's own. */
  cwd?: string;
  out: (text: string) => void;
  err: (text: string) => void;
}
let streams: Streams | null = null;

/** Run fn with the given standard streams in place of the process's own. */
export async function withStreams<T>(s: Streams, fn: () => Promise<T>): Promise<T> {
  const before = streams;
  streams = s;
  try {
    return await fn();
  } finally {
    streams = before;
  }
}

/**
 * All of standard input, read straight from file descriptor 0: process.stdin's stream loads
 * Node's stream machinery, several ms of a hook's start-up, for one read to the end. A pipe in
 * non-blocking mode may have nothing yet (EAGAIN): wait briefly and read again, until end of input.
 */
export async function readStdin(maxBytes: number): Promise<string> {
  if (streams) {
    if (new TextEncoder().encode(streams.stdin).length > maxBytes) throw new RangeError(`standard input is larger than ${maxBytes} bytes`);
    return streams.stdin;
  }
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(64 * 1024);
  let total = 0;
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        continue;
      }
      if (code === "EOF" || code === "EBADF") break; // end of input, or no standard input at all
      throw e;
    }
    if (n === 0) break;
    total += n;
    if (total > maxBytes) throw new RangeError(`standard input is larger than ${maxBytes} bytes`);
    chunks.push(buf.slice(0, n));
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
const closed = new Set<number>();
function writeFd(fd: number, text: string): void {
  if (closed.has(fd)) return;
  const bytes = new TextEncoder().encode(text);
  let off = 0;
  let waits = 0;
  while (off < bytes.length) {
    try {
      off += fs.writeSync(fd, bytes, off, bytes.length - off);
    } catch (e) {
      // the reader is gone (`memsync list | head`): the command's work is done, only its output
      // has nowhere to go; drop the rest quietly, as git does, instead of a crash report
      if ((e as { code?: string }).code === "EPIPE") {
        closed.add(fd);
        return;
      }
      if ((e as { code?: string }).code !== "EAGAIN" || ++waits > 10_000) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

export function writeOut(text: string): void {
  if (streams) streams.out(text);
  else writeFd(1, text);
}

export function writeErr(text: string): void {
  if (streams) streams.err(text);
  else writeFd(2, text);
}

export function setExitCode(code: number): void {
  process.exitCode = code;
}

/**
 * JavaScriptCore's usual JIT tier-up from here on. The compiled binary starts with its thresholds
 * scaled up (scripts/build.ts: a short command's run-once code stays in the interpreter instead of
 * paying compiler threads); a command that may run long (a server, an import, a sync) asks for
 * the usual policy before its work. Nothing elsewhere (Deno, or Bun without the API).
 */
export function usualJit(): void {
  const bun = (globalThis as { Bun?: { unsafe?: { setJITPolicy?: (scale: number) => void } } }).Bun;
  bun?.unsafe?.setJITPolicy?.(1);
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
