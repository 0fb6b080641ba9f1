// npm test: type-check, build the binary, run every test under Bun (end-to-end tests drive the
// compiled binary), and the pure core tests again under Deno. Ends with one summary line.
//
// The Bun tests spend most of their time waiting for the processes they start (memsync, git),
// one at a time per file; so the files run in a pool of `bun test` processes (TEST_JOBS, default
// 3 on the 2-core machines it must pass on: files also wait without using a core — a lock's
// timeout, a server's back-off, the browser — and a third file fills those gaps), the slow ones first so no worker ends
// alone with one. The type-check runs beside the build, the Deno run joins the pool (without
// Deno's own type-check: tsc has checked the same files, more strictly, and Deno's check of the
// source graph took half of the Deno run's time; and as one module, see denoEntry).
//
// Order: the longest first, by the times of the last run (see `estimate` below).
//
// Progress: a line per finished file (time, counts), a heartbeat for a file still running after
// HEARTBEAT s, and at the end the slowest tests and every test that used a third or more of its
// timeout (the suite must pass on a machine three times slower). Each file's full output is kept
// in .test-logs/ (a failed file's output is also printed).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const bin = (name: string) => path.join(root, "node_modules/.bin", name);
const env = { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" };
const DEFAULT_TIMEOUT_MS = 120_000;
const HEARTBEAT_S = Number(process.env.TEST_HEARTBEAT ?? 60) || 60;
const logs = path.join(root, ".test-logs");
const t0 = performance.now();
let passed = 0;
let failed = 0;
let broken = false;
/** Every test process still running, so an interrupted run takes them with it. */
const running = new Set<Bun.Subprocess>();
/** CPU of every step so far, ms. */
let cpuMs = 0;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    for (const c of running) c.kill("SIGKILL");
    removeScratch();
    process.exit(130);
  });
}

/**
 * Where the tests' temp folders go (TMPDIR of each test process): a folder of this run in RAM
 * (/dev/shm, a tmpfs) when there is one with room, else the system's temp folder. memsync fsyncs
 * every record it writes (and git refs, the checkout), as it must; on the VM's disk each fsync is
 * 3-8 ms of waiting with no CPU used (measured with strace -T: 20 saves spent 529 ms in 67
 * fsyncs on ext4, 10 ms on tmpfs), thousands of times per run. The tests kill processes, never
 * the machine, so what they check does not depend on the data reaching the disk. Each file gets a
 * folder of its own, removed when it ends (the suite used to leave every store behind in /tmp);
 * TEST_KEEP_TMP=1 keeps them, TEST_TMPDIR=DIR chooses the place.
 */
const TMPFS_MAGIC = 0x01021994;
function scratchBase(): string {
  if (process.env.TEST_TMPDIR) return process.env.TEST_TMPDIR;
  try {
    const st = fs.statfsSync("/dev/shm");
    // room for two files at once with a wide margin (most use a few MB; hooks/install 112 MB)
    if (Number(st.type) === TMPFS_MAGIC && Number(st.bavail) * Number(st.bsize) > 2 * 1024 ** 3) {
      fs.accessSync("/dev/shm", fs.constants.W_OK);
      return "/dev/shm";
    }
  } catch {
    // no /dev/shm here
  }
  return os.tmpdir();
}
const scratch = fs.mkdtempSync(path.join(scratchBase(), "memsync-tests-"));
const keepScratch = process.env.TEST_KEEP_TMP === "1";
function removeScratch(): void {
  if (!keepScratch) fs.rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
}

/** A temp folder for one test process; `done` removes it. */
function tmpFor(name: string): { env: Record<string, string>; done: () => void } {
  const dir = fs.mkdtempSync(path.join(scratch, `${name.replace(/[^\w.-]+/g, "_")}-`));
  return { env: { TMPDIR: dir }, done: () => keepScratch || fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 }) };
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const num = (out: string, re: RegExp) => Number(re.exec(out)?.[1] ?? 0);

interface Done {
  name: string;
  out: string;
  code: number | null;
  ms: number;
  /** CPU (user + system) of the process and every descendant it waited for, ms. */
  cpuMs: number;
}

/**
 * Run a command, collecting its output; a heartbeat line while it runs long. Bun.spawn, for the
 * CPU the command used with every process it started (wait4's rusage): the suite is CPU-bound on
 * 2 cores, so CPU per file, not wall time under load, tells where to cut.
 */
