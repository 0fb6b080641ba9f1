// npm test: type-check, build the binary, run every test under Bun (end-to-end tests drive the
// compiled binary), and the pure core tests again under Deno. Ends with one summary line.
import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const bin = (name: string) => path.join(root, "node_modules/.bin", name);
let passed = 0;
let failed = 0;
let broken = false;

function step(title: string, cmd: string, args: string[], count?: (out: string) => [number, number]): void {
  console.log(`\n== ${title}: ${path.basename(cmd)} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" } });
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

step("typecheck", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]);
step("build", bin("bun"), ["scripts/build.ts"]);
step("tests (bun)", bin("bun"), ["test", "--timeout", "120000", "tests/"], (out) => [num(out, /^\s*(\d+) pass$/m), num(out, /^\s*(\d+) fail$/m)]);
step("core tests (deno)", bin("deno"), ["test", "-A", "--quiet", "tests/core/"], (out) => [num(out, /\((\d+) steps?\)/) || num(out, /(\d+) passed/), num(out, /(\d+) failed/)]);

console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(broken || failed > 0 || passed === 0 ? 1 : 0);
