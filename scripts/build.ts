// npm run build: the two binaries, via bun build --compile. dist/memsync is the main build (every
// command); dist/memsync-edge leaves maintenance out (MEMSYNC_EDITION, see src/runtime/edition.ts).
// --bytecode and ESM keep start-up to a few milliseconds (DESIGN.md section 3).
import { mkdirSync } from "node:fs";

const targets = [
  { entry: "src/main.ts", out: "dist/memsync", edition: "main" },
  { entry: "src/main.ts", out: "dist/memsync-edge", edition: "edge" },
];

mkdirSync("dist", { recursive: true });
for (const t of targets) {
  const args = ["build", "--compile", "--bytecode", "--format=esm", "--minify", "--splitting", "--sourcemap=none", `--define=MEMSYNC_EDITION=${JSON.stringify(t.edition)}`, t.entry, "--outfile", t.out];
  const proc = Bun.spawnSync([process.execPath, ...args], { stdout: "inherit", stderr: "inherit" });
  if (proc.exitCode !== 0) {
    console.error(`build failed: bun ${args.join(" ")}`);
    process.exit(proc.exitCode ?? 1);
  }
}
