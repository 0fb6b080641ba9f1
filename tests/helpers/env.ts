import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

// Shared test fixtures: real temp folders, the real compiled binary run as a process.

export const REPO = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
export const BIN = process.env.MEMSYNC_BIN ?? path.join(REPO, "dist/memsync");
/** The edge build: no maintenance commands. */
export const EDGE_BIN = path.join(REPO, "dist/memsync-edge");

export function tempDir(prefix = "memsync-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string;
  env?: Record<string, string>;
  cwd?: string;
  /** Run the source under a runtime instead of the binary: ["deno", "run", "-A", "src/main.ts"]. */
  command?: string[];
}

let fakeHome: string | undefined;

/**
 * The memsync commands the tests run go with JavaScriptCore's JIT off (TEST_JIT=1 keeps it on):
 * each lives 30-300 ms, too short for compiled code to pay back the compiler threads. Per
 * command, alternating runs at load ~25: save 152 -> 102 ms of CPU, recall 151 -> 92, touch 120 ->
 * 102, status 129 -> 108. The JIT changes speed, never a result; the chaos test, the servers and
 * the test files themselves keep it, so the binary is still driven as users run it.
 */
const RUNTIME_ENV: Record<string, string> = process.env.TEST_JIT === "1" ? {} : { BUN_JSC_useJIT: "0" };
/**
 * Except for a command given a long text (arguments or standard input): without the JIT its
 * regular expressions are interpreted too, and reading a 43 KB memory took 600 ms of CPU instead
 * of 90 (an update of one: capture's sentence reading, redaction, the gist).
 */
const LONG_TEXT = 8 * 1024;

/** The environment of a memsync run: never the real home (no test may touch ~/.memsync). */
function baseEnv(extra: Record<string, string> = {}, textLength = 0): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("MEMSYNC_")) env[k] = v;
  fakeHome ??= tempDir("memsync-home-");
  return { ...env, ...(textLength > LONG_TEXT ? {} : RUNTIME_ENV), HOME: fakeHome, MEMSYNC_MACHINE: "test-machine", ...extra };
}

const textLength = (args: string[], opts: RunOptions) => args.reduce((n, a) => n + a.length, opts.input?.length ?? 0);