async function run(name: string, cmd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Done> {
  const start = performance.now();
  const child = Bun.spawn([cmd, ...args], { cwd: root, env: { ...env, ...extraEnv }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  running.add(child);
  let out = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
  };
  const beat = setInterval(() => {
    const done = name.endsWith(".test.ts") ? `, ${(out.match(/^\(pass\)/gm) ?? []).length} passed so far` : "";
    console.log(`   … ${name} still running (${secs(performance.now() - start)}${done})`);
  }, HEARTBEAT_S * 1000);
  await Promise.all([collect(child.stdout), collect(child.stderr), child.exited]);
  running.delete(child);
  clearInterval(beat);
  const cpu = child.resourceUsage()?.cpuTime.total ?? 0n;
  cpuMs += Number(cpu) / 1000;
  return { name, out, code: child.exitCode, ms: performance.now() - start, cpuMs: Number(cpu) / 1000 };
}

function keepLog(name: string, out: string): void {
  const file = path.join(logs, `${name.replace(/[^\w.-]+/g, "_")}.log`);
  fs.writeFileSync(file, out);
}

/** A step that is not a test file: its output when it failed or said something. */
function report(d: Done, count?: (out: string) => [number, number]): void {
  keepLog(d.name, d.out);
  let counts = "";
  if (count) {
    const [p, f] = count(d.out);
    passed += p;
    failed += f;
    counts = `  ${p} pass  ${f} fail`;
  }
  if (d.code !== 0) {
    broken = true;
    console.log(`\n-- ${d.name} (exit ${d.code})\n${d.out}`);
  }
  console.log(`${secs(d.ms).padStart(8)}  cpu ${secs(d.cpuMs).padStart(7)}${counts}  ${d.name}${d.code === 0 ? "" : "  FAILED"}`);
}

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...testFiles(p));
    else if (e.name.endsWith(".test.ts")) out.push(path.relative(root, p));
  }
  return out;
}

/**
 * How long each file took (ms), to start the longest first so the workers end together (longest
 * processing time first: the last to start are the shortest). From this machine's last run
 * (.test-logs/times.json), else the table kept in the repository (scripts/test-times.json: a
 * quiet 2-core run; refresh it by copying .test-logs/times.json after a full run). A file in
 * neither counts as UNKNOWN_MS. A hint only: a wrong time costs balance, never a test.
 */
const TIMES_FILE = path.join(logs, "times.json");
const UNKNOWN_MS = 10_000;
function readTimes(file: string): Record<string, number> {
  try {
    const t = JSON.parse(fs.readFileSync(file, "utf8"));
    return t && typeof t === "object" && !Array.isArray(t) ? t : {};
  } catch {
    return {};
  }
}
const known = { ...readTimes(path.join(root, "scripts/test-times.json")), ...readTimes(TIMES_FILE) };
const estimate = (name: string) => (typeof known[name] === "number" ? known[name]! : UNKNOWN_MS);
const measured: Record<string, number> = {};
const DENO = "core tests (deno)";

