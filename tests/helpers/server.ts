import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BIN, REPO, tempDir } from "./env.ts";

// `memsync serve` as a real process for the API tests: started on a free loopback port, ready
// when it prints its listening line (the contract the benchmarks rely on too), spoken to with fetch.

export interface Server {
  url: string;
  child: ChildProcess;
  /** What it printed on stderr so far. */
  stderr(): string;
  /** Send a signal and wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Run the source under a runtime instead of the binary (e.g. Deno). */
  command?: string[];
  bin?: string;
}

function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("MEMSYNC_")) env[k] = v;
  return { ...env, HOME: tempDir("memsync-home-"), MEMSYNC_MACHINE: "server-machine", ...extra };
}

/** Start a server on store; rejects with its stderr if it exits before listening. */
export function startServer(store: string, opts: StartOptions = {}): Promise<Server> {
  const [cmd, ...pre] = opts.command ?? [opts.bin ?? BIN];
  const child = spawn(cmd!, [...pre, "--store", store, "serve", ...(opts.args ?? ["--listen", "127.0.0.1:0"])], { env: serverEnv(opts.env), cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  child.stderr!.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /^memsync serve: listening on (\S+)\n/m.exec(out);
      if (m) resolve({ url: m[1]!, child, stderr: () => err, stop: (sig = "SIGTERM") => (child.kill(sig), exited) });
    });
    void exited.then((code) => reject(new Error(`serve exited ${code} before listening: ${err.trim()}`)));
  });
}

/** Run a server for the duration of fn, stopped afterwards whatever happens. */
export async function withServer<T>(store: string, fn: (s: Server) => Promise<T>, opts: StartOptions = {}): Promise<T> {
  const s = await startServer(store, opts);
  try {
    return await fn(s);
  } finally {
    await s.stop();
  }
}

/** POST a JSON body; the status and parsed answer. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const r = await fetch(url, { headers });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

/** A token file as an operator writes one (mode 600), for --token-file. */
export function tokenFile(token: string): string {
  const file = path.join(tempDir(), "token");
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

/** A server on a free loopback port that asks for this bearer token. */
export function startWithToken(store: string, token: string): Promise<Server> {
  return startServer(store, { args: ["--listen", "127.0.0.1:0", "--token-file", tokenFile(token)] });
}