/** Run memsync (the compiled binary unless opts.command says otherwise) and wait for it. */
export function memsync(args: string[], opts: RunOptions = {}): Run {
  const [cmd, ...pre] = opts.command ?? [BIN];
  const r = spawnSync(cmd!, [...pre, ...args], {
    input: opts.input ?? "",
    env: baseEnv(opts.env, textLength(args, opts)),
    cwd: opts.cwd ?? REPO,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Start memsync without waiting; resolves when it exits. */
export function memsyncAsync(args: string[], opts: RunOptions = {}): Promise<Run> {
  return memsyncChild(args, opts).done;
}

/** memsyncAsync with its process (to signal it); `done` resolves when it exits (code -1: killed). */
export function memsyncChild(args: string[], opts: RunOptions = {}): { child: ChildProcess; done: Promise<Run> } {
  const [cmd, ...pre] = opts.command ?? [BIN];
  const child = spawn(cmd!, [...pre, ...args], { env: baseEnv(opts.env, textLength(args, opts)), cwd: opts.cwd ?? REPO });
  const done = new Promise<Run>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin!.end(opts.input ?? "");
  });
  return { child, done };
}

/** memsync with --json, parsed; fails the test on a non-zero exit. */
export function memsyncJson<T = any>(args: string[], opts: RunOptions = {}): T {
  return jsonOf<T>(args, memsync([...args, "--json"], opts));
}

function jsonOf<T>(args: string[], r: Run): T {
  if (r.code !== 0) throw new Error(`memsync ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Every file under dir (relative path -> bytes), for byte-for-byte comparisons. */
export function snapshot(dir: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (skip(r)) continue;
      if (e.isDirectory()) walk(r);
      else out.set(r, fs.readFileSync(path.join(dir, r)).toString("base64"));
    }
  };
  walk("");
  return out;
}

/** A store made by `memsync init` in a temp folder (for a test that checks init, or a template). */
export function initStore(dir = path.join(tempDir(), "store"), env?: Record<string, string>): string {
  const r = memsync(["init", dir], { env });
  if (r.code !== 0) throw new Error(`init failed: ${r.stderr}`);
  return dir;
}

const templates = new Map<string, string>();

/**
 * A copy of a store that `make` builds once per test process and key (a folder copy is another
 * checkout to memsync: it takes a new replica id, src/store/machine.ts; and it has no index yet,
 * so its first command builds one from the files). For setup only: a copy costs a millisecond
 * where a memsync process costs 50-150 ms of CPU, and most test files start dozens of stores.
 * The template itself is never used.
 */
export function fromTemplate(key: string, make: (dir: string) => void, dir = path.join(tempDir(), "store")): string {
  let template = templates.get(key);
  if (!template) {
    template = path.join(tempDir("memsync-template-"), path.basename(dir));
    make(template);
    templates.set(key, template);
  }
  // not the index: a copy's files have new inodes, which an index would take for outside edits;
  // a new index rescans instead (as after a lost index) and finds nothing changed
  fs.cpSync(template, dir, { recursive: true, filter: (src) => !/[/\\]\.memsync[/\\]index\.db/.test(src) });
  return dir;
}

/** A fresh store as `memsync init` makes it (a copy of one init made once per test process). */
export function newStore(): string {
  return fromTemplate("init", (dir) => initStore(dir));
}

/**
 * Many memories saved by one memsync process (`save --input -` with a JSON array: every record
 * checked, then saved as one operation and one commit); their ids in order. A string is a record
 * with only its content. For setup: the save path a test checks runs through `save` itself.
 */
export function saveMany(store: string, records: (string | Record<string, unknown>)[], opts: RunOptions & { flags?: string[] } = {}): string[] {
  const [args, input] = saveManyCall(store, records, opts.flags);
  return savedIds(memsyncJson(args, { ...opts, input }));
}

const saveManyCall = (store: string, records: (string | Record<string, unknown>)[], flags: string[] = []): [string[], string] => [
  ["--store", store, "save", "--input", "-", ...flags],
  JSON.stringify(records.map((r) => (typeof r === "string" ? { content: r } : r))),
];
const savedIds = (out: { saved: { memory: { id: string } }[] }) => out.saved.map((s) => s.memory.id);

export function hasCommand(cmd: string): boolean {
  return spawnSync(cmd, ["--version"], { encoding: "utf8" }).status === 0;
}

/** Native git, with an identity for commits, run to completion. */
export function git(cwd: string, ...args: string[]) {
  return spawnSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8" });
}

/** A git repository in a temp folder with an origin remote: a project as memsync names it (from the remote). */
export function gitProject(remote: string, name = "shop"): string {
  const repo = path.join(tempDir(), name);
  fs.mkdirSync(repo, { recursive: true });
  if (git(repo, "init", "-q").status !== 0 || git(repo, "remote", "add", "origin", remote).status !== 0) throw new Error(`git init in ${repo} failed`);
  return repo;
}

/** A memory's record as its file holds it (flat or sharded), or null when there is none. */
export function readMemoryFile(dir: string, id: string): any {
  const p = [path.join(dir, "memories", `${id}.json`), path.join(dir, "memories", id.slice(-2), `${id}.json`)].find((x) => fs.existsSync(x));
  return p ? JSON.parse(fs.readFileSync(p, "utf8")) : null;
}

/** Every file under a folder (absolute paths), optionally only those ending with a suffix. */
export function filesUnder(dir: string, suffix = ""): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && p.endsWith(suffix)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/**
 * memsync's command line run inside this test process (the source, not the binary): the same
 * arguments, environment (a fake HOME, MEMSYNC_MACHINE, `opts.env`; no MEMSYNC_* of the test's
 * own), standard input and output as a process of the binary gets, and its exit code. For sweeps
 * of many cases of one kind (bad ids, bad settings), where a process each costs 50-150 ms of CPU
 * and the cases differ only in what the code decides: each such test still runs representative
 * cases through the compiled binary. Not for kills, locks or anything that needs a process.
 */
export async function memsyncInProcess(args: string[], opts: Omit<RunOptions, "command"> = {}): Promise<Run> {
  const [{ runCli }, { withStreams }] = await Promise.all([import("../../src/faces/cli/main.ts"), import("../../src/runtime/host.ts")]);
  const env = baseEnv(opts.env);
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  Object.assign(process.env, env);
  let stdout = "";
  let stderr = "";
  try {
    const code = await withStreams({ stdin: opts.input ?? "", cwd: opts.cwd ?? REPO, out: (t) => (stdout += t), err: (t) => (stderr += t) }, () => runCli(args));
    return { code, stdout, stderr };
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

/** Case `i` of a sweep of one kind: the first through the compiled binary, the rest in-process. */
export async function memsyncCase(i: number, args: string[], opts: Omit<RunOptions, "command" | "cwd"> = {}): Promise<Run> {
  return i === 0 ? memsync(args, opts) : await memsyncInProcess(args, opts);
}

/** The command a memsync command line runs: its first word that is not an option or an option's value. */
function commandOf(args: string[]): string {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--store" || a === "--cwd") i++;
    else if (!a.startsWith("-")) return a;
  }
  return "";
}

/**
 * Commands that write how to start memsync (the merge driver git runs: init, clone) or start it
 * (hooks' background sync, servers): in a test process that would be the test runner, so these
 * always run as the binary.
 */
const SELF_STARTING = new Set(["init", "clone", "hook", "hooks", "serve", "mcp"]);

/**
 * A test file's memsync, for files that check what commands decide (scores, merges, recall's
 * ranking, the records written), not how processes behave: each command's first run in the file
 * goes through the compiled binary, its later runs in-process (memsyncInProcess: same arguments,
 * environment, standard input, working directory, output and exit code). A process costs 50-150
 * ms of CPU, an in-process run 5-15; the suite is CPU-bound on 2 cores. Runs given another
 * program (`command`: the edge build, Deno), SELF_STARTING commands and runs with a fault to inject
 * (MEMSYNC_FAULT kills the process that reaches it) always start it. Never for kills, locks, races or
 * servers: those files keep `memsync` from env.ts, a process every time.
 */
export function binaryThenInProcess(): {
  memsync: (args: string[], opts?: RunOptions) => Promise<Run>;
  memsyncJson: <T = any>(args: string[], opts?: RunOptions) => Promise<T>;
  saveMany: (store: string, records: (string | Record<string, unknown>)[], opts?: RunOptions & { flags?: string[] }) => Promise<string[]>;
} {
  const seen = new Set<string>();
  const run = async (args: string[], opts: RunOptions = {}): Promise<Run> => {
    const cmd = commandOf(args);
    if (opts.command || SELF_STARTING.has(cmd) || opts.env?.MEMSYNC_FAULT || !seen.has(cmd)) {
      if (!opts.command) seen.add(cmd);
      return memsync(args, opts);
    }
    return await memsyncInProcess(args, opts);
  };
  const json = async <T = any>(args: string[], opts: RunOptions = {}): Promise<T> => jsonOf<T>(args, await run([...args, "--json"], opts));
  return {
    memsync: run,
    memsyncJson: json,
    saveMany: async (store, records, opts = {}) => {
      const [args, input] = saveManyCall(store, records, opts.flags);
      return savedIds(await json(args, { ...opts, input }));
    },
  };
}