/** The timeouts a file's tests declare (`test("name", { timeout: N }`), as name patterns. */
function declaredTimeouts(file: string): [RegExp, number][] {
  const src = fs.readFileSync(path.join(root, file), "utf8");
  const out: [RegExp, number][] = [];
  // a name may hold ${...} with quotes of its own; a computed timeout counts by its first number
  const re = /\btest\(\s*(["'`])((?:\\.|\$\{(?:[^{}]|\{[^{}]*\})*\}|(?!\1).)*)\1\s*,\s*\{\s*timeout:[^\d}]*([\d_]+)/g;
  for (let m = re.exec(src); m; m = re.exec(src)) {
    const pattern = m[2]!
      .split(/\$\{(?:[^{}]|\{[^{}]*\})*\}/) // the same ${...} as above, one level of braces inside
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    out.push([new RegExp(`(^|> )${pattern}$`), Number(m[3]!.replace(/_/g, ""))]);
  }
  return out;
}

interface TestTime {
  file: string;
  name: string;
  ms: number;
  timeout: number;
}

const times: TestTime[] = [];

function collectTimes(file: string, out: string): void {
  const declared = declaredTimeouts(file);
  for (const m of out.matchAll(/^\((?:pass|fail)\) (.*) \[([\d.]+)(ms|s)\]$/gm)) {
    const name = m[1]!;
    const ms = Number(m[2]) * (m[3] === "s" ? 1000 : 1);
    const timeout = declared.find(([re]) => re.test(name))?.[1] ?? DEFAULT_TIMEOUT_MS;
    times.push({ file, name, ms, timeout });
  }
}

/**
 * One module that imports every core test file, for the Deno run: Deno starts a new worker per
 * test module it is given, about 0.5 s of CPU each even for an empty file (measured: 10 files of
 * one empty Deno.test took 6.3 s of CPU), more than most core files' own tests. One module runs
 * the same tests in one worker (19 s of CPU became 10.5 s). Written for each run, so a new core
 * file is in it; a file still runs alone with `deno test -A tests/core/x.test.ts`.
 */
function denoEntry(): string {
  const file = path.join(logs, "deno-core.ts");
  const imports = testFiles(path.join(root, "tests/core")).sort().map((f) => `import "${path.relative(logs, path.join(root, f))}";`);
  fs.writeFileSync(file, `// written by scripts/test.ts: every core test in one Deno test module\n${imports.join("\n")}\n`);
  return path.relative(root, file);
}

async function pool(): Promise<void> {
  const jobs = Math.max(1, Number(process.env.TEST_JOBS ?? 3) || 3);
  const only = process.argv.slice(2); // `bun scripts/test.ts sync/ cli/get`: only the files these name (the Deno run: `deno`)
  const withDeno = only.length === 0 || only.some((o) => DENO.includes(o));
  const files = testFiles(path.join(root, "tests")).filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
  console.log(`\n== tests: ${files.length} files under Bun${withDeno ? " and the core tests under Deno" : ""}, ${jobs} at a time`);
  type Job = { name: string; go: () => Promise<void> };
  const queue: Job[] = files.map((file) => ({ name: file, go: async () => {
    const tmp = tmpFor(file);
    const d = await run(file, bin("bun"), ["test", "--timeout", String(DEFAULT_TIMEOUT_MS), file], tmp.env);
    tmp.done();
    measured[file] = Math.round(d.ms);
    keepLog(file, d.out);
    collectTimes(file, d.out);
    const p = num(d.out, /^\s*(\d+) pass$/m);
    const x = num(d.out, /^\s*(\d+) fail$/m);
    passed += p;
    failed += x;
    if (d.code !== 0 || x > 0) {
      broken = true;
      console.log(`\n-- ${file} (exit ${d.code})\n${d.out}`);
    }
    console.log(`${secs(d.ms).padStart(8)}  cpu ${secs(d.cpuMs).padStart(7)}  ${String(p).padStart(3)} pass  ${x} fail  ${file}`);
  } }));
  // the Deno run is one more job of the pool, placed by its time like the files
  if (withDeno) queue.push({ name: DENO, go: async () => {
    const tmp = tmpFor("deno");
    const d = await run(DENO, bin("deno"), ["test", "-A", "--quiet", "--no-check", denoEntry()], tmp.env);
    tmp.done();
    measured[DENO] = Math.round(d.ms);
    report(d, (out) => [num(out, /\((\d+) steps?\)/) || num(out, /(\d+) passed/), num(out, /(\d+) failed/)]);
  } });
  queue.sort((a, b) => estimate(b.name) - estimate(a.name) || a.name.localeCompare(b.name));
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) await job.go();
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  // this run's times for the next run's order (a partial run updates only its files)
  fs.writeFileSync(TIMES_FILE, `${JSON.stringify(Object.fromEntries(Object.entries({ ...readTimes(TIMES_FILE), ...measured }).sort(([a], [b]) => a.localeCompare(b))), null, 2)}\n`);
}

function slowest(): void {
  const near = times.filter((t) => t.ms * 3 > t.timeout).sort((a, b) => b.ms - a.ms);
  console.log(`\n== slowest tests`);
  for (const t of [...times].sort((a, b) => b.ms - a.ms).slice(0, 10)) {
    console.log(`${secs(t.ms).padStart(8)}  of ${secs(t.timeout).padStart(7)}  ${t.file}: ${t.name.slice(0, 110)}`);
  }
  for (const t of near) console.log(`!! ${t.file}: "${t.name.slice(0, 90)}" took ${secs(t.ms)}, over a third of its ${secs(t.timeout)} timeout`);
}

fs.mkdirSync(logs, { recursive: true });
console.log(`== typecheck and build`);
const typecheck = run("typecheck", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]).then(report);
const build = await run("build", bin("bun"), ["scripts/build.ts"]);
report(build);
if (build.code === 0) await pool();
await typecheck;
if (build.code === 0) slowest();

removeScratch();
console.log(`\ntests: ${passed} passed, ${failed} failed in ${secs(performance.now() - t0)} (CPU ${secs(cpuMs)})`);
process.exit(broken || failed > 0 || passed === 0 ? 1 : 0);
