// npm run build: the single binary, dist/memsync, via bun build --compile.
// --bytecode and ESM keep start-up to a few milliseconds (DESIGN.md section 3).
import { mkdirSync } from "node:fs";

const targets = [{ entry: "src/main.ts", out: "dist/memsync" }];

mkdirSync("dist", { recursive: true });
for (const t of targets) {
  const args = ["build", "--compile", "--bytecode", "--format=esm", "--minify", "--splitting", "--sourcemap=none", t.entry, "--outfile", t.out];
  const proc = Bun.spawnSync([process.execPath, ...args], { stdout: "inherit", stderr: "inherit" });
  if (proc.exitCode !== 0) {
    console.error(`build failed: bun ${args.join(" ")}`);
    process.exit(proc.exitCode ?? 1);
  }
}
