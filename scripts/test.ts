// npm test: type-check, build the binary, run every test under Bun (end-to-end tests drive the
// compiled binary), and the pure core tests again under Deno. Ends with one summary line.
//
// The Bun tests spend most of their time waiting for the processes they start (memsync, git),
// one at a time per file; so the files run in a pool of two `bun test` processes, longest first
// (the chaos run, the crash tests), which keeps both cores busy and halves the wall time on a
// 2-core machine. TEST_JOBS=1 runs them one file at a time.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const bin = (name: string) => path.join(root, "node_modules/.bin", name);
const env = { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" };
let passed = 0;
let failed = 0;
let broken = false;

function step(title: string, cmd: string, args: string[], count?: (out: string) => [number, number]): void {
  console.log(`\n== ${title}: ${path.basename(cmd)} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  process.stdout.write(out);
  if (count) {
    const [p, f] = count(out);
    passed += p;
    failed += f;
  }
  if (r.status !== 0) {
    broken = true;
    console.log(`!! ${title} exited ${r.status}`);
  }
}

const num = (out: string, re: RegExp) => Number(re.exec(out)?.[1] ?? 0);

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...testFiles(p));
    else if (e.name.endsWith(".test.ts")) out.push(path.relative(root, p));
  }
  return out;
}

/** The files that take longest (tens of seconds each) start first, so neither worker ends alone with one. */
const SLOW_FIRST = ["chaos/chaos", "cli/secrets", "store/concurrency", "sync/sync-safety", "sync/exchange", "sync/crash-transfer"];
const rank = (f: string) => {
  const i = SLOW_FIRST.findIndex((s) => f.includes(`${s}.test.ts`));
  return i < 0 ? SLOW_FIRST.length : i;
};

/** Run one test file; resolves with its output and exit code. */
function runFile(file: string): Promise<{ file: string; out: string; code: number | null; ms: number }> {
  const start = performance.now();
  return new Promise((resolve) => {
    const child = spawn(bin("bun"), ["test", "--timeout", "120000", file], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => resolve({ file, out, code, ms: performance.now() - start }));
  });
}

async function bunTests(): Promise<void> {
  const jobs = Math.max(1, Number(process.env.TEST_JOBS ?? 2) || 2);
  const files = testFiles(path.join(root, "tests")).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  console.log(`\n== tests (bun): ${files.length} files, ${jobs} at a time`);
  const queue = [...files];
  const results: Awaited<ReturnType<typeof runFile>>[] = [];
  const worker = async () => {
    for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
      const r = await runFile(f);
      results.push(r);
      const p = num(r.out, /^\s*(\d+) pass$/m);
      const x = num(r.out, /^\s*(\d+) fail$/m);
      passed += p;
      failed += x;
      // a file's whole output when it failed; otherwise one line
      if (r.code !== 0 || x > 0) {
        broken = true;
        console.log(`\n-- ${r.file} (exit ${r.code})\n${r.out}`);
      }
      console.log(`${(r.ms / 1000).toFixed(1).padStart(6)} s  ${p} pass  ${x} fail  ${r.file}`);
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
}

step("typecheck", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]);
step("build", bin("bun"), ["scripts/build.ts"]);
await bunTests();
step("core tests (deno)", bin("deno"), ["test", "-A", "--quiet", "tests/core/"], (out) => [num(out, /\((\d+) steps?\)/) || num(out, /(\d+) passed/), num(out, /(\d+) failed/)]);

console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(broken || failed > 0 || passed === 0 ? 1 : 0);
